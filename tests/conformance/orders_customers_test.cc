// orders_customers against its Kafka Streams twin (OrdersCustomers.java): describe(),
// orders-enriched as a table (the last record per order: partition, value, timestamp, headers;
// JSON values compared as JSON), and the changelogs of the tables' stores orders and customers.
//
// A foreign-key join's updates depend on the order in which its two sub-topologies (the orders'
// and the customers') run, which neither application fixes: which intermediate results reach
// orders-enriched differs from run to run, the final one per order does not, nor its timestamp
// (both stamp a result answering an order's subscription with the larger of the order's and
// the customer's timestamps, and one triggered by a customer update with the customer's).
// Both run without record caches (statestore.cache.max.bytes=0): with Kafka Streams' cache on
// the customers store, a customer's change reaches the join when the cache flushes, at the
// commit, after subscriptions that already read the change from the cache, and the last result
// of an order then carries the customer's older timestamp or the order's newer one depending
// on when the commit came (Brook's join keeps no cache on that store:
// docs/compatibility.md#the-right-table-of-a-foreign-key-join-has-no-record-cache).
// The subscription store is not compared: what it holds is each implementation's own (Kafka
// Streams: a versioned wrapper with a 128-bit Murmur3 hash of the order; Brook: a 64-bit FNV-1a
// hash).
//
// The input (over 10 000 records, each with a timestamp of its own, in timestamp order, all
// with the same header, which the join carries through its internal topics): the demo's orders
// and customers (tools/demo), then 10 000 events on 3 000 orders and 300 customers: orders
// created and updated (each with an amount of its own, so no order's value ever repeats),
// changing customer, deleted (also orders that do not exist); customers created, renamed and
// deleted (also customers that do not exist), customers 280 to 299 never existing but referred
// to by orders; records without a key (which the tables' sources drop).
#include "orders_customers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "brook/internal/partitioner.h"
#include "conformance.h"
#include "demo_joins.h"

namespace brook::testing {
namespace {

// The partition counts of kafka_examples_test: the two tables need not be co-partitioned.
constexpr std::int32_t kOrderPartitions = 4;
constexpr std::int32_t kCustomerPartitions = 3;
constexpr std::int64_t kStart = 1'767'225'600'000;  // 2026-01-01T00:00Z

const ExampleTopics kOrdersCustomers{
    .name = "orders_customers",
    .inputs = {{.name = orders_customers::kOrdersTopic, .partitions = kOrderPartitions},
               {.name = orders_customers::kCustomersTopic, .partitions = kCustomerPartitions}},
    .outputs = {{.name = orders_customers::kOutputTopic, .partitions = kOrderPartitions}},
    .stores = {"orders", "customers"},
};

// The records described at the top of this file, each on its key's partition.
std::vector<ProducerRecord> orders_and_customers() {
  std::vector<ProducerRecord> records = demo::orders_and_customers(kStart);
  constexpr int kOrders = 3'000;
  constexpr int kCustomers = 300;
  constexpr int kExistingCustomers = 280;  // customers 280 to 299 never exist
  const char* countries[] = {"NZ", "FR", "BR", "JP", "KE", "CA", "IN"};
  std::mt19937 random(31);
  auto order_id = [&] { return fmt::format("order-{:04}", random() % kOrders); };
  auto customer_id = [&](int of) { return fmt::format("cust-{:03}", random() % of); };
  for (int i = 0; i < 10'000; ++i) {
    ProducerRecord r{.timestamp = Timestamp(kStart + 10'000 + i)};
    const auto roll = random() % 100;
    if (roll < 45) {  // an order, new or updated, maybe of another customer
      r.topic = orders_customers::kOrdersTopic;
      r.key = order_id();
      r.value =
          nlohmann::json(orders_customers::Order{customer_id(kCustomers), 1 + i * 0.25}).dump();
    } else if (roll < 50) {  // an order deleted, or one that does not exist
      r.topic = orders_customers::kOrdersTopic;
      r.key = order_id();
    } else if (roll < 58 && i < 1'000) {  // early: many customers created
      r.topic = orders_customers::kCustomersTopic;
      r.key = customer_id(kExistingCustomers);
      r.value = nlohmann::json(orders_customers::Customer{fmt::format("customer {}", *r.key),
                                                          countries[random() % 7]})
                    .dump();
    } else if (roll < 66) {  // a customer created or renamed (perhaps after its deletion)
      r.topic = orders_customers::kCustomersTopic;
      r.key = customer_id(kExistingCustomers);
      r.value = nlohmann::json(orders_customers::Customer{fmt::format("customer {} v{}", *r.key, i),
                                                          countries[random() % 7]})
                    .dump();
    } else if (roll < 68) {  // a customer deleted, or one that never exists
      r.topic = orders_customers::kCustomersTopic;
      r.key = customer_id(kCustomers);
    } else if (roll < 69) {  // no key: dropped by the table's source
      const bool order = random() % 2 == 0;
      r.topic = order ? orders_customers::kOrdersTopic : orders_customers::kCustomersTopic;
      r.partition = Partition(static_cast<std::int32_t>(random() % 3));
      r.value = order ? nlohmann::json(orders_customers::Order{"cust-001", 0.5}).dump()
                      : nlohmann::json(orders_customers::Customer{"nobody", "NZ"}).dump();
    } else {  // most events: an order update of a customer that exists
      r.topic = orders_customers::kOrdersTopic;
      r.key = order_id();
      r.value =
          nlohmann::json(orders_customers::Order{customer_id(kExistingCustomers), 1 + i * 0.25})
              .dump();
    }
    records.push_back(std::move(r));
  }
  for (auto& r : records) {
    if (r.key) {
      r.partition = internal::partition_for_key(*r.key, r.topic == orders_customers::kOrdersTopic
                                                            ? kOrderPartitions
                                                            : kCustomerPartitions);
    }
    r.headers.add("batch", "conformance");
  }
  return records;
}

TEST_F(ConformanceTest, OrdersCustomersEndsWithKafkaStreamsTable) {
  create_topics(kOrdersCustomers);
  const auto input = orders_and_customers();
  const auto without_key =
      std::count_if(input.begin(), input.end(), [](const ProducerRecord& r) { return !r.key; });
  produce(input);
  const auto [brook, twin] =
      run_both(kOrdersCustomers, {"--config", "statestore.cache.max.bytes=0"});
  // docs/compatibility.md#dropped-record-counts: both drop the records without a key, and the
  // stale responses, whose number depends on timing.
  EXPECT_GT(brook.dropped_records.value_or(0), without_key);
  EXPECT_GT(twin.dropped_records.value_or(0), without_key);
  report_documented(kOrdersCustomers.name, "dropped records", "dropped-record-counts");
  expect_same_description(kOrdersCustomers, brook, twin);
  expect_same_table(kOrdersCustomers, orders_customers::kOutputTopic, brook, twin,
                    ValueFormat::kJson);
  expect_same_changelog(kOrdersCustomers, "orders", brook, twin, ValueFormat::kJson);
  expect_same_changelog(kOrdersCustomers, "customers", brook, twin, ValueFormat::kJson);
}

}  // namespace
}  // namespace brook::testing
