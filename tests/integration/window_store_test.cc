// Window and session stores on the real runtime over the embedded log, below the DSL: their
// changelog topics, restoration through the segmented store, and interactive queries routed by
// the plain key.
#include <gmock/gmock.h>

#include "brook/internal/dsl_support.h"
#include "brook/internal/graph_builder.h"
#include "brook/processor.h"
#include "brook/streams.h"
#include "brook/topology.h"
#include "embedded_fixture.h"

namespace brook::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

constexpr std::int64_t kRetentionMs = 3'600'000;

// Counts records per key in 10 ms windows, and keeps a one-instant session per record.
class Recorder final : public Processor<std::string, std::string, std::string, std::string> {
 public:
  void init(ProcessorContext<std::string, std::string>& context) override {
    Processor::init(context);
    windows_.emplace(context.window_store<std::string, std::int64_t>("clicks"));
    sessions_.emplace(context.session_store<std::string, std::int64_t>("visits"));
  }
  void process(Record<std::string, std::string> r) override {
    const Timestamp start(r.timestamp.value() / 10 * 10);
    windows_->put(r.key, windows_->fetch(r.key, start).value_or(0) + 1, start);
    sessions_->put({r.key, {r.timestamp, r.timestamp}}, r.timestamp.value());
  }

 private:
  std::optional<WindowStore<std::string, std::int64_t>> windows_;
  std::optional<SessionStore<std::string, std::int64_t>> sessions_;
};

Topology window_topology(StoreType type) {
  internal::GraphBuilder graph;
  auto strings = std::make_shared<const StringSerde>();
  auto longs = std::make_shared<const Int64Serde>();
  auto source = internal::add_source<std::string, std::string>(graph, "source", {"in"}, false,
                                                               strings, strings);
  internal::add_processor<std::string, std::string, std::string, std::string>(
      graph, "PROCESSOR", "recorder", {source}, [] { return std::make_unique<Recorder>(); },
      {"clicks", "visits"});
  auto windows = internal::StoreSpec::make<std::string, std::int64_t>("clicks", type, true, true,
                                                                      strings, longs);
  windows.kind = internal::StoreKind::kWindow;
  windows.retention = std::chrono::milliseconds(kRetentionMs);
  windows.window_size = 10ms;
  graph.add_store(windows);
  auto sessions = internal::StoreSpec::make<std::string, std::int64_t>("visits", type, true, false,
                                                                       strings, longs);
  sessions.kind = internal::StoreKind::kSession;
  sessions.retention = std::chrono::milliseconds(kRetentionMs);
  graph.add_store(sessions);
  auto topology = graph.build({});
  EXPECT_TRUE(topology) << topology.error().to_string();
  return std::move(*topology);
}

// Keys k0..k9, record i at timestamp i + 1 (produce()).
std::vector<std::pair<std::string, std::string>> clicks(int n) {
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < n; ++i) out.emplace_back("k" + std::to_string(i % 10), "x");
  return out;
}

class WindowStoreAppTest : public EmbeddedFixture {
 protected:
  void SetUp() override { create_topics({{"in", 4}}); }
};

TEST_F(WindowStoreAppTest, ChangelogsAreCompactedAndDeletedAfterRetentionPlusADay) {
  produce("in", clicks(20));
  {
    Streams app(window_topology(StoreType::kRocksDb), config({{"application.id", "wapp"}}));
    ASSERT_TRUE(app.start().ok());
    wait_until_idle(app);
    ASSERT_TRUE(app.close().ok());
  }
  with_log([](internal::EmbeddedLog& log) {
    for (const auto* topic : {"wapp-clicks-changelog", "wapp-visits-changelog"}) {
      auto changelog = log.admin().describe_topic(topic);
      ASSERT_TRUE(changelog) << changelog.error().to_string();
      EXPECT_EQ(changelog->partitions, 4);
      EXPECT_EQ(changelog->configs.at("cleanup.policy"), "compact,delete") << topic;
      EXPECT_EQ(changelog->configs.at("retention.ms"), std::to_string(kRetentionMs + 86'400'000))
          << topic;
    }
  });
  // A restart accepts the topics it created.
  Streams again(window_topology(StoreType::kRocksDb), config({{"application.id", "wapp"}}));
  EXPECT_TRUE(again.start().ok());
  EXPECT_TRUE(again.close().ok());
}

