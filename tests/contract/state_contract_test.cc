// Local state on both logs: counts in RocksDB and in-memory stores, what a restart restores
// from the changelog, the changelog topic itself, and queries.
#include <gmock/gmock.h>

#include <filesystem>

#include "app_waits.h"
#include "backend_under_test.h"
#include "brook/kstream.h"
#include "brook/serde.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "word_counts.h"

namespace brook::testing {
namespace {

using ::testing::HasSubstr;
using Counts = std::map<std::string, std::int64_t>;

// Each test has its own topics ("in" and "out", 4 partitions each) and application id.
class StateContractTest : public BackendTest {
 protected:
  void SetUp() override {
    create_topic(in_, 4);
    create_topic(out_, 4);
  }

  Topology count_topology(StoreType type, bool caching = true) const {
    StreamsBuilder builder;
    builder.stream<std::string, std::string>(in_)
        .group_by_key()
        .count({.name = "counts", .type = type, .caching = caching})
        .to_stream()
        .to(out_);
    return std::move(*builder.build());
  }

  // Runs `topology` as application `app` (configured with `extra` too) until it has processed
  // everything; the records its stores restored.
  std::int64_t run(const Topology& topology, const std::string& app,
                   std::map<std::string, std::string> extra = {}) {
    Streams streams(topology, streams_config(app, std::move(extra)));
    return run_to_idle(streams);
  }
  std::int64_t run(const Topology& topology) { return run(topology, app_); }

  std::string changelog() const { return app_ + "-counts-changelog"; }

