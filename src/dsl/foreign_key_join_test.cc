// Foreign-key joins of tables through the test driver: inner and left; right updates fan out
// to every subscriber; a changed foreign key retracts the old result and unsubscribes; left and
// right deletes; rows without a foreign key; stale responses dropped by their hash; results'
// timestamps; a materialised result; describe() as Kafka Streams 3.9 describes the same DSL.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/kstream.h"
#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"
#include "built_topology.h"

namespace brook {
namespace {

using testing::build;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TopologyTestDriver;
using Out = KeyValue<std::string, std::optional<std::string>>;

// Orders are "<customer>:<amount>"; an order without a ':' has no customer.
std::optional<std::string> customer_of(const std::string& order) {
  const auto colon = order.find(':');
  if (colon == std::string::npos) return std::nullopt;
  return order.substr(0, colon);
}

Topology inner_join() {
  StreamsBuilder builder;
  auto orders = builder.table<std::string, std::string>("orders");
  auto customers = builder.table<std::string, std::string>("customers");
  orders
      .join(customers, customer_of,
            [](const std::string& order, const std::string& customer) {
              return order + " by " + customer;
            },
            {.name = "enrich"})
      .to_stream()
      .to("out");
  return build(builder);
}

// `result` names a store to keep the result in.
Topology left_join(Materialized<std::string, std::string> result = {}) {
  StreamsBuilder builder;
  auto orders = builder.table<std::string, std::string>("orders");
  auto customers = builder.table<std::string, std::string>("customers");
  orders
      .left_join(
          customers, customer_of,
          [](const std::string& order, const std::optional<std::string>& customer) {
            return order + " by " + customer.value_or("?");
          },
          {.name = "enrich"}, std::move(result))
      .to_stream()
      .to("out");
  return build(builder);
}

struct App {
  explicit App(Topology topology)
      : driver(std::move(topology)),
        orders(driver.create_input_topic<std::string, std::optional<std::string>>("orders")),
        customers(driver.create_input_topic<std::string, std::optional<std::string>>("customers")),
        out(driver.create_output_topic<std::string, std::optional<std::string>>("out")) {}
  std::size_t subscriptions() {
    return driver.key_value_store<std::string, internal::Subscription>("enrich-subscription-store")
        .all()
        .size();
  }
  TopologyTestDriver driver;
  testing::TestInputTopic<std::string, std::optional<std::string>> orders;
  testing::TestInputTopic<std::string, std::optional<std::string>> customers;
  testing::TestOutputTopic<std::string, std::optional<std::string>> out;
};

TEST(ForeignKeyJoin, NamesItsInternalTopicsAndStoreAfterTableJoined) {
  const auto description = inner_join().describe();
  EXPECT_THAT(description, HasSubstr("enrich-subscription-registration-topic"));
  EXPECT_THAT(description, HasSubstr("enrich-subscription-response-topic"));
  EXPECT_THAT(description, HasSubstr("enrich-subscription-store"));
}

TEST(ForeignKeyJoin, InnerJoinBothSidesTriggerAndRightUpdatesFanOutToEverySubscriber) {
  App run(inner_join());
  run.orders.pipe_input("o1", "c1:10", Timestamp(1));  // no customer yet: nothing
  run.customers.pipe_input("c1", "ann", Timestamp(2));
  run.orders.pipe_input("o2", "c1:20", Timestamp(3));
  run.customers.pipe_input("c2", "bob", Timestamp(4));  // nobody refers to c2: nothing
  run.customers.pipe_input("c1", "ann smith", Timestamp(5));
  run.customers.pipe_input("c1", std::nullopt, Timestamp(6));
  const auto results = run.out.read_records_to_list();
  ASSERT_EQ(results.size(), 6u);
  EXPECT_EQ(results[0].key, "o1");
  EXPECT_EQ(results[0].value, "c1:10 by ann");
  EXPECT_EQ(results[0].timestamp, Timestamp(2));
  EXPECT_EQ(results[1].key, "o2");
  EXPECT_EQ(results[1].value, "c1:20 by ann");
  EXPECT_EQ(results[1].timestamp, Timestamp(3)) << "max of the order's 3 and the customer's 2";
  EXPECT_EQ(results[2].value, "c1:10 by ann smith");
  EXPECT_EQ(results[3].value, "c1:20 by ann smith");
  EXPECT_EQ(results[3].timestamp, Timestamp(5));
  EXPECT_EQ(results[4].key, "o1");
  EXPECT_EQ(results[4].value, std::nullopt) << "the customer was deleted";
  EXPECT_EQ(results[5].key, "o2");
  EXPECT_EQ(results[5].value, std::nullopt);
  EXPECT_EQ(run.subscriptions(), 2u) << "deleting the customer keeps its subscribers";
}

// As Kafka Streams: a result triggered by a change of the right row carries that row's
// timestamp, one answering a left row's subscription the larger of the two.
TEST(ForeignKeyJoin, AResultOfARightChangeCarriesTheRightRowsTimestamp) {
  App run(inner_join());
  run.customers.pipe_input("c1", "ann", Timestamp(1));
  run.orders.pipe_input("o1", "c1:10", Timestamp(10));
  run.customers.pipe_input("c1", "ann smith", Timestamp(5));
  const auto results = run.out.read_records_to_list();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].timestamp, Timestamp(10));
  EXPECT_EQ(results[1].value, "c1:10 by ann smith");
  EXPECT_EQ(results[1].timestamp, Timestamp(5)) << "not the order's newer 10";
}