TEST_F(WindowStoreAppTest, ChangelogsKeepRecordsTheAdditionalRetentionLongerThanTheStore) {
  Streams app(window_topology(StoreType::kInMemory),
              config({{"application.id", "wapp-extra"},
                      {"windowstore.changelog.additional.retention.ms", "5000"}}));
  ASSERT_TRUE(app.start().ok());
  ASSERT_TRUE(app.close().ok());
  with_log([](internal::EmbeddedLog& log) {
    auto changelog = log.admin().describe_topic("wapp-extra-clicks-changelog");
    ASSERT_TRUE(changelog) << changelog.error().to_string();
    EXPECT_EQ(changelog->configs.at("retention.ms"), std::to_string(kRetentionMs + 5000));
  });
}

TEST_F(WindowStoreAppTest, QueriesGoToTheKeysTaskAndSurviveRestoration) {
  produce("in", clicks(40));  // k<i> at i+1, i+11, i+21, i+31: one click in each of 4 windows
  auto check = [](Streams& app) {
    auto windows = app.window_store<std::string, std::int64_t>("clicks");
    ASSERT_TRUE(windows) << windows.error().to_string();
    for (int k = 0; k < 10; ++k) {
      const std::string key = "k" + std::to_string(k);
      auto fetched = windows->fetch(key, Timestamp(0), Timestamp(25));
      ASSERT_TRUE(fetched) << fetched.error().to_string();
      // k9's clicks at 10, 20, 30, 40 land in windows 10, 20, 30, 40; others' in 0, 10, 20, 30.
      const std::int64_t first = k == 9 ? 10 : 0;
      std::vector<std::pair<Timestamp, std::int64_t>> expected;
      for (std::int64_t s = first; s <= 20; s += 10) expected.emplace_back(Timestamp(s), 1);
      EXPECT_EQ(*fetched, expected) << key;
      EXPECT_EQ(windows->fetch(key, Timestamp(first + 10)).value(), 1) << key;
    }
    auto all = windows->all();
    ASSERT_TRUE(all);
    EXPECT_EQ(all->size(), 40u);
    EXPECT_EQ(windows->fetch_all(Timestamp(40), Timestamp(40)).value().size(), 1u);

    auto visits = app.session_store<std::string, std::int64_t>("visits");
    ASSERT_TRUE(visits) << visits.error().to_string();
    auto sessions = visits->fetch("k3");
    ASSERT_TRUE(sessions) << sessions.error().to_string();
    ASSERT_EQ(sessions->size(), 4u);
    EXPECT_EQ((*sessions)[1].key, (Windowed<std::string>{"k3", {Timestamp(14), Timestamp(14)}}));
    EXPECT_EQ(visits->find_sessions("k3", Timestamp(10), Timestamp(30)).value().size(), 2u);

    auto wrong = app.store<std::string, std::int64_t>("clicks");
    ASSERT_FALSE(wrong);
    EXPECT_EQ(wrong.error().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(wrong.error().message(), HasSubstr("store clicks is a window store"));
    EXPECT_FALSE((app.session_store<std::string, std::int64_t>("clicks")));
  };
  {
    Streams app(window_topology(StoreType::kInMemory), config({{"application.id", "wq"}}));
    ASSERT_TRUE(app.start().ok());
    ASSERT_EQ(app.wait_for_state(Streams::State::kRunning, 60s).to_string(), "OK");
    wait_until_idle(app);
    check(app);
    ASSERT_TRUE(app.close().ok());
  }
  // In memory: everything comes back from the changelogs, through the segmented stores.
  Streams app(window_topology(StoreType::kInMemory), config({{"application.id", "wq"}}));
  auto listener = std::make_shared<CountingRestoreListener>();
  app.set_restore_listener(listener);
  ASSERT_TRUE(app.start().ok());
  ASSERT_EQ(app.wait_for_state(Streams::State::kRunning, 60s).to_string(), "OK");  // restored
  wait_until_idle(app);
  EXPECT_GE(listener->total, 80);  // 40 windows + 40 sessions
  check(app);
  EXPECT_TRUE(app.close().ok());
}

}  // namespace
}  // namespace brook::testing
