// Global tables on both logs: restored from every partition of their topic before any stream
// record is processed, no co-partitioning with the stream, one store shared by every stream
// thread, queries, an in-memory store read whole on every start, a RocksDB store that reads
// only the tail after a restart, and a global thread failure that brings the application to
// ERROR. (What only Kafka shows is in tests/integration/kafka_global_table_test.cc.)
#include <gmock/gmock.h>

#include <map>
#include <mutex>

#include "app_waits.h"
#include "backend_under_test.h"
#include "brook/global_ktable.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"

namespace brook::testing {
namespace {

using ::testing::HasSubstr;

// Orders ("<product>:<n>") priced from the global table of products.
Topology pricing_topology(const std::string& products_topic, const std::string& orders_topic,
                          const std::string& out_topic, StoreType type = StoreType::kRocksDb) {
  StreamsBuilder builder;
  auto products = builder.global_table<std::string, std::string>(
      products_topic, {}, {.name = "products", .type = type});
  builder.stream<std::string, std::string>(orders_topic)
      .join(
          products,
          [](const std::string&, const std::string& order) {
            return order.substr(0, order.find(':'));
          },
          [](const std::string& order, const std::string& product) {
            return order + " = " + product;
          },
          {.name = "price"})
      .to(out_topic);
  return std::move(*builder.build());
}

KeyValues products(int from, int to) {
  KeyValues out;
  for (int p = from; p < to; ++p)
    out.emplace_back("p" + std::to_string(p), "product " + std::to_string(p));
  return out;
}

// Each test has its own topics and application id.
class GlobalTableContractTest : public BackendTest {
 protected:
  Topology pricing(StoreType type = StoreType::kRocksDb) const {
    return pricing_topology(products_, orders_, out_, type);
  }
  std::map<std::string, std::string> priced() {
    std::map<std::string, std::string> results;  // order id -> priced order
    for (const auto& r : read_all(out_)) results[*r.key] = *r.value;
    return results;
  }

  const std::string products_ = name("products");
  const std::string orders_ = name("orders");
  const std::string out_ = name("out");
  const std::string app_ = name("pricing");
};

TEST_P(GlobalTableContractTest, IsRestoredBeforeProcessingAndNeedsNoCoPartitioning) {
  // Three table partitions, four stream partitions: a stream-table join would refuse this.
  create_topic(products_, 3);
  create_topic(orders_, 4);
  create_topic(out_, 4);
  produce(products_, products(0, 30));
  KeyValues orders;
  for (int i = 0; i < 200; ++i) {
    orders.emplace_back("o" + std::to_string(i),
                        "p" + std::to_string(i % 30) + ":" + std::to_string(i));
  }
  produce(orders_, orders);  // all there before the start: the first records see the table

  Streams app(pricing(), streams_config(app_, {{"num.stream.threads", "2"}}));
  std::vector<Streams::State> states;
  std::mutex states_mutex;
  app.set_state_listener([&](Streams::State to, Streams::State) {
    std::lock_guard lock(states_mutex);
    states.push_back(to);
  });
  ASSERT_TRUE(app.start().ok());
  wait_until_idle(app);

  // Queries: every key is local, whichever partition it came from.
  auto store = app.store<std::string, std::string>("products");
  ASSERT_TRUE(store) << store.error().to_string();
  for (int p = 0; p < 30; ++p) {
    auto value = store->get("p" + std::to_string(p));
    ASSERT_TRUE(value) << value.error().to_string();
    EXPECT_EQ(*value, std::optional<std::string>("product " + std::to_string(p)));
  }
  auto all = store->all();
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), 30u);
  ASSERT_TRUE(app.close().ok());
  {
    std::lock_guard lock(states_mutex);
    EXPECT_EQ(states.front(), Streams::State::kRebalancing);
  }

