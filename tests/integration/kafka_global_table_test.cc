// Global tables on a real Kafka broker: orders on a 2-partition topic priced from a global table
// of products on a 3-partition topic (no co-partitioning). The table is restored from every
// partition before the first order is processed; updates, inserts and tombstones written while
// the application runs reach the store and the orders read after them; a table written in
// transactions is restored without its aborted records; two instances of one application each
// hold the whole table. Exactly-once, so that the outputs are exact also when tasks move
// between the two instances.
#include <gmock/gmock.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "app_waits.h"
#include "brook/global_ktable.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "kafka_cluster.h"
#include "topic_reader.h"

namespace brook::testing {
namespace {

constexpr auto kGlobalTableDeadline = std::chrono::seconds(60);
constexpr const char* kStore = "products";

// Orders "<product>:<n>" priced as "<order> = <product value>", or "<order> = none" for a
// product the table does not hold (a left join).
Topology pricing(const std::string& products, const std::string& orders, const std::string& out) {
  StreamsBuilder builder;
  auto table = builder.global_table<std::string, std::string>(products, {}, {.name = kStore});
  builder.stream<std::string, std::string>(orders)
      .left_join(
          table,
          [](const std::string&, const std::string& order) {
            return order.substr(0, order.find(':'));
          },
          [](const std::string& order, const std::optional<std::string>& product) {
            return order + " = " + product.value_or("none");
          })
      .to(out);
  return std::move(*builder.build());
}

std::string product(int p) { return "p" + std::to_string(p); }

class KafkaGlobalTableTest : public KafkaFixture {
 protected:
  void SetUp() override {
    KafkaFixture::SetUp();
    if (HasFatalFailure()) return;
    create_topic(products_, 3, {{"cleanup.policy", "compact"}});
    create_topic(orders_, 2);
    create_topic(out_, 2);
  }

  // An instance of the application, its stores in a directory of its own.
  std::unique_ptr<Streams> instance(const std::string& name) {
    auto settings = config(app_, name);
    settings["processing.guarantee"] = "exactly_once_v2";
    return std::make_unique<Streams>(pricing(products_, orders_, out_), settings);
  }

  // Writes "product <p>" for p0 .. p<count - 1>, after `drafts` earlier versions of each.
  void produce_products(int count, int drafts = 0) {
    KeyValues records;
    for (int version = 0; version <= drafts; ++version) {
      for (int p = 0; p < count; ++p) {
        const std::string value = "product " + std::to_string(p);
        records.emplace_back(product(p), version < drafts
                                             ? value + " (draft " + std::to_string(version) + ")"
                                             : value);
      }
    }
    produce(products_, records);
  }

  // Order id -> priced order, from every record written to the output; fails the test if an
  // order was priced twice.
  std::map<std::string, std::string> priced() {
    std::map<std::string, std::string> out;
    for (const auto& [partition, records] : read_topic(*kafka_, out_)) {
      for (const auto& r : records) {
        const auto key = r.key.value_or("<null>");
        EXPECT_TRUE(out.emplace(key, r.value.value_or("<null>")).second) << key << " twice";
      }
    }
    return out;
  }

  // The products' keys, by the partition of the table's topic they are in.
  std::map<int, std::vector<std::string>> keys_by_partition() {
    std::map<int, std::vector<std::string>> out;
    for (const auto& [partition, records] : read_topic(*kafka_, products_)) {
      for (const auto& r : records) out[partition].push_back(r.key.value_or(""));
    }
    return out;
  }

