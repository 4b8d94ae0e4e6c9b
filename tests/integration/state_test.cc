// Local state on the real runtime over the embedded log: compaction of changelogs, cleanup,
// queries while restoring (fresh and stale) or rebalancing, multi-phase topologies, purged
// repartition topics.
// What local state does on both logs is in tests/contract/state_contract_test.cc.
#include <gmock/gmock.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <set>

#include "brook/kstream.h"
#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"
#include "embedded_fixture.h"
#include "word_counts.h"

namespace brook::testing {
namespace {

using ::testing::HasSubstr;
using Counts = std::map<std::string, std::int64_t>;

std::int64_t decode_int64(const std::string& bytes) { return *Int64Serde().deserialize(bytes); }

Topology count_topology(StoreType type, bool caching = true) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .group_by_key()
      .count({.name = "counts", .type = type, .caching = caching})
      .to_stream()
      .to("out");
  return std::move(*builder.build());
}

class StateTest : public EmbeddedFixture {
 protected:
  void SetUp() override { create_topics({{"in", 4}, {"out", 4}}); }

  // The latest value per key in "out" (what a compacted topic would keep).
  Counts latest_out() {
    Counts out;
    for (const auto& r : read_all("out")) out[*r.key] = decode_int64(*r.value);
    return out;
  }

  // Runs `topology` until it has processed everything; the records its stores restored.
  std::int64_t run(const Topology& topology, std::map<std::string, std::string> extra = {}) {
    extra.emplace("application.id", "counter");
    Streams app(topology, config(extra));
    return run_to_idle(app);
  }
};

TEST_F(StateTest, AfterMaintenanceTheChangelogHoldsOneRecordPerKeyAndRestoresTheSameStore) {
  constexpr int kRecords = 20'000;  // 400 updates of each key
  produce("in", words(0, kRecords));
  run(count_topology(StoreType::kInMemory, /*caching=*/false));  // every update is logged
  EXPECT_GE(read_all("counter-counts-changelog").size(), static_cast<std::size_t>(kRecords));
  with_log([](internal::EmbeddedLog& log) {
    // Past the changelogs' segment.ms: maintenance rolls their active segments and compacts.
    const auto later = std::chrono::system_clock::now() + std::chrono::minutes(11);
    ASSERT_TRUE(log.run_maintenance(Timestamp(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                  later.time_since_epoch())
                                                  .count()))
                    .ok());
  });
  EXPECT_EQ(read_all("counter-counts-changelog").size(), static_cast<std::size_t>(kWordKeys));
  // A fresh in-memory store restores those records only, and counts on from the same counts.
  produce("in", words(kRecords, kRecords + 1000));
  EXPECT_EQ(run(count_topology(StoreType::kInMemory, false)), kWordKeys);
  EXPECT_EQ(latest_out(), expected_counts(kRecords + 1000));
}

TEST_F(StateTest, CleanupDeletesTheLocalStateSoTheNextStartRestoresEverything) {
  produce("in", words(0, 1000));
  EXPECT_EQ(run(count_topology(StoreType::kRocksDb)), 0);
  Streams app(count_topology(StoreType::kRocksDb), config({{"application.id", "counter"}}));
  const auto state_dir = dir_ / "state" / "counter";
  ASSERT_TRUE(std::filesystem::exists(state_dir / "0_0"));
  ASSERT_EQ(app.cleanup().to_string(), "OK");
  EXPECT_FALSE(std::filesystem::exists(state_dir / "0_0"));
  auto restored = std::make_shared<CountingRestoreListener>();
  app.set_restore_listener(restored);
  ASSERT_TRUE(app.start().ok());
  ASSERT_EQ(app.wait_for_state(Streams::State::kRunning, std::chrono::seconds(30)).to_string(),
            "OK");
  EXPECT_GE(restored->total, kWordKeys);  // every store from its changelog
  auto counts = app.store<std::string, std::int64_t>("counts");
  ASSERT_TRUE(counts) << counts.error().to_string();
  EXPECT_EQ(counts->get("k7").value(), expected_counts(1000).at("k7"));
  ASSERT_TRUE(app.close().ok());
}

TEST_F(StateTest, CleanupIsRefusedWhileTheApplicationRunsHereOrElsewhere) {
  produce("in", words(0, 100));
  Streams app(count_topology(StoreType::kRocksDb), config({{"application.id", "counter"}}));
  ASSERT_TRUE(app.start().ok());
  ASSERT_EQ(app.wait_for_state(Streams::State::kRunning, std::chrono::seconds(30)).to_string(),
            "OK");
  EXPECT_EQ(app.cleanup().code(), StatusCode::kFailedPrecondition);
  // Another instance on the same state dir (its own log): refused, naming the holder.
  ScratchDir other_log{"brook-other"};
  Streams other(count_topology(StoreType::kRocksDb), {{"application.id", "counter"},
                                                      {"data.dir", other_log.path().string()},
                                                      {"state.dir", (dir_ / "state").string()}});
  const Status refused = other.cleanup();
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("is locked by another process"));
  EXPECT_THAT(other.start().message(), HasSubstr("is locked by another process"));
  ASSERT_TRUE(app.close().ok());
  EXPECT_TRUE(std::filesystem::exists(dir_ / "state" / "counter" / "0_0"));
}

