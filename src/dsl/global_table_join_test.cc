// Stream-global table joins through the test driver: inner and left, the key mapper, table
// updates and deletes, re-keyed streams (never repartitioned), the topology description, null
// lookup keys and null-keyed table records.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/global_ktable.h"
#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"
#include "built_topology.h"

namespace brook {
namespace {

using testing::build;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TopologyTestDriver;
using GlobalJoinOut = KeyValue<std::string, std::string>;

// Orders "<product>:<what>" keyed by order id; products keyed by product id.
std::string product_of(const std::string&, const std::string& order) {
  return order.substr(0, order.find(':'));
}

// Orders "<product>:<text>" left-joined with the global table "products" (store "products")
// on their product, into "out" as "<order> = <product name, or ?>".
Topology orders_with_products() {
  StreamsBuilder builder;
  auto products =
      builder.global_table<std::string, std::string>("products", {}, {.name = "products"});
  builder.stream<std::string, std::string>("orders")
      .left_join(products, product_of,
                 [](const std::string& order, const std::optional<std::string>& product) {
                   return order + " = " + product.value_or("?");
                 })
      .to("out");
  return build(builder);
}

TEST(GlobalTableJoin, InnerJoinLooksUpTheMappedKeyAndKeepsTheStreamRecord) {
  StreamsBuilder builder;
  auto products =
      builder.global_table<std::string, std::string>("products", {}, {.name = "products"});
  builder.stream<std::string, std::string>("orders")
      .join(products, product_of,
            [](const std::string& order, const std::string& product) {
              return order + " = " + product;
            })
      .to("out");
  TopologyTestDriver driver(build(builder));
  auto table = driver.create_input_topic<std::string, std::optional<std::string>>("products");
  auto orders = driver.create_input_topic<std::string, std::string>("orders");
  auto out = driver.create_output_topic<std::string, std::string>("out");

  orders.pipe_input("o1", "p1:2 apples", Timestamp(1));  // no product yet: nothing
  table.pipe_input("p1", "apple", Timestamp(2));
  Headers headers;
  headers.add("trace", "t7");
  orders.pipe_input("o2", "p1:3 apples", Timestamp(3), headers);
  orders.pipe_input("o3", "p2:1 pear", Timestamp(4));
  const auto results = out.read_records_to_list();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].key, "o2") << "the stream record's key";
  EXPECT_EQ(results[0].value, "p1:3 apples = apple");
  EXPECT_EQ(results[0].timestamp, Timestamp(3));
  ASSERT_NE(results[0].headers.last("trace"), nullptr);
  EXPECT_EQ(results[0].headers.last("trace")->value, std::optional<std::string>("t7"));
}

TEST(GlobalTableJoin, LeftJoinSeesUpdatesAndDeletesAtOnce) {
  TopologyTestDriver driver(orders_with_products());
  auto table = driver.create_input_topic<std::string, std::optional<std::string>>("products");
  auto orders = driver.create_input_topic<std::string, std::string>("orders");
  auto out = driver.create_output_topic<std::string, std::string>("out");

  orders.pipe_input("o1", "p1:a", Timestamp(1));
  table.pipe_input("p1", "apple", Timestamp(2));
  auto stored = driver.timestamped_key_value_store<std::string, std::string>("products");
  ASSERT_TRUE(stored.get("p1").has_value()) << "the global store is updated at once";
  EXPECT_EQ(stored.get("p1")->value, "apple");
  EXPECT_EQ(stored.get("p1")->timestamp, Timestamp(2));
  orders.pipe_input("o2", "p1:b", Timestamp(3));
  table.pipe_input("p1", "green apple", Timestamp(4));
  orders.pipe_input("o3", "p1:c", Timestamp(5));
  table.pipe_input("p1", std::nullopt, Timestamp(6));  // deleted
  auto plain = driver.key_value_store<std::string, ValueAndTimestamp<std::string>>("products");
  EXPECT_FALSE(plain.get("p1").has_value());
  orders.pipe_input("o4", "p1:d", Timestamp(7));
  EXPECT_THAT(
      out.read_key_values_to_list(),
      ElementsAre(GlobalJoinOut{"o1", "p1:a = ?"}, GlobalJoinOut{"o2", "p1:b = apple"},
                  GlobalJoinOut{"o3", "p1:c = green apple"}, GlobalJoinOut{"o4", "p1:d = ?"}));
}