// An inner join drops a row that has no foreign key and had none, counting it, as Kafka
// Streams does; one that loses its foreign key retracts its result (below).
TEST(ForeignKeyJoin, InnerJoinDropsAndCountsARowWithoutAForeignKey) {
  App run(inner_join());
  run.customers.pipe_input("c1", "ann", Timestamp(1));
  run.orders.pipe_input("o1", "walk-in", Timestamp(2));
  run.orders.pipe_input("o1", "still walk-in", Timestamp(3));
  run.orders.pipe_input("o1", "c1:10", Timestamp(4));
  EXPECT_THAT(run.out.read_key_values_to_list(), ElementsAre(Out{"o1", "c1:10 by ann"}));
  EXPECT_EQ(run.driver.metrics().total("dropped-records-total"), 2);
}

TEST(ForeignKeyJoin, AChangedForeignKeyReplacesTheResultAndUnsubscribesFromTheOldKey) {
  App run(inner_join());
  run.customers.pipe_input("c1", "ann", Timestamp(1));
  run.customers.pipe_input("c2", "bob", Timestamp(2));
  run.orders.pipe_input("o1", "c1:10", Timestamp(3));
  EXPECT_EQ(run.subscriptions(), 1u);
  run.orders.pipe_input("o1", "c2:10", Timestamp(4));
  EXPECT_EQ(run.subscriptions(), 1u) << "(c1, o1) removed, (c2, o1) added";
  run.customers.pipe_input("c1", "ann smith", Timestamp(5));  // o1 left c1: nothing
  run.orders.pipe_input("o1", "c3:10", Timestamp(6));         // no c3: the result retracts
  run.customers.pipe_input("c2", "bob jones", Timestamp(7));  // o1 left c2: nothing
  EXPECT_THAT(
      run.out.read_key_values_to_list(),
      ElementsAre(Out{"o1", "c1:10 by ann"}, Out{"o1", "c2:10 by bob"}, Out{"o1", std::nullopt}));
}

TEST(ForeignKeyJoin, DeletingALeftRowRetractsItsResultAndUnsubscribes) {
  App run(inner_join());
  run.customers.pipe_input("c1", "ann", Timestamp(1));
  run.orders.pipe_input("o1", "c1:10", Timestamp(2));
  run.orders.pipe_input("o1", std::nullopt, Timestamp(3));
  EXPECT_EQ(run.subscriptions(), 0u);
  run.customers.pipe_input("c1", "ann smith", Timestamp(4));  // no subscriber left: nothing
  const auto results = run.out.read_records_to_list();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].value, "c1:10 by ann");
  EXPECT_EQ(results[1].value, std::nullopt);
  EXPECT_EQ(results[1].timestamp, Timestamp(3));
}

