// An instance joining a group of three on a real Kafka broker: records the whole application
// processes per second while the group rebalances, next to its rate before the join (issue
// "Fast failover and calm rebalances": benchmarks).
//
//   Broker:   $BROOK_KAFKA_BOOTSTRAP (scripts/kafka.sh start). Topics and groups get unique
//             names and are deleted at the end (changelogs included).
//   Scenario: run twice before the benchmarks, without warm-up (max.warmup.replicas=0) and
//             with (the default, 2). BROOK_REBALANCE_RECORDS records (default 3 M; keys
//             "key-<n>", 100 k per partition at most) are written evenly to a 6-partition
//             input topic; three instances of kafka_failover_app (a count per key in RocksDB,
//             no record cache; separate processes and state dirs) start and work through them.
//             Once the three run and a quarter is committed, a fourth instance starts; the run
//             ends once all is committed.
//   Measured: from the instances' own lines (steady clock, kafka_failover_app), each printing
//             how many records it processed every 100 ms. Steady rate: records processed per
//             second by all instances in the 2 s before the fourth started. Rebalance: from
//             the first of the three leaving RUNNING after that to the last of the four
//             running again; records processed per second by all in it. Five seconds: records
//             processed per second by all in the 5 s from the rebalance's start (what the
//             rebalance and the restorations after it cost, whatever their lengths). Join
//             delay: from the fourth's start to the rebalance (its warm-up, with warm-up on).
//   Brook:    BM_RebalanceWithWarmUp / BM_RebalanceWithoutWarmUp: one iteration of the
//             rebalance's length (manual time), its records/s as items_per_second; the steady
//             rate, the ratios to it and the join delay as counters.
// Wall clock (UseManualTime), one iteration, 3 repetitions (each repeats its scenario's figure).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kafka_app_instances.h"
#include "state_workload.h"
#include "streams_timing.h"