TEST(GlobalTableJoin, AReKeyedStreamIsNotRepartitioned) {
  StreamsBuilder builder;
  auto products = builder.global_table<std::string, std::string>("products");
  builder.stream<std::string, std::string>("orders")
      .select_key([](const std::string&, const std::string& v) { return "by-" + v.substr(0, 2); })
      .join(products, product_of,
            [](const std::string& order, const std::string& product) {
              return order + " = " + product;
            },
            {.name = "price"})
      .to("out");
  auto topology = build(builder);
  EXPECT_THAT(topology.describe(), Not(HasSubstr("repartition")));
  EXPECT_TRUE(internal::topology_data(topology).copartition_groups.empty());
  EXPECT_EQ(internal::topology_data(topology).subtopologies.size(), 1u)
      << "the global nodes make no task";

  TopologyTestDriver driver(topology);
  auto table = driver.create_input_topic<std::string, std::optional<std::string>>("products");
  auto orders = driver.create_input_topic<std::string, std::string>("orders");
  table.pipe_input("p1", "apple", Timestamp(1));
  orders.pipe_input("o1", "p1:x", Timestamp(2));
  auto out = driver.create_output_topic<std::string, std::string>("out");
  EXPECT_THAT(out.read_key_values_to_list(), ElementsAre(GlobalJoinOut{"by-p1", "p1:x = apple"}));
}

TEST(GlobalTableJoin, DescribeShowsTheGlobalStoreAsKafkaStreamsDoes) {
  StreamsBuilder builder;
  auto products =
      builder.global_table<std::string, std::string>("products", {}, {.name = "products"});
  builder.stream<std::string, std::string>("orders")
      .join(products, product_of,
            [](const std::string& order, const std::string& product) { return order + product; })
      .to("out");
  EXPECT_EQ(build(builder).describe(),
            "Topologies:\n"
            "   Sub-topology: 0\n"
            "    Source: KSTREAM-SOURCE-0000000002 (topics: [orders])\n"
            "      --> KSTREAM-JOIN-0000000003\n"
            "    Processor: KSTREAM-JOIN-0000000003 (stores: [products])\n"
            "      --> KSTREAM-SINK-0000000004\n"
            "      <-- KSTREAM-SOURCE-0000000002\n"
            "    Sink: KSTREAM-SINK-0000000004 (topic: out)\n"
            "      <-- KSTREAM-JOIN-0000000003\n"
            "\n"
            "  Sub-topology: 1 for global store (will not generate tasks)\n"
            "    Source: KSTREAM-SOURCE-0000000000 (topics: [products])\n"
            "      --> KTABLE-SOURCE-0000000001\n"
            "    Processor: KTABLE-SOURCE-0000000001 (stores: [products])\n"
            "      --> none\n"
            "      <-- KSTREAM-SOURCE-0000000000\n"
            "\n");
}

TEST(GlobalTableJoin, AMalformedTableRecordFollowsTheDeserializationHandler) {
  auto topology = [] {
    StreamsBuilder builder;
    auto products = builder.global_table<std::string, std::int64_t>("products", {}, {.name = "p"});
    builder.stream<std::string, std::string>("orders")
        .join(products, product_of,
              [](const std::string& order, std::int64_t price) {
                return order + " @ " + std::to_string(price);
              })
        .to("out");
    return std::move(*builder.build());
  };
  {
    TopologyTestDriver driver(
        topology(), {.errors = {.on_deserialization_error = ErrorAction::kLogAndContinue}});
    driver.pipe_raw_input("products", "p1", "bad", Timestamp(1));  // not 8 bytes
    driver.create_input_topic<std::string, std::optional<std::int64_t>>("products")
        .pipe_input("p1", 7, Timestamp(2));
    auto orders = driver.create_input_topic<std::string, std::string>("orders");
    orders.pipe_input("o1", "p1:x", Timestamp(3));
    auto out = driver.create_output_topic<std::string, std::string>("out");
    EXPECT_THAT(out.read_values_to_list(), ElementsAre("p1:x @ 7"));
  }
  TopologyTestDriver failing(topology());
  EXPECT_THROW(failing.pipe_raw_input("products", "p1", "bad", Timestamp(1)), testing::TaskFailed);
}

