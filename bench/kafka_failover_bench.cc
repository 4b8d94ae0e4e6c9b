// Failover on a real Kafka broker: seconds from `kill -9` of one of two instances of a stateful
// application to the survivor processing the victim's partitions again, without and with a
// standby replica, and the restoration of the victim's state without one next to a raw
// librdkafka + RocksDB restore of the same changelog (issue "Kafka backend": benchmarks).
//
//   Broker:   $BROOK_KAFKA_BOOTSTRAP (scripts/kafka.sh start). Topics and groups get unique
//             names and are deleted at the end (changelogs included).
//   Scenario: run twice, before the benchmarks: without standbys (num.standby.replicas=0) and
//             with one (=1, so the survivor keeps a copy of the victim's stores, current from
//             its changelogs, and restores only what it had not yet read at the kill). In
//             each, two instances of kafka_failover_app (a count per
//             key in RocksDB, no record cache, session timeout 6 s; separate processes and
//             state dirs) share a 6-partition input topic (3 partitions each). Once both run,
//             2 x BROOK_FAILOVER_RECORDS records (default 1 M; keys "key-<n>", 100 k per
//             partition at most) are written evenly to the 6 partitions, so that the
//             changelog partitions of each instance hold about BROOK_FAILOVER_RECORDS
//             records. When all are committed, one instance is killed with SIGKILL and a
//             marker record is written to each input partition; the failover ends when the
//             survivor's count of the last marker appears in the output.
//   Timeline: from the survivor's own lines (steady clock, kafka_failover_app): detection
//             (kill -> the survivor leaves RUNNING: session timeout and rebalance), assignment
//             (-> its first restoration starts, or it runs again if it restores nothing),
//             restoration (-> the last one ends), catch-up (-> the last marker's count is read
//             from the output), total. Printed, and as counters of BM_BrookFailoverRestore and
//             BM_BrookFailoverWithStandby.
//   Standby:  BM_BrookFailoverWithStandby: the failover's seconds after detection (total -
//             detection: what standbys shorten), next to the same without a standby.
//   Brook:    BM_BrookFailoverRestore: the survivor's restoration of the victim's store
//             partitions: changelog records restored / seconds of restoration (from the
//             first restore-start to the last restore-end after the kill).
//   Baseline: BM_BaselineFailoverRestore: the raw C API reads the same changelog partitions
//             from the beginning to the end offsets Brook restored to (batches of up to 10 000
//             records) and writes each batch to a raw RocksDB with Brook's options
//             (rocksdb_baseline.h) as a WriteBatch (WAL on, no fsync); timed from the assignment to
//             the last write.
// Wall clock (UseManualTime), one iteration, 3 repetitions (the Brook side repeats the one
// scenario's figure).
#include <benchmark/benchmark.h>
#include <signal.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compare.h"
#include "kafka_app_instances.h"
#include "rdkafka_baseline.h"
#include "rocksdb_baseline.h"
#include "state_workload.h"
#include "streams_timing.h"

namespace {

using brook::bench::AppInstance;
using brook::bench::BenchDir;
using brook::bench::Clock;
using brook::bench::committed;
using brook::bench::now_us;
using brook::bench::wait_until;

constexpr int kPartitions = 6;
constexpr std::int64_t kKeysPerPartition = 100'000;
constexpr auto kDeadline = std::chrono::seconds(600);
const std::int64_t kRecords = brook::bench::env_or("BROOK_FAILOVER_RECORDS", 1'000'000);

brook::bench::BenchTopics& topics() {
  static brook::bench::BenchTopics topics("brook-kbench-failover");
  return topics;
}

// Reads `topic` from `from` (an offset per partition) until a record with each of `keys` was
// read; returns the steady-clock microseconds when the last one was read.
long long wait_for_keys(const std::string& topic, const std::vector<std::int64_t>& from,
                        std::vector<std::string> keys) {
  auto consumer = brook::bench::make_client(
      RD_KAFKA_CONSUMER,
      {{"group.id", topics().name("marker-reader")}, {"enable.auto.commit", "false"}});
  brook::bench::PartitionList assignment(rd_kafka_topic_partition_list_new(kPartitions));
  for (int p = 0; p < kPartitions; ++p) {
    rd_kafka_topic_partition_list_add(assignment.get(), topic.c_str(), p)->offset = from[p];
  }
  brook::bench::check(rd_kafka_assign(consumer.get(), assignment.get()), "assigning");
  for (const auto deadline = Clock::now() + kDeadline; !keys.empty();) {
    if (Clock::now() > deadline) throw std::runtime_error("the markers' counts never came");
    rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer.get(), 100);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      std::erase(keys, std::string(static_cast<const char*>(m->key), m->key_len));
    }
    rd_kafka_message_destroy(m);
  }
  return now_us();
}