// Holds restoration after its first batch until the test has queried the store.
class BlockingRestoreListener : public StateRestoreListener {
 public:
  void on_batch_restored(const std::string&, TaskId task, Offset, std::int64_t) override {
    std::unique_lock lock(mutex);
    if (!restoring) held = task;
    restoring = true;
    changed.notify_all();
    changed.wait(lock, [&] { return released; });
  }
  void release() {
    std::lock_guard lock(mutex);
    released = true;
    changed.notify_all();
  }
  std::mutex mutex;
  std::condition_variable changed;
  bool restoring = false;
  bool released = false;
  TaskId held;  // the task whose first landed batch the listener holds
};

// Starts `app` with `listener` and waits until its restoration holds in it.
void start_held_in_restoration(Streams& app,
                               const std::shared_ptr<BlockingRestoreListener>& listener) {
  app.set_restore_listener(listener);
  ASSERT_TRUE(app.start().ok());
  std::unique_lock lock(listener->mutex);
  ASSERT_TRUE(listener->changed.wait_for(lock, std::chrono::seconds(30),
                                         [&] { return listener->restoring; }));
}

TEST_F(StateTest, AQueryDuringRestorationSaysTheStoreIsRestoring) {
  produce("in", words(0, 500));
  run(count_topology(StoreType::kInMemory));
  Streams app(count_topology(StoreType::kInMemory), config({{"application.id", "counter"}}));
  auto listener = std::make_shared<BlockingRestoreListener>();
  ASSERT_NO_FATAL_FAILURE(start_held_in_restoration(app, listener));
  auto counts = app.store<std::string, std::int64_t>("counts");
  ASSERT_TRUE(counts);
  auto all = counts->all();
  ASSERT_FALSE(all);
  EXPECT_EQ(all.error().code(), StatusCode::kUnavailable);
  EXPECT_EQ(app.state(), Streams::State::kRebalancing);
  auto one = counts->get("k7");
  ASSERT_FALSE(one);
  EXPECT_EQ(one.error().code(), StatusCode::kUnavailable);
  EXPECT_THAT(one.error().message(), HasSubstr("is restoring"));
  listener->release();
  ASSERT_EQ(app.wait_for_state(Streams::State::kRunning, std::chrono::seconds(30)).to_string(),
            "OK");
  EXPECT_EQ(counts->get("k7").value(), expected_counts(500).at("k7"));
  ASSERT_TRUE(app.close().ok());
}

TEST_F(StateTest, AStaleQueryDuringRestorationAnswersFromTheBatchesThatLanded) {
  produce("in", words(0, 500));
  run(count_topology(StoreType::kRocksDb));
  Streams app(count_topology(StoreType::kRocksDb), config({{"application.id", "counter"}}));
  ASSERT_TRUE(app.cleanup().ok());  // the stores restore from their changelogs
  auto listener = std::make_shared<BlockingRestoreListener>();
  ASSERT_NO_FATAL_FAILURE(start_held_in_restoration(app, listener));
  // The restoration holds in the listener, after the batch of task `held` landed.
  auto stale = app.store<std::string, std::int64_t>("counts", {.allow_stale = true});
  ASSERT_TRUE(stale);
  const auto expected = expected_counts(500);
  int read = 0;
  for (const auto& [key, count] : expected) {
    auto where = app.query_metadata_for_key("counts", key);
    ASSERT_TRUE(where) << where.error().to_string();
    if (where->partition.value() != listener->held.partition) continue;
    auto value = stale->get(key);
    ASSERT_TRUE(value) << key << ": " << value.error().to_string();
    ASSERT_TRUE(value->has_value()) << key;
    EXPECT_LE(**value, count) << key;
    ++read;
  }
  EXPECT_GT(read, 0);
  auto lag = app.local_store_lag("counts", listener->held.partition);
  ASSERT_TRUE(lag) << lag.error().to_string();
  EXPECT_TRUE(lag->restoring);
  EXPECT_FALSE(lag->standby);
  // Fresh reads still refuse.
  auto fresh = app.store<std::string, std::int64_t>("counts")->get(expected.begin()->first);
  ASSERT_FALSE(fresh);
  EXPECT_EQ(fresh.error().code(), StatusCode::kUnavailable);
  listener->release();
  ASSERT_EQ(app.wait_for_state(Streams::State::kRunning, std::chrono::seconds(30)).to_string(),
            "OK");
  for (const auto& [key, count] : expected) EXPECT_EQ(stale->get(key).value(), count) << key;
  ASSERT_TRUE(app.close().ok());
}