  const std::string in_ = name("in");
  const std::string out_ = name("out");
  const std::string app_ = name("counter");
};

// reuse.ktable.source.topics: the clicks of `in_` enriched with the table of the users topic
// in a `type` store, which restores from that topic: no changelog topic exists.
Topology clicks_by_users(const std::string& clicks, const std::string& users,
                         const std::string& out, StoreType type) {
  StreamsBuilder builder;
  auto table = builder.table<std::string, std::string>(users, {}, {.name = "users", .type = type});
  builder.stream<std::string, std::string>(clicks)
      .join(table,
            [](const std::string& click, const std::string& user) { return click + " by " + user; })
      .to(out);
  return std::move(*builder.build({{"topology.optimization", "all"}}));
}

// An in-memory store restores on every start, up to what the application committed.
TEST_P(StateContractTest, ATableStoreRestoresFromItsSourceTopicWithoutAChangelog) {
  const std::string users = name("users");
  create_topic(users, 4);
  const std::map<std::string, std::string> optimized = {{"topology.optimization", "all"}};
  const auto topology = [&] { return clicks_by_users(in_, users, out_, StoreType::kInMemory); };
  produce(users, {{"u1", "Ann"}, {"u2", "Bob"}, {"u3", "Cy"}});
  EXPECT_EQ(run(topology(), app_, optimized), 0);
  produce(users, {{"u3", std::nullopt}});  // not processed yet when the next run starts
  produce(in_, {{"u1", "c1"}, {"u2", "c2"}, {"u3", "c3"}});
  EXPECT_EQ(run(topology(), app_, optimized), 3) << "the committed users, nothing more";
  EXPECT_THAT(values_of(read_all(out_)), ::testing::UnorderedElementsAre("c1 by Ann", "c2 by Bob"));
  with_log([&](internal::LogBackend& log) {
    auto topics = log.admin().list_topics();
    ASSERT_TRUE(topics) << topics.error().to_string();
    EXPECT_THAT(*topics, ::testing::Not(::testing::Contains(app_ + "-users-changelog")));
  });
}

// A RocksDB store keeps the offset of the source topic it holds: a clean restart restores
// nothing.
TEST_P(StateContractTest, ARocksDbTableStoreOnItsSourceTopicSurvivesACleanRestart) {
  const std::string users = name("users");
  create_topic(users, 4);
  const std::map<std::string, std::string> optimized = {{"topology.optimization", "all"}};
  produce(users, {{"u1", "Ann"}, {"u2", "Bob"}});
  EXPECT_EQ(run(clicks_by_users(in_, users, out_, StoreType::kRocksDb), app_, optimized), 0);
  produce(in_, {{"u1", "c1"}, {"u2", "c2"}});
  EXPECT_EQ(run(clicks_by_users(in_, users, out_, StoreType::kRocksDb), app_, optimized), 0);
  EXPECT_THAT(values_of(read_all(out_)), ::testing::UnorderedElementsAre("c1 by Ann", "c2 by Bob"));
}

TEST_P(StateContractTest, RocksDbCountsSurviveACleanRestartWithoutRestoringAnything) {
  produce(in_, words(0, 2000));
  EXPECT_EQ(run(count_topology(StoreType::kRocksDb)), 0);
  EXPECT_EQ(latest_counts(out_), expected_counts(2000));

  produce(in_, words(2000, 3000));
  EXPECT_EQ(run(count_topology(StoreType::kRocksDb)), 0) << "the checkpoint was not used";
  EXPECT_EQ(latest_counts(out_), expected_counts(3000));
}

TEST_P(StateContractTest, InMemoryStoreIsRebuiltFromItsChangelogOnEveryStart) {
  produce(in_, words(0, 2000));
  EXPECT_EQ(run(count_topology(StoreType::kInMemory)), 0);
  const auto logged = read_all(changelog()).size();
  EXPECT_GE(logged, static_cast<std::size_t>(kWordKeys));

  produce(in_, words(2000, 3000));
  EXPECT_EQ(run(count_topology(StoreType::kInMemory)), static_cast<std::int64_t>(logged));
  EXPECT_EQ(latest_counts(out_), expected_counts(3000));
}

// A RocksDB store whose directory is lost is loaded from its whole changelog (large enough here
// to become SST files ingested into the empty store) and counts on from there.
TEST_P(StateContractTest, ARocksDbStoreLostWithItsDirectoryIsBulkLoadedFromItsChangelog) {
  KeyValues once_each;
  for (int i = 0; i < 40'000; ++i) once_each.emplace_back("key" + std::to_string(i), "v");
  produce(in_, once_each);
  EXPECT_EQ(run(count_topology(StoreType::kRocksDb, false)), 0);
  const auto logged = static_cast<std::int64_t>(read_all(changelog()).size());
  ASSERT_EQ(logged, 40'000);

  std::filesystem::remove_all(streams_config(app_).at("state.dir"));
  produce(in_, once_each);
  EXPECT_EQ(run(count_topology(StoreType::kRocksDb, false)), logged);
  const Counts out = latest_counts(out_);
  ASSERT_EQ(out.size(), once_each.size());
  for (const auto& [key, count] : out) ASSERT_EQ(count, 2) << key;
}

TEST_P(StateContractTest, CacheOnAndOffGiveTheSameFinalTable) {
  produce(in_, words(0, 3000));
  run(count_topology(StoreType::kRocksDb, true), name("cached"));
  const auto cached = latest_counts(out_);
  run(count_topology(StoreType::kRocksDb, false), name("uncached"));
  EXPECT_EQ(latest_counts(out_), cached);
  EXPECT_EQ(cached, expected_counts(3000));
}

TEST_P(StateContractTest, ChangelogTopicIsCompactedWithOnePartitionPerTask) {
  produce(in_, words(0, 100));
  run(count_topology(StoreType::kRocksDb));
  with_log([&](internal::LogBackend& log) {
    auto description = log.admin().describe_topic(changelog());
    ASSERT_TRUE(description) << description.error().to_string();
    EXPECT_EQ(description->partitions, 4);
    EXPECT_EQ(description->configs.at("cleanup.policy"), "compact");
  });
}

TEST_P(StateContractTest, AChangelogWithAnotherPartitionCountStopsTheStartNamingIt) {
  create_topic(changelog(), 2, {{"cleanup.policy", "compact"}});  // the input has 4 partitions
  Streams app(count_topology(StoreType::kRocksDb), streams_config(app_));
  const Status status = app.start();
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("internal topic " + changelog() +
                                          " has 2 partitions, the topology needs 4"));
}

TEST_P(StateContractTest, QueriesAnswerFromEveryTaskAndNameAMissingStore) {
  produce(in_, words(0, 1000));
  Streams app(count_topology(StoreType::kRocksDb), streams_config(app_));
  ASSERT_TRUE(app.start().ok());
  wait_until_idle(app);
  auto counts = app.store<std::string, std::int64_t>("counts");
  ASSERT_TRUE(counts) << counts.error().to_string();
  const auto expected = expected_counts(1000);
  for (const auto& [key, n] : expected) {
    auto value = counts->get(key);
    ASSERT_TRUE(value) << value.error().to_string();
    EXPECT_EQ(*value, n) << key;
  }
  auto all = counts->all();
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), expected.size());
  EXPECT_EQ(counts->get("never-seen").value(), std::nullopt);
  auto missing = app.store<std::string, std::int64_t>("nope");
  EXPECT_FALSE(missing);
  auto wrong = app.store<std::int64_t, std::int64_t>("counts");
  ASSERT_FALSE(wrong);
  EXPECT_THAT(wrong.error().message(), HasSubstr("holds <"));
  ASSERT_TRUE(app.close().ok());
  EXPECT_THAT(counts->get("k1").error().message(), HasSubstr("not on this instance"));
}

INSTANTIATE_TEST_SUITE_P(BothBackends, StateContractTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kKafka), backend_name);

}  // namespace
}  // namespace brook::testing