TEST(ForeignKeyJoin, LeftJoinEmitsRowsWithoutMatchOrForeignKey) {
  App run(left_join());
  run.orders.pipe_input("o1", "c1:10", Timestamp(1));
  run.orders.pipe_input("o2", "no customer", Timestamp(2));  // a null foreign key
  run.customers.pipe_input("c1", "ann", Timestamp(3));
  run.customers.pipe_input("c1", std::nullopt, Timestamp(4));
  run.orders.pipe_input("o1", "walk-in", Timestamp(5));  // loses its foreign key
  EXPECT_EQ(run.subscriptions(), 0u);
  run.customers.pipe_input("c1", "ann", Timestamp(6));  // no subscriber: nothing
  run.orders.pipe_input("o2", std::nullopt, Timestamp(7));
  EXPECT_THAT(
      run.out.read_key_values_to_list(),
      ElementsAre(Out{"o1", "c1:10 by ?"}, Out{"o2", "no customer by ?"}, Out{"o1", "c1:10 by ann"},
                  Out{"o1", "c1:10 by ?"}, Out{"o1", "walk-in by ?"}, Out{"o2", std::nullopt}));
}

TEST(ForeignKeyJoin, InnerJoinRetractsARowThatLosesItsForeignKey) {
  App run(inner_join());
  run.customers.pipe_input("c1", "ann", Timestamp(1));
  run.orders.pipe_input("o1", "c1:10", Timestamp(2));
  run.orders.pipe_input("o1", "walk-in", Timestamp(3));
  EXPECT_THAT(run.out.read_key_values_to_list(),
              ElementsAre(Out{"o1", "c1:10 by ann"}, Out{"o1", std::nullopt}));
}

// A response answering a value the row no longer has (it changed while the response was on
// its way) is dropped: written here straight into the response topic.
TEST(ForeignKeyJoin, AResponseForAnOlderValueOfTheRowIsDropped) {
  App run(inner_join());
  run.customers.pipe_input("c1", "ann", Timestamp(1));
  run.orders.pipe_input("o1", "c1:10", Timestamp(2));
  run.orders.pipe_input("o1", "c1:11", Timestamp(3));
  ASSERT_EQ(run.out.read_values_to_list().size(), 2u);
  const auto responses = internal::subscription_response_serde();
  auto respond = [&](const std::string& row) {
    run.driver.pipe_raw_input(
        "brook-test-enrich-subscription-response-topic", "o1",
        *responses->serialize({.hash = internal::row_hash(row), .value = "stale ann"}),
        Timestamp(4));
  };
  respond("c1:10");  // the old value: dropped
  EXPECT_TRUE(run.out.read_values_to_list().empty());
  respond("c1:11");  // the current value: joined
  EXPECT_THAT(run.out.read_values_to_list(), ElementsAre("c1:11 by stale ann"));
}

TEST(ForeignKeyJoin, AMaterializedResultKeepsEveryRowsLatestResult) {
  App run(left_join({.name = "enriched"}));
  run.customers.pipe_input("c1", "ann", Timestamp(1));
  run.orders.pipe_input("o1", "c1:10", Timestamp(2));
  run.orders.pipe_input("o2", "c2:20", Timestamp(3));
  run.orders.pipe_input("o1", std::nullopt, Timestamp(4));
  auto results = run.driver.timestamped_key_value_store<std::string, std::string>("enriched").all();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].key, "o2");
  EXPECT_EQ(results[0].value.value, "c2:20 by ?");
}