// What a scenario measured.
struct Failover {
  int standby_replicas = 0;
  std::string changelog;
  std::map<std::int32_t, std::int64_t> ends;  // the victim's changelog partitions: end offset
  std::int64_t restored = 0;                  // changelog records the survivor restored
  double detection = 0, assignment = 0, restoration = 0, catch_up = 0, total = 0;  // seconds
};

Failover run_failover(int standby_replicas) {
  BenchDir dir("kafka-failover");
  const std::string input = topics().create("in", kPartitions);
  const std::string output = topics().create("out", kPartitions);
  const std::string app = topics().name("app");
  auto start = [&](int n) {
    const auto state = dir.path() / ("instance-" + std::to_string(n));
    return std::make_unique<AppInstance>(
        BROOK_FAILOVER_APP,
        std::vector<std::string>{brook::bench::kafka_bootstrap(), app, input, output,
                                 state.string(),
                                 "num.standby.replicas=" + std::to_string(standby_replicas)},
        dir.path() / ("instance-" + std::to_string(n) + ".log"));
  };
  auto survivor = start(0);
  auto victim = start(1);
  wait_until([&] { return victim->running() && survivor->running(); }, "both instances to run",
             kDeadline);
  const std::int64_t records = 2 * kRecords;
  brook::bench::produce_records(
      input, records, [](std::int64_t i, std::string& key, std::string& value) {
        key = "key-" + std::to_string(i / kPartitions % kKeysPerPartition);
        value = "v";
        return static_cast<std::int32_t>(i % kPartitions);
      });
  wait_until([&] { return survivor->running() && committed(app, input, kPartitions) >= records; },
             "the input to be committed", kDeadline);

  std::vector<std::int64_t> output_ends;
  for (int p = 0; p < kPartitions; ++p) output_ends.push_back(brook::bench::end_offset(output, p));
  const long long killed = now_us();
  victim->stop(SIGKILL);
  std::vector<std::string> markers;
  brook::bench::produce_records(input, kPartitions,
                                [&](std::int64_t p, std::string& key, std::string& value) {
                                  key = "marker-" + std::to_string(p);
                                  value = "v";
                                  markers.push_back(key);
                                  return static_cast<std::int32_t>(p);
                                });
  const long long caught_up = wait_for_keys(output, output_ends, markers);
  survivor->stop(SIGTERM);

  Failover f{.standby_replicas = standby_replicas, .changelog = app + "-counts-changelog"};
  long long left = 0, resumed = 0, restore_start = 0, restore_end = 0;
  for (const auto& e : survivor->events()) {
    if (e.size() < 3 || !std::isdigit(static_cast<unsigned char>(e[0][0]))) continue;
    const long long at = std::stoll(e[0]);
    if (at < killed) continue;
    if (e[1] == "state" && e[2] != "RUNNING" && left == 0) left = at;
    if (e[1] == "state" && e[2] == "RUNNING" && left != 0 && resumed == 0) resumed = at;
    if (e[1] == "restore-start" && e.size() == 5 && std::stoll(e[4]) > std::stoll(e[3])) {
      if (restore_start == 0) restore_start = at;
      f.ends[std::stoi(e[2].substr(e[2].find('_') + 1))] = std::stoll(e[4]);
    }
    if (e[1] == "restore-end" && std::stoll(e[3]) > 0) {
      restore_end = at;
      f.restored += std::stoll(e[3]);
    }
  }
  if (left == 0 || (restore_end == 0 && resumed == 0)) {
    throw std::runtime_error("the survivor's log shows no rebalance or no return to RUNNING");
  }
  const long long ran_again = restore_end != 0 ? restore_end : resumed;
  f.detection = (left - killed) / 1e6;
  f.assignment = ((restore_start != 0 ? restore_start : resumed) - left) / 1e6;
  f.restoration = (restore_end - restore_start) / 1e6;
  f.catch_up = (caught_up - ran_again) / 1e6;
  f.total = (caught_up - killed) / 1e6;
  std::printf(
      "failover, %d standby replica(s): %lld changelog records restored over %zu partitions; "
      "detection %.2f s, assignment %.2f s, restoration %.2f s, catch-up %.2f s, total %.2f s\n",
      standby_replicas, static_cast<long long>(f.restored), f.ends.size(), f.detection,
      f.assignment, f.restoration, f.catch_up, f.total);
  return f;
}