// The product of "<product>:<what>", none for an order without one.
std::optional<std::string> product_if_any(const std::string&, const std::string& order) {
  const auto colon = order.find(':');
  if (colon == std::string::npos) return std::nullopt;
  return order.substr(0, colon);
}

TEST(GlobalTableJoin, AMapperReturningNulloptLooksNothingUpInnerDropsAndLeftEmits) {
  StreamsBuilder builder;
  auto products = builder.global_table<std::string, std::string>("products");
  auto orders = builder.stream<std::string, std::string>("orders");
  const auto priced = [](const std::string& order, const std::string& product) {
    return order + " = " + product;
  };
  orders.join(products, product_if_any, priced).to("inner");
  orders
      .left_join(products, product_if_any,
                 [](const std::string& order, const std::optional<std::string>& product) {
                   return order + " = " + product.value_or("?");
                 })
      .to("left");
  TopologyTestDriver driver(build(builder));
  auto table = driver.create_input_topic<std::string, std::optional<std::string>>("products");
  auto in = driver.create_input_topic<std::string, std::string>("orders");
  table.pipe_input("p1", "apple", Timestamp(1));
  table.pipe_input("", "nameless", Timestamp(2));  // nullopt must not look up the empty key
  in.pipe_input("o1", "gift", Timestamp(3));       // no product: no lookup key
  in.pipe_input("o2", "p1:x", Timestamp(4));
  auto inner = driver.create_output_topic<std::string, std::string>("inner");
  auto left = driver.create_output_topic<std::string, std::string>("left");
  EXPECT_THAT(inner.read_key_values_to_list(), ElementsAre(GlobalJoinOut{"o2", "p1:x = apple"}));
  EXPECT_THAT(left.read_key_values_to_list(),
              ElementsAre(GlobalJoinOut{"o1", "gift = ?"}, GlobalJoinOut{"o2", "p1:x = apple"}));
  EXPECT_EQ(driver.metrics().total("dropped-records-total"), 1) << "the inner join's drop";
}

TEST(GlobalTableJoin, ANullKeyedTableRecordIsDroppedAndCounted) {
  TopologyTestDriver driver(orders_with_products());
  auto table = driver.create_input_topic<std::string, std::optional<std::string>>("products");
  table.pipe_input("p1", "apple", Timestamp(1));
  table.pipe_value("ghost", Timestamp(2));  // a null key: not the row of the empty key
  EXPECT_EQ(driver.metrics().total("dropped-records-total"), 1);
  auto stored = driver.timestamped_key_value_store<std::string, std::string>("products");
  EXPECT_FALSE(stored.get("").has_value());
  ASSERT_TRUE(stored.get("p1").has_value());
  EXPECT_EQ(stored.get("p1")->value, "apple");
  auto orders = driver.create_input_topic<std::string, std::string>("orders");
  orders.pipe_input("o1", ":x", Timestamp(3));  // looks up the empty key
  orders.pipe_input("o2", "p1:y", Timestamp(4));
  auto out = driver.create_output_topic<std::string, std::string>("out");
  EXPECT_THAT(out.read_key_values_to_list(),
              ElementsAre(GlobalJoinOut{"o1", ":x = ?"}, GlobalJoinOut{"o2", "p1:y = apple"}));
}

}  // namespace
}  // namespace brook