// Kafka Streams 3.9.1's Topology.describe() of the same DSL, verbatim.
TEST(ForeignKeyJoin, DescribesAnUnnamedJoinAsKafkaStreams) {
  StreamsBuilder builder;
  builder.table<std::string, std::string>("left")
      .join(
          builder.table<std::string, std::string>("right"), [](const std::string& v) { return v; },
          [](const std::string& x, const std::string& y) { return x + y; })
      .to_stream()
      .to("out");
  EXPECT_EQ(build(builder).describe(), R"(Topologies:
   Sub-topology: 0
    Source: KTABLE-SOURCE-0000000016 (topics: [KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic])
      --> KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-0000000017
    Source: KSTREAM-SOURCE-0000000001 (topics: [left])
      --> KTABLE-SOURCE-0000000002
    Processor: KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-0000000017 (stores: [left-STATE-STORE-0000000000])
      --> KTABLE-FK-JOIN-OUTPUT-0000000018
      <-- KTABLE-SOURCE-0000000016
    Processor: KTABLE-FK-JOIN-OUTPUT-0000000018 (stores: [])
      --> KTABLE-TOSTREAM-0000000020
      <-- KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-0000000017
    Processor: KTABLE-SOURCE-0000000002 (stores: [left-STATE-STORE-0000000000])
      --> KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000007
      <-- KSTREAM-SOURCE-0000000001
    Processor: KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000007 (stores: [])
      --> KTABLE-SINK-0000000008
      <-- KTABLE-SOURCE-0000000002
    Processor: KTABLE-TOSTREAM-0000000020 (stores: [])
      --> KSTREAM-SINK-0000000021
      <-- KTABLE-FK-JOIN-OUTPUT-0000000018
    Sink: KSTREAM-SINK-0000000021 (topic: out)
      <-- KTABLE-TOSTREAM-0000000020
    Sink: KTABLE-SINK-0000000008 (topic: KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic)
      <-- KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000007

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000004 (topics: [right])
      --> KTABLE-SOURCE-0000000005
    Source: KTABLE-SOURCE-0000000009 (topics: [KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic])
      --> KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000011
    Processor: KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000011 (stores: [KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000010])
      --> KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000012
      <-- KTABLE-SOURCE-0000000009
    Processor: KTABLE-SOURCE-0000000005 (stores: [right-STATE-STORE-0000000003])
      --> KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000013
      <-- KSTREAM-SOURCE-0000000004
    Processor: KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000012 (stores: [right-STATE-STORE-0000000003])
      --> KTABLE-SINK-0000000015
      <-- KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000011
    Processor: KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000013 (stores: [KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000010])
      --> KTABLE-SINK-0000000015
      <-- KTABLE-SOURCE-0000000005
    Sink: KTABLE-SINK-0000000015 (topic: KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic)
      <-- KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000012, KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000013

)");
}

