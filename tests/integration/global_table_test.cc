// Global tables on the real runtime over the embedded log: restored from every partition of
// their topic before any stream record is processed, no co-partitioning with the stream, one
// store shared by every stream thread, queries, a RocksDB store that reads only the tail after
// a restart, and a global thread failure that brings the application to ERROR.
#include <gmock/gmock.h>

#include <map>

#include "brook/global_ktable.h"
#include "brook/streams_builder.h"
#include "embedded_fixture.h"

namespace brook::testing {
namespace {

using ::testing::HasSubstr;

// Orders ("<product>:<n>") priced from the global table of products.
Topology pricing(StoreType type = StoreType::kRocksDb) {
  StreamsBuilder builder;
  auto products = builder.global_table<std::string, std::string>(
      "products", {}, {.name = "products", .type = type});
  builder.stream<std::string, std::string>("orders")
      .join(
          products,
          [](const std::string&, const std::string& order) {
            return order.substr(0, order.find(':'));
          },
          [](const std::string& order, const std::string& product) {
            return order + " = " + product;
          },
          {.name = "price"})
      .to("out");
  return std::move(*builder.build());
}

std::vector<std::pair<std::string, std::string>> products(int from, int to) {
  std::vector<std::pair<std::string, std::string>> out;
  for (int p = from; p < to; ++p)
    out.emplace_back("p" + std::to_string(p), "product " + std::to_string(p));
  return out;
}

class GlobalTableTest : public EmbeddedFixture {};

TEST_F(GlobalTableTest, IsRestoredBeforeProcessingAndNeedsNoCoPartitioning) {
  // Three table partitions, four stream partitions: a stream-table join would refuse this.
  create_topics({{"products", 3}, {"orders", 4}, {"out", 4}});
  produce("products", products(0, 30));
  std::vector<std::pair<std::string, std::string>> orders;
  for (int i = 0; i < 200; ++i) {
    orders.emplace_back("o" + std::to_string(i),
                        "p" + std::to_string(i % 30) + ":" + std::to_string(i));
  }
  produce("orders", orders);  // all there before the start: the first records see the table

  Streams app(pricing(), config({{"application.id", "pricing"}, {"num.stream.threads", "2"}}));
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

  std::map<std::string, std::string> results;  // order id -> priced order
  for (const auto& r : read_all("out")) results[*r.key] = *r.value;
  ASSERT_EQ(results.size(), 200u) << "every order found its product: the table was restored first";
  EXPECT_EQ(results.at("o7"), "p7:7 = product 7");
  EXPECT_EQ(results.at("o199"), "p19:199 = product 19");
}

TEST_F(GlobalTableTest, AnInMemoryGlobalStoreReadsItsWholeTopicOnEveryStart) {
  create_topics({{"products", 2}, {"orders", 3}, {"out", 3}});
  produce("products", products(0, 5));
  for (int run = 0; run < 2; ++run) {
    Streams app(pricing(StoreType::kInMemory), config({{"application.id", "pricing"}}));
    auto listener = std::make_shared<CountingRestoreListener>();
    app.set_restore_listener(listener);
    ASSERT_TRUE(app.start().ok());
    ASSERT_EQ(app.wait_for_state(Streams::State::kRunning, std::chrono::seconds(30)).to_string(),
              "OK");
    ASSERT_TRUE(app.close().ok());
    EXPECT_EQ(listener->total.load(), 5);
  }
  produce("orders", {{"o1", "p1:x"}, {"o2", "p4:y"}, {"o3", "p9:z"}});
  Streams app(pricing(StoreType::kInMemory), config({{"application.id", "pricing"}}));
  ASSERT_TRUE(app.start().ok());
  wait_until_idle(app);
  ASSERT_TRUE(app.close().ok());
  std::map<std::string, std::string> results;
  for (const auto& r : read_all("out")) results[*r.key] = *r.value;
  EXPECT_EQ(results, (std::map<std::string, std::string>{{"o1", "p1:x = product 1"},
                                                         {"o2", "p4:y = product 4"}}));
}

TEST_F(GlobalTableTest, ARocksDbGlobalStoreRestartedReadsOnlyTheTail) {
  create_topics({{"products", 3}, {"orders", 2}, {"out", 2}});
  produce("products", products(0, 20));
  auto run = [&] {
    Streams app(pricing(), config({{"application.id", "pricing"}}));
    auto listener = std::make_shared<CountingRestoreListener>();
    app.set_restore_listener(listener);
    EXPECT_TRUE(app.start().ok());
    EXPECT_EQ(app.wait_for_state(Streams::State::kRunning, std::chrono::seconds(30)).to_string(),
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
  produce("products", products(20, 25));
  EXPECT_EQ(run(), (std::pair<std::int64_t, std::size_t>{5, 25}))
      << "the store kept the offset it reached on each partition";
  EXPECT_EQ(run(), (std::pair<std::int64_t, std::size_t>{0, 25}));
}

TEST_F(GlobalTableTest, AMalformedTableRecordBringsTheApplicationToError) {
  create_topics({{"prices", 2}, {"orders", 2}, {"out", 2}});
  produce("prices", {{"p1", "bad"}});  // not an 8-byte int64
  StreamsBuilder builder;
  auto prices = builder.global_table<std::string, std::int64_t>("prices");
  builder.stream<std::string, std::string>("orders")
      .left_join(
          prices, [](const std::string& k, const std::string&) { return k; },
          [](const std::string& o, const std::optional<std::int64_t>&) { return o; })
      .to("out");
  Streams app(std::move(*builder.build()), config({{"application.id", "pricing"}}));
  ASSERT_TRUE(app.start().ok());
  ASSERT_EQ(app.wait_for_state(Streams::State::kError, std::chrono::seconds(30)).to_string(), "OK");
  const auto status = app.close();
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("global thread: deserialization error"));
}

}  // namespace
}  // namespace brook::testing