namespace {

using brook::bench::AppInstance;
using brook::bench::BenchDir;

constexpr int kPartitions = 6;
constexpr std::int64_t kKeysPerPartition = 100'000;
constexpr auto kDeadline = std::chrono::seconds(600);
const std::int64_t kRecords = brook::bench::env_or("BROOK_REBALANCE_RECORDS", 3'000'000);

brook::bench::BenchTopics& topics() {
  static brook::bench::BenchTopics topics("brook-kbench-rebalance");
  return topics;
}

// One instance's processed-record totals over time (steady-clock microseconds).
using Progress = std::vector<std::pair<long long, long long>>;

// Records processed by `progress` up to time `at`: its last report at or before it.
long long processed_at(const Progress& progress, long long at) {
  long long out = 0;
  for (const auto& [time, total] : progress) {
    if (time > at) break;
    out = total;
  }
  return out;
}

// What a scenario measured.
struct Rebalance {
  double steady = 0;        // records/s before the join
  double during = 0;        // records/s while the group rebalanced
  double seconds = 0;       // the rebalance's length
  double join_delay = 0;    // the fourth's start -> the rebalance begins
  double five_seconds = 0;  // records/s in the 5 s from the rebalance's start
};

Rebalance run_rebalance(int max_warmup_replicas) {
  BenchDir dir("kafka-rebalance");
  const std::string input = topics().create("in", kPartitions);
  const std::string output = topics().create("out", kPartitions);
  const std::string app = topics().name("app");
  brook::bench::produce_records(
      input, kRecords, [](std::int64_t i, std::string& key, std::string& value) {
        key = "key-" + std::to_string(i / kPartitions % kKeysPerPartition);
        value = "v";
        return static_cast<std::int32_t>(i % kPartitions);
      });
  std::vector<std::unique_ptr<AppInstance>> instances;
  auto start = [&](int n) {
    const auto state = dir.path() / ("instance-" + std::to_string(n));
    instances.push_back(std::make_unique<AppInstance>(
        BROOK_FAILOVER_APP,
        std::vector<std::string>{brook::bench::kafka_bootstrap(), app, input, output,
                                 state.string(),
                                 "max.warmup.replicas=" + std::to_string(max_warmup_replicas)},
        dir.path() / ("instance-" + std::to_string(n) + ".log")));
  };
  for (int n = 0; n < 3; ++n) start(n);
  auto committed = [&] { return brook::bench::committed(app, input, kPartitions); };
  brook::bench::wait_until(
      [&] {
        return std::all_of(instances.begin(), instances.end(),
                           [](const auto& i) { return i->running(); }) &&
               committed() >= kRecords / 4;
      },
      "the three to run and a quarter of the input to be committed", kDeadline);
  const long long joined = brook::bench::now_us();
  start(3);
  brook::bench::wait_until(
      [&] {
        return std::all_of(instances.begin(), instances.end(),
                           [](const auto& i) { return i->running(); }) &&
               committed() >= kRecords;
      },
      "the input to be committed", kDeadline);
  for (auto& instance : instances) instance->stop(SIGTERM);

  std::vector<Progress> progress(instances.size());
  long long left = 0, back = 0;  // the rebalance: first leaving RUNNING, last running again
  std::vector<long long> running_again(instances.size(), 0);
  for (std::size_t n = 0; n < instances.size(); ++n) {
    for (const auto& e : instances[n]->events()) {
      if (e.size() != 3 || !std::isdigit(static_cast<unsigned char>(e[0][0]))) continue;
      const long long at = std::stoll(e[0]);
      if (e[1] == "processed") progress[n].emplace_back(at, std::stoll(e[2]));
      if (e[1] != "state" || at < joined) continue;
      if (e[2] != "RUNNING" && n < 3 && left == 0) left = at;
      if (e[2] == "RUNNING" && running_again[n] == 0) running_again[n] = at;
    }
  }
  back = *std::max_element(running_again.begin(), running_again.end());
  if (left == 0 || back <= left) throw std::runtime_error("the instances' logs show no rebalance");
  auto processed = [&](long long at) {
    long long total = 0;
    for (const auto& p : progress) total += processed_at(p, at);
    return total;
  };
  constexpr long long kSteadyWindow = 2'000'000;  // us
  Rebalance r;
  r.steady = (processed(joined) - processed(joined - kSteadyWindow)) / (kSteadyWindow / 1e6);
  r.seconds = (back - left) / 1e6;
  r.during = (processed(back) - processed(left)) / r.seconds;
  r.join_delay = (left - joined) / 1e6;
  constexpr long long kAfterWindow = 5'000'000;  // us
  r.five_seconds = (processed(left + kAfterWindow) - processed(left)) / (kAfterWindow / 1e6);
  std::printf(
      "rebalance, max.warmup.replicas=%d: steady %.0f records/s; join delay %.2f s; rebalance "
      "%.2f s at %.0f records/s (%.2f of steady); the 5 s from its start at %.0f records/s "
      "(%.2f of steady)\n",
      max_warmup_replicas, r.steady, r.join_delay, r.seconds, r.during, r.during / r.steady,
      r.five_seconds, r.five_seconds / r.steady);
  return r;
}

const Rebalance& with_warm_up() {
  static const Rebalance r = run_rebalance(2);
  return r;
}

const Rebalance& without_warm_up() {
  static const Rebalance r = run_rebalance(0);
  return r;
}

void report(benchmark::State& state, const Rebalance& r) {
  for (auto _ : state) state.SetIterationTime(r.seconds);
  state.SetItemsProcessed(static_cast<std::int64_t>(r.during * r.seconds) * state.iterations());
  state.counters["steady_records_per_s"] = r.steady;
  state.counters["ratio_to_steady"] = r.during / r.steady;
  state.counters["ratio_5s_to_steady"] = r.five_seconds / r.steady;
  state.counters["join_delay_s"] = r.join_delay;
}

void BM_RebalanceWithoutWarmUp(benchmark::State& state) { report(state, without_warm_up()); }
void BM_RebalanceWithWarmUp(benchmark::State& state) { report(state, with_warm_up()); }

BENCHMARK(BM_RebalanceWithoutWarmUp)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_RebalanceWithWarmUp)->Apply(brook::bench::one_timed_iteration);

}  // namespace

int main(int argc, char** argv) {
  return brook::bench::run_kafka_benchmarks(argc, argv, [] {
    without_warm_up();
    with_warm_up();
  });
}
