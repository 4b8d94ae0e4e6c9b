// Instance metadata on the embedded log: one instance (the data dir is one process's), which
// knows itself with and without an application.server, and the lags of its stores.
#include <gmock/gmock.h>

#include "http_support.h"
#include "integration/embedded_fixture.h"

namespace brook::testing {
namespace {

using ::testing::ElementsAre;

class InstanceMetadataTest : public EmbeddedFixture {
 protected:
  void SetUp() override {
    create_topics({{"words", 4}, {"counts-out", 4}});
    std::vector<std::pair<std::string, std::string>> records;
    for (int i = 0; i < 40; ++i) records.emplace_back("key-" + std::to_string(i % 10), "v");
    produce("words", records);
  }
};

TEST_F(InstanceMetadataTest, ARunningInstanceHostsEveryPartitionAndEveryKeyIsLocal) {
  Streams app(counting_topology(), config({{"application.id", "meta"},
                                           {"num.stream.threads", "2"},
                                           {"application.server", "127.0.0.1:38001"}}));
  EXPECT_TRUE(app.metadata_for_all_clients().empty());  // not started
  ASSERT_TRUE(app.start().ok());
  wait_until_idle(app);
  ASSERT_TRUE(app.wait_for_state(Streams::State::kRunning, std::chrono::seconds(30)).ok());

  const auto all = app.metadata_for_all_clients();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].server, "127.0.0.1:38001");
  EXPECT_EQ(all[0].state, "RUNNING");
  EXPECT_TRUE(all[0].local);
  EXPECT_THAT(all[0].store_partitions.at("counts"), ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(all[0].tasks.size(), 4u);
  auto for_store = app.metadata_for_store("counts");
  ASSERT_TRUE(for_store);
  EXPECT_EQ(*for_store, all);
  EXPECT_EQ(app.metadata_for_store("nope").error().code(), StatusCode::kNotFound);

  auto view = app.store<std::string, std::int64_t>("counts");
  ASSERT_TRUE(view);
  for (int i = 0; i < 10; ++i) {
    const std::string key = "key-" + std::to_string(i);
    auto where = app.query_metadata_for_key("counts", key);
    ASSERT_TRUE(where) << where.error().to_string();
    EXPECT_TRUE(where->local);
    EXPECT_EQ(where->active_server, "127.0.0.1:38001");
    EXPECT_EQ(where->partition, internal::partition_for_key(key, 4));
    EXPECT_EQ(*view->get(key), 4);
  }
  EXPECT_EQ(app.query_metadata_for_key("counts", std::int64_t{1}).error().code(),
            StatusCode::kInvalidArgument);

  auto lags = app.local_store_lags();
  ASSERT_TRUE(lags) << lags.error().to_string();
  ASSERT_EQ(lags->at("counts").size(), 4u);
  std::int64_t changelog_records = 0;
  for (const auto& [partition, lag] : lags->at("counts")) {
    EXPECT_EQ(lag.lag, 0) << partition;
    EXPECT_FALSE(lag.restoring);
    EXPECT_EQ(lag.current_offset, lag.end_offset);
    changelog_records += lag.end_offset;
  }
  EXPECT_GE(changelog_records, 10);  // at least the latest count of every key
  ASSERT_TRUE(app.close().ok());
}

TEST_F(InstanceMetadataTest, WithoutAnApplicationServerAnInstanceKnowsOnlyItself) {
  Streams app(counting_topology(), config({{"application.id", "meta-alone"}}));
  ASSERT_TRUE(app.start().ok());
  wait_until_idle(app);
  const auto all = app.metadata_for_all_clients();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].server, "");
  auto where = app.query_metadata_for_key("counts", std::string("key-1"));
  ASSERT_TRUE(where) << where.error().to_string();
  EXPECT_TRUE(where->local);
  ASSERT_TRUE(app.close().ok());
}

TEST_F(InstanceMetadataTest, ABadApplicationServerIsAConfigurationErrorNamingIt) {
  for (const char* bad : {"localhost", "host:0", "host:http", ":80", "host:70000"}) {
    Streams app(counting_topology(),
                config({{"application.id", "meta-bad"}, {"application.server", bad}}));
    auto started = app.start();
    ASSERT_FALSE(started.ok()) << bad;
    EXPECT_THAT(started.message(), ::testing::HasSubstr(std::string("application.server: '") + bad +
                                                        "' is not host:port"));
  }
}

}  // namespace
}  // namespace brook::testing
