// What only Streams applications on a real Kafka broker do, in this process: a fenced producer
// is replaced and the application keeps running; changelogs compacted by the broker restore
// correctly; static members restart without a rebalance; a standby replica answers stale reads
// and takes its task over without restoring it; a joining instance warms up its tasks' stores
// before it joins. What applications do on both logs is in tests/contract/streams_contract_test.cc.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "app_waits.h"
#include "brook/serde.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "kafka_cluster.h"
#include "serve/prometheus.h"
#include "topic_reader.h"

namespace brook::testing {
namespace {

using ::testing::HasSubstr;

constexpr auto kDeadline = std::chrono::seconds(60);

class KafkaStreamsTest : public KafkaFixture {
 protected:
  std::vector<std::string> values(const std::string& topic) {
    std::vector<std::string> out;
    for (const auto& [p, records] : read_topic(*kafka_, topic)) {
      for (const auto& r : records) out.push_back(r.value.value_or("<null>"));
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

Topology copy_topology(const std::string& in, const std::string& out) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>(in)
      .map_values([](const std::string& v) { return v + "!"; })
      .to(out);
  return *builder.build();
}

// Counts per key of `in` in the store "counts" (without the record cache: one changelog
// record per input record), every new count to `out`.
Topology count_topology(const std::string& in, const std::string& out, bool caching = false) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>(in)
      .group_by_key()
      .count({.name = "counts", .caching = caching})
      .to_stream()
      .to(out);
  return *builder.build();
}

TEST_F(KafkaStreamsTest, AFencedProducerIsReplacedAndTheAppKeepsRunning) {
  const auto in = unique_name("fence-in");
  const auto out = unique_name("fence-out");
  create_topic(in, 2);
  create_topic(out, 2);
  const auto app_id = unique_name("fence-app");
  auto settings = config(app_id, "a");
  settings["processing.guarantee"] = "exactly_once_v2";
  settings["group.instance.id"] = "one";  // the thread's transactional id: <app>-one-0
  Streams app(copy_topology(in, out), settings);
  ASSERT_TRUE(app.start().ok());
  produce(in, {{"a", "1"}, {"b", "2"}});
  wait_until_idle(app);

  // Another producer with the thread's transactional id fences the thread's producer.
  auto intruder =
      kafka_->make_producer({.client_id = "intruder", .transactional_id = app_id + "-one-0"});
  ASSERT_TRUE(intruder) << intruder.error().to_string();
  produce(in, {{"a", "3"}, {"b", "4"}, {"c", "5"}});
  wait_until_idle(app);
  EXPECT_NE(app.state(), Streams::State::kError);
  EXPECT_THAT(values(out), ::testing::ElementsAre("1!", "2!", "3!", "4!", "5!"));
  EXPECT_TRUE(app.close().ok());
}

TEST_F(KafkaStreamsTest, ChangelogsCompactedByTheBrokerRestoreTheStore) {
  const auto in = unique_name("compact-in");
  const auto out = unique_name("compact-out");
  const auto app_id = unique_name("compact-app");
  create_topic(in, 1);
  create_topic(out, 1);
  // The changelog as Brook would create it, but rolled and cleaned within seconds.
  create_topic(app_id + "-counts-changelog", 1,
               {{"cleanup.policy", "compact"},
                {"segment.ms", "100"},
                {"min.cleanable.dirty.ratio", "0.01"}});
  const auto topology = count_topology(in, out);
  constexpr int kKeys = 10;
  constexpr int kUpdates = 300;
  {
    Streams app(topology, config(app_id, "first"));
    ASSERT_TRUE(app.start().ok());
    for (int round = 0; round < 3; ++round) {  // segments roll between rounds
      KeyValues batch;
      for (int i = 0; i < kKeys * kUpdates / 3; ++i)
        batch.emplace_back("k" + std::to_string(i % kKeys), "x");
      produce(in, batch);
      wait_until_idle(app);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));  // older than segment.ms
    }
    ASSERT_TRUE(app.close().ok());
  }
  // The broker's cleaner compacts the closed segments: far fewer records than written.
  const auto changelog = app_id + "-counts-changelog";
  std::size_t stored = kKeys * kUpdates;
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (stored >= kKeys * kUpdates / 2 && std::chrono::steady_clock::now() < deadline) {
    stored = read_topic(*kafka_, changelog)[0].size();
    if (stored >= kKeys * kUpdates / 2) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  ASSERT_LT(stored, kKeys * kUpdates / 2) << "the broker did not compact the changelog";

  // A new instance without local state restores the compacted changelog: exact counts.
  Streams again(topology, config(app_id, "second"));
  auto restored = std::make_shared<CountingRestoreListener>();
  again.set_restore_listener(restored);
  ASSERT_TRUE(again.start().ok());
  ASSERT_EQ(again.wait_for_state(Streams::State::kRunning, kDeadline).to_string(),
            "OK");  // restored
  auto store = again.store<std::string, std::int64_t>("counts");
  ASSERT_TRUE(store) << store.error().to_string();
  for (int k = 0; k < kKeys; ++k) {
    EXPECT_EQ(*store->get("k" + std::to_string(k)), kUpdates) << "k" << k;
  }
  EXPECT_LE(restored->total.load(), static_cast<std::int64_t>(stored));
  EXPECT_TRUE(again.close().ok());
}

TEST_F(KafkaStreamsTest, AStaticMemberRestartsWithoutARebalance) {
  const auto in = unique_name("static-in");
  const auto out = unique_name("static-out");
  create_topic(in, 4);
  create_topic(out, 4);
  const auto topology = copy_topology(in, out);
  const auto app_id = unique_name("static-app");
  auto with_instance = [&](const std::string& instance) {
    auto settings = config(app_id, instance);
    settings["group.instance.id"] = instance;
    return settings;
  };
  Streams stays(topology, with_instance("stays"));
  std::atomic<int> rebalances = 0;
  stays.set_state_listener([&](Streams::State now, Streams::State) {
    if (now == Streams::State::kRebalancing) ++rebalances;
  });
  auto restarts = std::make_unique<Streams>(topology, with_instance("restarts"));
  ASSERT_TRUE(stays.start().ok());
  ASSERT_EQ(stays.wait_for_state(Streams::State::kRunning, kDeadline).to_string(),
            "OK");  // alone: every partition
  ASSERT_TRUE(restarts->start().ok());
  // The second member's join makes the first rebalance again: after that the group is settled.
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while ((rebalances.load() < 2 || stays.state() != Streams::State::kRunning ||
          restarts->state() != Streams::State::kRunning) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // polls the states above
  }
  ASSERT_GE(rebalances.load(), 2) << "the first member never saw the second join";
  produce(in, {{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}});
  wait_until_idle(stays);
  const int before = rebalances.load();

  ASSERT_TRUE(restarts->close().ok());  // a static member does not leave the group
  restarts = std::make_unique<Streams>(topology, with_instance("restarts"));
  ASSERT_TRUE(restarts->start().ok());
  produce(in, {{"a", "5"}, {"b", "6"}, {"c", "7"}, {"d", "8"}});
  wait_until_idle(stays);
  EXPECT_EQ(rebalances.load(), before) << "the other member had to give up its partitions";
  EXPECT_THAT(values(out), ::testing::ElementsAre("1!", "2!", "3!", "4!", "5!", "6!", "7!", "8!"));
  EXPECT_TRUE(restarts->close().ok());
  EXPECT_TRUE(stays.close().ok());
}

// Waits until `app` keeps a standby replica of store `store` for each of `partitions`,
// caught up with its changelog; fails the test if that takes longer than kDeadline.
void wait_for_standbys(const Streams& app, const std::string& store,
                       const std::set<std::int32_t>& partitions) {
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  std::string last = "none";
  while (std::chrono::steady_clock::now() < deadline) {
    auto lags = app.local_store_lags();
    std::set<std::int32_t> current;
    if (lags && lags->contains(store)) {
      last.clear();
      for (const auto& [partition, info] : lags->at(store)) {
        last += fmt::format(" {}:{}{}", partition, info.standby ? "standby lag " : "active lag ",
                            info.lag);
        if (info.standby && info.lag == 0 && info.end_offset > 0) current.insert(partition);
      }
    }
    if (current == partitions) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // lags have no change feed
  }
  FAIL() << "no caught-up standbys of " << store << " for every partition; last lags:" << last;
}

// The partitions of store `store` whose active task runs on `app`.
std::set<std::int32_t> active_partitions(const Streams& app, const std::string& store) {
  auto lags = app.local_store_lags();
  std::set<std::int32_t> out;
  if (!lags || !lags->contains(store)) return out;  // not running, or tasks moving
  for (const auto& [partition, info] : lags->at(store)) {
    if (!info.standby) out.insert(partition);
  }
  return out;
}

// Waits until `a` and `b` both run, sharing the `partitions` tasks of the store "counts";
// fails the test if that takes longer than kDeadline.
void wait_until_sharing(const Streams& a, const Streams& b, std::size_t partitions) {
  auto sharing = [&] {
    const auto on_a = active_partitions(a, "counts").size();
    return a.state() == Streams::State::kRunning && b.state() == Streams::State::kRunning &&
           on_a > 0 && on_a < partitions &&
           on_a + active_partitions(b, "counts").size() == partitions;
  };
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (!sharing() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the group rebalances
  }
  ASSERT_TRUE(sharing()) << "the two instances never shared the tasks";
}

// The last count written per key to `topic`.
std::map<std::string, std::int64_t> last_counts(internal::LogBackend& log,
                                                const std::string& topic) {
  std::map<std::string, std::int64_t> out;
  const Int64Serde serde;
  for (const auto& [partition, records] : read_topic(log, topic)) {
    for (const auto& r : records) out[*r.key] = *serde.deserialize(*r.value);
  }
  return out;
}

// Checks that `stays` answers stale reads of store "counts" from its standbys of `standby`
// partitions (each key counted `count` times) and fresh reads only from its active tasks, and
// that its metadata names it as their standby.
void expect_stale_reads_from_standbys(const Streams& stays, const std::set<std::int32_t>& standby,
                                      int keys, std::int64_t count) {
  auto fresh = stays.store<std::string, std::int64_t>("counts");
  auto stale = stays.store<std::string, std::int64_t>("counts", {.allow_stale = true});
  ASSERT_TRUE(fresh && stale);
  for (int i = 0; i < keys; ++i) {
    const std::string key = "k" + std::to_string(i);
    auto where = stays.query_metadata_for_key("counts", key);
    ASSERT_TRUE(where) << where.error().to_string();
    auto read = stale->get(key);
    ASSERT_TRUE(read) << key << ": " << read.error().to_string();
    EXPECT_EQ(*read, count) << key;
    if (!standby.contains(where->partition.value())) continue;
    EXPECT_EQ(where->active_server, "leaves:1") << key;
    EXPECT_EQ(where->standby_servers, std::vector<std::string>{"stays:1"}) << key;
    auto refused = fresh->get(key);
    ASSERT_FALSE(refused) << key << " was read from a standby without allow_stale";
    EXPECT_EQ(refused.error().code(), StatusCode::kNotFound);
    auto lag = stays.local_store_lag("counts", where->partition.value());
    ASSERT_TRUE(lag) << lag.error().to_string();
    EXPECT_TRUE(lag->standby);
    EXPECT_EQ(lag->lag, 0);
  }
  auto all = stale->all();
  ASSERT_TRUE(all) << all.error().to_string();
  EXPECT_EQ(all->size(), static_cast<std::size_t>(keys)) << "a stale all() reads every partition";
}

// Waits until `app` has heard that the instance "leaves:1" runs the tasks of `partitions`.
void wait_for_announced_owner(const Streams& app, const std::set<std::int32_t>& partitions) {
  auto announced = [&] {
    for (const auto& instance : app.metadata_for_all_clients()) {
      if (instance.server != "leaves:1" || !instance.store_partitions.contains("counts")) continue;
      const auto& held = instance.store_partitions.at("counts");
      return std::set<std::int32_t>(held.begin(), held.end()) == partitions;
    }
    return false;
  };
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (!announced() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // announcements are records
  }
  ASSERT_TRUE(announced()) << "leaves:1 never announced its tasks";
}

TEST_F(KafkaStreamsTest, AStandbyReplicaAnswersStaleReadsAndTakesItsTaskOverWithoutRestoring) {
  const auto in = unique_name("standby-in");
  const auto out = unique_name("standby-out");
  create_topic(in, 4);
  create_topic(out, 4);
  const auto topology = count_topology(in, out);
  const auto app_id = unique_name("standby-app");
  auto with_standby = [&](const std::string& instance) {
    auto settings = config(app_id, instance);
    settings["num.standby.replicas"] = "1";
    settings["application.server"] = instance + ":1";  // announced, never listened on
    return settings;
  };
  Streams leaves(topology, with_standby("leaves"));
  Streams stays(topology, with_standby("stays"));
  auto restored = std::make_shared<CountingRestoreListener>();
  stays.set_restore_listener(restored);
  ASSERT_TRUE(leaves.start().ok());
  ASSERT_TRUE(stays.start().ok());
  wait_until_sharing(leaves, stays, 4);
  constexpr int kKeys = 40;
  constexpr int kRounds = 25;
  KeyValues batch;
  for (int i = 0; i < kKeys * kRounds; ++i)
    batch.emplace_back("k" + std::to_string(i % kKeys), "x");
  produce(in, batch);
  wait_until_idle(leaves);
  wait_until_idle(stays);
  // The instance that stays keeps the other's tasks as standbys, caught up.
  const auto moving = active_partitions(leaves, "counts");
  wait_for_standbys(stays, "counts", moving);
  const std::string metrics = internal::prometheus_text(stays);
  for (std::int32_t p : moving) {
    EXPECT_THAT(metrics, HasSubstr(fmt::format("kafka_streams_stream_state_metrics_standby_records_"
                                               "lag{{partition=\"{}\",store=\"counts\"}} 0\n",
                                               p)));
  }
  const std::int64_t restored_before = restored->total.load();
  wait_for_announced_owner(stays, moving);
  expect_stale_reads_from_standbys(stays, moving, kKeys, kRounds);

  // One instance leaves: its tasks move to the standbys, which hold all their state.
  ASSERT_TRUE(leaves.close().ok());
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (active_partitions(stays, "counts").size() < 4 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the group rebalances
  }
  ASSERT_EQ(stays.wait_for_state(Streams::State::kRunning, kDeadline).to_string(), "OK");
  ASSERT_EQ(active_partitions(stays, "counts").size(), 4u);
  EXPECT_EQ(restored->total.load(), restored_before)
      << "the tasks that moved restored their stores from the changelogs";
  // Their counts go on from the standbys' state.
  KeyValues more;
  for (int i = 0; i < kKeys; ++i) more.emplace_back("k" + std::to_string(i), "x");
  produce(in, more);
  wait_until_idle(stays);
  for (int i = 0; i < kKeys; ++i) {
    wait_for_store_value<std::string, std::int64_t>(stays, "counts", "k" + std::to_string(i),
                                                    kRounds + 1);
  }
  EXPECT_TRUE(stays.close().ok());
}

TEST_F(KafkaStreamsTest, AJoiningInstanceWarmsUpTheTasksItWillGetBeforeItJoins) {
  const auto in = unique_name("warmup-in");
  const auto out = unique_name("warmup-out");
  create_topic(in, 4);
  create_topic(out, 4);
  const auto topology = count_topology(in, out, /*caching=*/true);
  const auto app_id = unique_name("warmup-app");
  Streams first(topology, config(app_id, "first"));
  ASSERT_TRUE(first.start().ok());
  ASSERT_EQ(first.wait_for_state(Streams::State::kRunning, kDeadline).to_string(), "OK");
  constexpr int kKeys = 40;
  constexpr int kRounds = 50;
  KeyValues batch;
  for (int i = 0; i < kKeys * kRounds; ++i)
    batch.emplace_back("k" + std::to_string(i % kKeys), "x");
  produce(in, batch);
  wait_until_idle(first);

  // The second instance reads the changelogs of the tasks it will get to their ends
  // (max.warmup.replicas 2 by default) before it joins: taking them over restores nothing.
  auto settings = config(app_id, "second");
  settings["acceptable.recovery.lag"] = "0";
  Streams second(topology, settings);
  auto restored = std::make_shared<CountingRestoreListener>();
  second.set_restore_listener(restored);
  ASSERT_TRUE(second.start().ok());
  wait_until_sharing(first, second, 4);
  EXPECT_EQ(restored->total.load(), 0) << "the tasks that moved restored their stores";

  KeyValues more;
  for (int i = 0; i < kKeys; ++i) more.emplace_back("k" + std::to_string(i), "x");
  produce(in, more);
  wait_until_idle(first);
  wait_until_idle(second);
  const auto counts = last_counts(*kafka_, out);
  ASSERT_EQ(counts.size(), static_cast<std::size_t>(kKeys));
  for (const auto& [key, count] : counts) EXPECT_EQ(count, kRounds + 1) << key;
  EXPECT_TRUE(second.close().ok());
  EXPECT_TRUE(first.close().ok());
}

}  // namespace
}  // namespace brook::testing