TEST_F(StateTest, AQueryBeforeTheTasksExistSaysTheApplicationIsRebalancing) {
  // The stream threads join the group (and create their tasks) only once the global table is
  // restored: the listener holds that restoration.
  create_topics({{"refs", 1}});
  produce("refs", words(0, 10));
  produce("in", words(0, 500));
  StreamsBuilder builder;
  builder.global_table<std::string, std::string>("refs", {}, {.name = "refs-store"});
  builder.stream<std::string, std::string>("in").group_by_key().count({.name = "counts"});
  Streams app(std::move(*builder.build()), config({{"application.id", "counter"}}));
  auto listener = std::make_shared<BlockingRestoreListener>();
  ASSERT_NO_FATAL_FAILURE(start_held_in_restoration(app, listener));
  auto counts = app.store<std::string, std::int64_t>("counts");
  ASSERT_TRUE(counts) << counts.error().to_string();
  // What each call answered: its error, or how many entries it found.
  auto refusal = [](const auto& answer) {
    if (answer) return Status::internal("answered");
    return answer.error();
  };
  for (const Status& refused :
       {refusal(counts->all()), refusal(counts->range("k1", "k3")),
        refusal(counts->approximate_num_entries()), refusal(counts->get("k7"))}) {
    EXPECT_EQ(refused.code(), StatusCode::kUnavailable) << refused.to_string();
    EXPECT_THAT(refused.message(), HasSubstr("REBALANCING"));
  }
  listener->release();
  ASSERT_EQ(app.wait_for_state(Streams::State::kRunning, std::chrono::seconds(30)).to_string(),
            "OK");
  wait_until_idle(app);
  auto all = counts->all();
  ASSERT_TRUE(all) << all.error().to_string();
  EXPECT_EQ(all->size(), static_cast<std::size_t>(kWordKeys));
  ASSERT_TRUE(app.close().ok());
}

// Re-keys, counts, then counts the counts (how many keys have each count) through a second
// repartition: three sub-topologies in one app. The runtime's result equals the driver's.
Topology multi_phase() {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .select_key([](const std::string&, const std::string& v) { return v.substr(0, 2); })
      .group_by_key({.name = "by-prefix"})
      .count({.name = "per-prefix"})
      .group_by([](const std::string& prefix, std::int64_t n) {
        return KeyValue{std::to_string(n), prefix};
      })
      .count({.name = "prefixes-per-count"})
      .to_stream()
      .to("out");
  return std::move(*builder.build());
}

TEST_F(StateTest, MultiPhaseTopologyGivesTheSameTableAsTheTestDriver) {
  const auto input = words(0, 1500);
  produce("in", input);
  run(multi_phase());
  TopologyTestDriver driver(multi_phase());
  auto in = driver.create_input_topic<std::string, std::string>("in");
  for (const auto& [k, v] : input) in.pipe_input(k, *v);
  Counts from_driver;
  for (auto& kv : driver.create_output_topic<std::string, std::optional<std::int64_t>>("out")
                      .read_key_values_to_list()) {
    from_driver[kv.key] = kv.value.value_or(0);
  }
  auto from_runtime = latest_out();
  std::erase_if(from_driver, [](const auto& e) { return e.second == 0; });
  std::erase_if(from_runtime, [](const auto& e) { return e.second == 0; });
  EXPECT_EQ(from_runtime, from_driver);
  EXPECT_FALSE(from_driver.empty());
}

TEST_F(StateTest, RepartitionTopicsArePurgedAfterCommit) {
  produce("in", words(0, 1000));
  run(multi_phase());
  with_log([](internal::EmbeddedLog& log) {
    auto topic = log.admin().describe_topic("counter-by-prefix-repartition");
    ASSERT_TRUE(topic) << topic.error().to_string();
    std::int64_t remaining = 0;
    for (int p = 0; p < topic->partitions; ++p) {
      const internal::TopicPartition tp{"counter-by-prefix-repartition", Partition(p)};
      auto first = log.admin().list_offset(tp, {.kind = internal::OffsetSpec::Kind::kEarliest});
      auto end = log.admin().list_offset(tp, {.kind = internal::OffsetSpec::Kind::kLatest});
      remaining += end->value() - first->value();
    }
    EXPECT_EQ(remaining, 0);
  });
}

}  // namespace
}  // namespace brook::testing