  const auto results = priced();
  ASSERT_EQ(results.size(), 200u) << "every order found its product: the table was restored first";
  EXPECT_EQ(results.at("o7"), "p7:7 = product 7");
  EXPECT_EQ(results.at("o199"), "p19:199 = product 19");
}

TEST_P(GlobalTableContractTest, AnInMemoryGlobalStoreReadsItsWholeTopicOnEveryStart) {
  create_topic(products_, 2);
  create_topic(orders_, 3);
  create_topic(out_, 3);
  produce(products_, products(0, 5));
  for (int run = 0; run < 2; ++run) {
    Streams app(pricing(StoreType::kInMemory), streams_config(app_));
    auto listener = std::make_shared<CountingRestoreListener>();
    app.set_restore_listener(listener);
    ASSERT_TRUE(app.start().ok());
    ASSERT_EQ(app.wait_for_state(Streams::State::kRunning, std::chrono::seconds(60)).to_string(),
              "OK");
    ASSERT_TRUE(app.close().ok());
    EXPECT_EQ(listener->total.load(), 5);
  }
  produce(orders_, {{"o1", "p1:x"}, {"o2", "p4:y"}, {"o3", "p9:z"}});
  Streams app(pricing(StoreType::kInMemory), streams_config(app_));
  ASSERT_TRUE(app.start().ok());
  wait_until_idle(app);
  ASSERT_TRUE(app.close().ok());
  EXPECT_EQ(priced(), (std::map<std::string, std::string>{{"o1", "p1:x = product 1"},
                                                          {"o2", "p4:y = product 4"}}));
}

TEST_P(GlobalTableContractTest, ARocksDbGlobalStoreRestartedReadsOnlyTheTail) {
  create_topic(products_, 3);
  create_topic(orders_, 2);
  create_topic(out_, 2);
  produce(products_, products(0, 20));
  auto run = [&] {
    Streams app(pricing(), streams_config(app_));
    auto listener = std::make_shared<CountingRestoreListener>();
    app.set_restore_listener(listener);
    EXPECT_TRUE(app.start().ok());
    EXPECT_EQ(app.wait_for_state(Streams::State::kRunning, std::chrono::seconds(60)).to_string(),
              "OK");
    auto store = app.store<std::string, std::string>("products");
    EXPECT_TRUE(store);
    auto all = store->all();
    EXPECT_TRUE(all);
    const auto size = all ? all->size() : 0;
    EXPECT_TRUE(app.close().ok());
    return std::pair{listener->total.load(), size};
  };
  EXPECT_EQ(run(), (std::pair<std::int64_t, std::size_t>{20, 20}));
  produce(products_, products(20, 25));
  EXPECT_EQ(run(), (std::pair<std::int64_t, std::size_t>{5, 25}))
      << "the store kept the offset it reached on each partition";
  EXPECT_EQ(run(), (std::pair<std::int64_t, std::size_t>{0, 25}));
}

TEST_P(GlobalTableContractTest, AMalformedTableRecordBringsTheApplicationToError) {
  create_topic(products_, 2);
  create_topic(orders_, 2);
  create_topic(out_, 2);
  produce(products_, {{"p1", "bad"}});  // not an 8-byte int64
  StreamsBuilder builder;
  auto prices = builder.global_table<std::string, std::int64_t>(products_);
  builder.stream<std::string, std::string>(orders_)
      .left_join(
          prices, [](const std::string& k, const std::string&) { return k; },
          [](const std::string& o, const std::optional<std::int64_t>&) { return o; })
      .to(out_);
  Streams app(std::move(*builder.build()), streams_config(app_));
  ASSERT_TRUE(app.start().ok());
  ASSERT_EQ(app.wait_for_state(Streams::State::kError, std::chrono::seconds(60)).to_string(), "OK");
  const auto status = app.close();
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("global thread: deserialization error"));
}

INSTANTIATE_TEST_SUITE_P(BothBackends, GlobalTableContractTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kKafka), backend_name);

}  // namespace
}  // namespace brook::testing