const Failover& failover() {
  static const Failover f = run_failover(0);
  return f;
}

const Failover& failover_with_standby() {
  static const Failover f = run_failover(1);
  return f;
}

void set_timeline_counters(benchmark::State& state, const Failover& f) {
  state.counters["detection_s"] = f.detection;
  state.counters["assignment_s"] = f.assignment;
  state.counters["restoration_s"] = f.restoration;
  state.counters["restored_records"] = static_cast<double>(f.restored);
  state.counters["catch_up_s"] = f.catch_up;
  state.counters["total_s"] = f.total;
}

void BM_BrookFailoverRestore(benchmark::State& state) {
  const Failover& f = failover();
  for (auto _ : state) state.SetIterationTime(f.restoration);
  state.SetItemsProcessed(state.iterations() * f.restored);
  set_timeline_counters(state, f);
}

void BM_BrookFailoverWithStandby(benchmark::State& state) {
  const Failover& f = failover_with_standby();
  const Failover& without = failover();
  for (auto _ : state) state.SetIterationTime(f.total - f.detection);
  set_timeline_counters(state, f);
  state.counters["after_detection_without_standby_s"] = without.total - without.detection;
}

void BM_BaselineFailoverRestore(benchmark::State& state) {
  const Failover& f = failover();
  std::int64_t read = 0;
  for (auto _ : state) {
    try {
      BenchDir dir("kafka-failover-raw");
      auto db = brook::bench::open_raw_rocksdb(dir.path());
      bool failed = false;
      const auto result = brook::bench::read_partitions(
          f.changelog, f.ends, [&](std::span<const rd_kafka_message_t* const> batch) {
            rocksdb::WriteBatch writes;
            for (const rd_kafka_message_t* m : batch) {
              const rocksdb::Slice key(static_cast<const char*>(m->key), m->key_len);
              if (m->payload == nullptr) {
                failed |= !writes.Delete(key).ok();
              } else {
                failed |=
                    !writes.Put(key, rocksdb::Slice(static_cast<const char*>(m->payload), m->len))
                         .ok();
              }
            }
            failed |= !db->Write(rocksdb::WriteOptions(), &writes).ok();
          });
      state.SetIterationTime(result.seconds);
      read = result.records;
      if (failed) return state.SkipWithError("RocksDB failed");
      if (read != f.restored) {
        const auto why = "read " + std::to_string(read) + " records, Brook restored " +
                         std::to_string(f.restored);
        return state.SkipWithError(why.c_str());
      }
    } catch (const std::exception& e) {
      return state.SkipWithError(e.what());
    }
  }
  state.SetItemsProcessed(state.iterations() * read);
}

BENCHMARK(BM_BrookFailoverRestore)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineFailoverRestore)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BrookFailoverWithStandby)->Apply(brook::bench::one_timed_iteration);

}  // namespace

int main(int argc, char** argv) {
  return brook::bench::run_kafka_benchmarks(argc, argv, [] {
    const Failover& without = failover();
    const Failover& with = failover_with_standby();
    std::printf("failover after detection: %.2f s with a standby, %.2f s without (ratio %.2f)\n",
                with.total - with.detection, without.total - without.detection,
                (with.total - with.detection) / (without.total - without.detection));
  });
}
