// What each topology.optimization saves: the same application on the embedded log built with
// "all" (Brook) and with "none" (baseline), in the same run.
//
//   TwoAggregationsAfterOneKeyChange: 1 M log lines (100-byte values, 4 partitions) re-keyed by
//     their level, then counted per level and summed (line lengths) per level: with "none" two
//     repartition topics, with "all" one (merge.repartition.topics).
//   TableLoad: 1 M updates of 100 k keys (100-byte values, 4 partitions) read into a table's
//     RocksDB store: with "none" every update also goes to the store's changelog, with "all" the
//     topic is the changelog (reuse.ktable.source.topics).
// One stream thread, at_least_once, commit.interval.ms=100, timed from RUNNING until every
// input record is processed and committed; records/s counts input records.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <string>

#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "compare.h"
#include "log_lines_input.h"
#include "streams_timing.h"

namespace {

using Config = std::map<std::string, std::string>;

constexpr int kPartitions = 4;
// 1 M records; the smoke test sets BROOK_OPTIMIZATION_RECORDS lower.
const std::int64_t kRecords = [] {
  const char* env = std::getenv("BROOK_OPTIMIZATION_RECORDS");
  return env ? std::atoll(env) : 1'000'000;
}();

// Runs `build(config)` over a fresh `input` per iteration, timed from RUNNING to lag 0.
template <class Build, class KeyOf>
void run(benchmark::State& state, const std::string& optimization, KeyOf key_of, Build build) {
  for (auto _ : state) {
    const brook::bench::LogLinesInput input("optimization-bench", kRecords, kPartitions, key_of);
    const Config config = {{"application.id", "bench"},
                           {"data.dir", input.dir().string()},
                           {"num.stream.threads", "1"},
                           {"commit.interval.ms", "100"},
                           {"topology.optimization", optimization}};
    brook::StreamsBuilder builder;
    build(builder);
    auto topology = builder.build(config);
    if (!topology) return state.SkipWithError(topology.error().to_string().c_str());
    brook::Streams app(std::move(*topology), config);
    auto seconds = brook::bench::run_until_idle(app);
    if (!seconds) return state.SkipWithError(seconds.error().to_string().c_str());
    state.SetIterationTime(*seconds);
    (void)app.close();
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

std::string host(std::int64_t i) { return "host-" + std::to_string(i % 64); }
std::string user(std::int64_t i) { return "user-" + std::to_string(i % 100'000); }

void two_aggregations(brook::StreamsBuilder& builder) {
  auto by_level = builder.stream<std::string, std::string>("in").select_key(
      [](const std::string&, const std::string& line) { return line.substr(0, line.find(' ')); });
  by_level.group_by_key().count({.name = "lines"});
  by_level.group_by_key().aggregate(
      [] { return std::int64_t{0}; },
      [](const std::string&, const std::string& line, std::int64_t bytes) {
        return bytes + std::int64_t(line.size());
      },
      {.name = "bytes"});
}

void table(brook::StreamsBuilder& builder) {
  builder.table<std::string, std::string>("in", {}, {.name = "users"});
}

void BM_BrookTwoAggregationsAfterOneKeyChange(benchmark::State& state) {
  run(state, "all", host, two_aggregations);
}
void BM_BaselineTwoAggregationsAfterOneKeyChange(benchmark::State& state) {
  run(state, "none", host, two_aggregations);
}
void BM_BrookTableLoad(benchmark::State& state) { run(state, "all", user, table); }
void BM_BaselineTableLoad(benchmark::State& state) { run(state, "none", user, table); }

BENCHMARK(BM_BrookTwoAggregationsAfterOneKeyChange)
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BaselineTwoAggregationsAfterOneKeyChange)
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BrookTableLoad)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BaselineTableLoad)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) { return brook::bench::run_and_compare(argc, argv); }