  const std::string app_ = unique_name("global-app");
  const std::string products_ = unique_name("global-products");
  const std::string orders_ = unique_name("global-orders");
  const std::string out_ = unique_name("global-out");
};

TEST_F(KafkaGlobalTableTest, IsRestoredFromEveryPartitionBeforeTheFirstOrder) {
  // 30 products in 1000 versions each: an order processed before the restoration ended would
  // find a draft, or nothing.
  constexpr int kProducts = 30, kDrafts = 999;
  produce_products(kProducts, kDrafts);
  for (const auto& [partition, keys] : keys_by_partition()) {
    ASSERT_FALSE(keys.empty()) << "no product in partition " << partition;
  }
  KeyValues orders;
  std::map<std::string, std::string> expected;
  for (int i = 0; i < 220; ++i) {  // the last 20 of a product the table does not hold
    const std::string id = "o" + std::to_string(i);
    const int p = i < 200 ? i % kProducts : 99;
    orders.emplace_back(id, product(p) + ":" + std::to_string(i));
    expected[id] = product(p) + ":" + std::to_string(i) + " = " +
                   (i < 200 ? "product " + std::to_string(p) : "none");
  }
  produce(orders_, orders);  // all there before the start

  auto app = instance("a");
  auto restored = std::make_shared<CountingRestoreListener>();
  app->set_restore_listener(restored);
  ASSERT_TRUE(app->start().ok());
  wait_until_idle(*app);
  EXPECT_EQ(restored->total.load(), kProducts * (kDrafts + 1));
  EXPECT_EQ(priced(), expected);
  EXPECT_TRUE(app->close().ok());
}

// A table written in transactions, as an exactly-once application writes it: the restoration
// reads past the commit and abort markers to the end, without the aborted records.
TEST_F(KafkaGlobalTableTest, ATransactionalTopicIsRestoredWithoutItsAbortedRecords) {
  constexpr int kProducts = 10;
  auto producer =
      kafka_->make_producer({.client_id = "tx-test", .transactional_id = unique_name("tx")});
  ASSERT_TRUE(producer) << producer.error().to_string();
  for (const bool commit : {true, false}) {
    ASSERT_TRUE((*producer)->begin_transaction().ok());
    for (int p = 0; p < kProducts; ++p) {
      const std::string value = "product " + std::to_string(p) + (commit ? "" : " (aborted)");
      ASSERT_TRUE((*producer)->send({.topic = products_, .key = product(p), .value = value}).ok());
    }
    if (!commit) {  // the records to abort are in the log (and the transaction on the broker)
      ASSERT_TRUE((*producer)->flush().ok());
    }
    const Status end =
        commit ? (*producer)->commit_transaction() : (*producer)->abort_transaction();
    ASSERT_TRUE(end.ok()) << end.to_string();
  }
  KeyValues orders;
  std::map<std::string, std::string> expected;
  for (int i = 0; i < kProducts; ++i) {
    const std::string id = "o" + std::to_string(i), order = product(i) + ":" + std::to_string(i);
    orders.emplace_back(id, order);
    expected[id] = order + " = product " + std::to_string(i);
  }
  produce(orders_, orders);

  auto app = instance("a");
  auto restored = std::make_shared<CountingRestoreListener>();
  app->set_restore_listener(restored);
  ASSERT_TRUE(app->start().ok());
  wait_until_idle(*app);
  EXPECT_EQ(restored->total.load(), kProducts);
  EXPECT_EQ(priced(), expected);
  EXPECT_TRUE(app->close().ok());
}

TEST_F(KafkaGlobalTableTest, UpdatesWrittenWhileRunningReachTheOrdersReadAfterThem) {
  produce_products(10);
  auto app = instance("a");
  ASSERT_TRUE(app->start().ok());
  ASSERT_EQ(app->wait_for_state(Streams::State::kRunning, kGlobalTableDeadline).to_string(), "OK");
  produce(orders_, {{"o1", "p1:1"}, {"o2", "p2:2"}, {"o3", "p3:3"}, {"o4", "p10:4"}});
  wait_until_idle(*app);

  // An update, a delete and an insert, while the application runs.
  produce(products_,
          {{"p1", "product 1 (new price)"}, {"p2", std::nullopt}, {"p10", "product 10"}});
  using Value = std::optional<std::string>;
  wait_for_store_value<std::string, std::string>(*app, kStore, "p1",
                                                 Value("product 1 (new price)"));
  wait_for_store_value<std::string, std::string>(*app, kStore, "p2", std::nullopt);
  wait_for_store_value<std::string, std::string>(*app, kStore, "p10", Value("product 10"));
  produce(orders_, {{"o5", "p1:5"}, {"o6", "p2:6"}, {"o7", "p3:7"}, {"o8", "p10:8"}});
  wait_until_idle(*app);

  EXPECT_EQ(priced(), (std::map<std::string, std::string>{
                          {"o1", "p1:1 = product 1"},
                          {"o2", "p2:2 = product 2"},
                          {"o3", "p3:3 = product 3"},
                          {"o4", "p10:4 = none"},
                          {"o5", "p1:5 = product 1 (new price)"},
                          {"o6", "p2:6 = none"},
                          {"o7", "p3:7 = product 3"},
                          {"o8", "p10:8 = product 10"},
                      }));
  EXPECT_TRUE(app->close().ok());
}

TEST_F(KafkaGlobalTableTest, EveryInstanceHoldsTheWholeTable) {
  constexpr int kProducts = 30;
  produce_products(kProducts);
  const auto partitions = keys_by_partition();
  ASSERT_EQ(partitions.size(), 3u);
  auto first = instance("first");
  auto second = instance("second");
  ASSERT_TRUE(first->start().ok());
  ASSERT_TRUE(second->start().ok());
  for (auto* app : {first.get(), second.get()}) {
    ASSERT_EQ(app->wait_for_state(Streams::State::kRunning, kGlobalTableDeadline).to_string(),
              "OK");  // restored
  }

  // Each instance answers for the keys of every partition, not only of the tasks it runs.
  for (auto* app : {first.get(), second.get()}) {
    auto store = app->store<std::string, std::string>(kStore);
    ASSERT_TRUE(store) << store.error().to_string();
    for (const auto& [partition, keys] : partitions) {
      ASSERT_FALSE(keys.empty()) << "no product in partition " << partition;
      for (const auto& key : keys) {
        auto value = store->get(key);
        ASSERT_TRUE(value) << value.error().to_string();
        EXPECT_EQ(*value, "product " + key.substr(1)) << key << " of partition " << partition;
      }
    }
    auto all = store->all();
    ASSERT_TRUE(all) << all.error().to_string();
    EXPECT_EQ(all->size(), static_cast<std::size_t>(kProducts));
  }

  // An update of a key of each partition and a delete reach both instances.
  ASSERT_GE(partitions.at(0).size(), 2u);  // the deleted key is not an updated one
  KeyValues updates;
  for (const auto& [partition, keys] : partitions) {
    updates.emplace_back(keys.front(), "updated in partition " + std::to_string(partition));
  }
  updates.emplace_back(partitions.at(0).back(), std::nullopt);
  produce(products_, updates);
  for (auto* app : {first.get(), second.get()}) {
    for (const auto& [key, value] : updates) {
      wait_for_store_value<std::string, std::string>(*app, kStore, key, value);
    }
  }

  // Orders on both partitions of their topic, whichever instance runs them, see the updates.
  KeyValues orders;
  std::map<std::string, std::string> expected;
  for (int i = 0; i < 60; ++i) {
    const std::string id = "o" + std::to_string(i), key = product(i % kProducts);
    orders.emplace_back(id, key + ":" + std::to_string(i));
    std::string value = "product " + std::to_string(i % kProducts);
    for (const auto& [updated, now] : updates) {
      if (updated == key) value = now.value_or("none");
    }
    expected[id] = key + ":" + std::to_string(i) + " = " + value;
  }
  produce(orders_, orders);
  wait_until_idle(*first);  // the group's committed offsets: both instances' tasks
  EXPECT_EQ(priced(), expected);
  EXPECT_TRUE(first->close().ok());
  EXPECT_TRUE(second->close().ok());
}

}  // namespace
}  // namespace brook::testing