TEST(ForeignKeyJoin, DescribesANamedMaterializedLeftJoinAsKafkaStreams) {
  StreamsBuilder builder;
  builder.table<std::string, std::string>("left")
      .left_join(
          builder.table<std::string, std::string>("right"), [](const std::string& v) { return v; },
          [](const std::string& x, const std::optional<std::string>& y) {
            return x + y.value_or("");
          },
          {.name = "fk"}, {.name = "result-store"})
      .to_stream()
      .to("out");
  EXPECT_EQ(build(builder).describe(), R"(Topologies:
   Sub-topology: 0
    Source: fk-subscription-response-source (topics: [fk-subscription-response-topic])
      --> fk-subscription-response-resolver
    Source: KSTREAM-SOURCE-0000000001 (topics: [left])
      --> KTABLE-SOURCE-0000000002
    Processor: fk-subscription-response-resolver (stores: [left-STATE-STORE-0000000000])
      --> fk-result
      <-- fk-subscription-response-source
    Processor: KTABLE-SOURCE-0000000002 (stores: [left-STATE-STORE-0000000000])
      --> fk-subscription-registration-processor
      <-- KSTREAM-SOURCE-0000000001
    Processor: fk-result (stores: [result-store])
      --> KTABLE-TOSTREAM-0000000019
      <-- fk-subscription-response-resolver
    Processor: KTABLE-TOSTREAM-0000000019 (stores: [])
      --> KSTREAM-SINK-0000000020
      <-- fk-result
    Processor: fk-subscription-registration-processor (stores: [])
      --> fk-subscription-registration-sink
      <-- KTABLE-SOURCE-0000000002
    Sink: KSTREAM-SINK-0000000020 (topic: out)
      <-- KTABLE-TOSTREAM-0000000019
    Sink: fk-subscription-registration-sink (topic: fk-subscription-registration-topic)
      <-- fk-subscription-registration-processor

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000004 (topics: [right])
      --> KTABLE-SOURCE-0000000005
    Source: fk-subscription-registration-source (topics: [fk-subscription-registration-topic])
      --> fk-subscription-receive
    Processor: KTABLE-SOURCE-0000000005 (stores: [right-STATE-STORE-0000000003])
      --> fk-foreign-join-subscription
      <-- KSTREAM-SOURCE-0000000004
    Processor: fk-subscription-receive (stores: [fk-subscription-store])
      --> fk-subscription-join-foreign
      <-- fk-subscription-registration-source
    Processor: fk-foreign-join-subscription (stores: [fk-subscription-store])
      --> fk-subscription-response-sink
      <-- KTABLE-SOURCE-0000000005
    Processor: fk-subscription-join-foreign (stores: [right-STATE-STORE-0000000003])
      --> fk-subscription-response-sink
      <-- fk-subscription-receive
    Sink: fk-subscription-response-sink (topic: fk-subscription-response-topic)
      <-- fk-subscription-join-foreign, fk-foreign-join-subscription

)");
}

TEST(ForeignKeyJoin, SubscriptionsAndResponsesReadBackAsWritten) {
  using enum internal::SubscriptionInstruction;
  const auto subscriptions = internal::subscription_serde();
  for (const std::optional<std::uint64_t> hash :
       {std::optional<std::uint64_t>(0x0102030405060708), std::optional<std::uint64_t>()}) {
    const auto back =
        subscriptions->deserialize(*subscriptions->serialize({.instruction = kDeleteKeyAndPropagate,
                                                              .hash = hash,
                                                              .primary_key = "o1",
                                                              .primary_partition = Partition(7)}));
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(back->instruction, kDeleteKeyAndPropagate);
    EXPECT_EQ(back->hash, hash);
    EXPECT_EQ(back->primary_key, "o1");
    EXPECT_EQ(back->primary_partition, Partition(7));
  }
  const auto responses = internal::subscription_response_serde();
  for (const std::optional<std::string>& value :
       {std::optional<std::string>("ann"), std::optional<std::string>()}) {
    const auto back = responses->deserialize(*responses->serialize({.hash = 42, .value = value}));
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(back->hash, 42u);
    EXPECT_EQ(back->value, value);
  }
}

TEST(ForeignKeyJoin, AnotherFormatVersionIsACorruptionThatAsksForAReset) {
  auto bytes = *internal::subscription_serde()->serialize({});
  bytes[0] = 0;  // the format before version 1
  const auto read = internal::subscription_serde()->deserialize(bytes);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code(), StatusCode::kCorruption);
  EXPECT_THAT(read.error().message(), HasSubstr("needs a reset"));
  EXPECT_FALSE(internal::subscription_response_serde()->deserialize(std::string(1, '\2')));
}

TEST(ForeignKeyJoin, CombinedKeysOfOneForeignKeyShareAPrefix) {
  const auto prefix = internal::combined_key_prefix("c1");
  EXPECT_TRUE(internal::combined_key("c1", "o9").starts_with(prefix));
  EXPECT_FALSE(internal::combined_key("c10", "o9").starts_with(prefix)) << "the length comes first";
}

}  // namespace
}  // namespace brook
