// A map/filter pipeline as a Streams application on a real Kafka broker, next to a hand-written
// librdkafka loop doing the same work over the same input, measured in the same run (issue
// "Kafka backend": benchmarks).
//
//   Broker:   $BROOK_KAFKA_BOOTSTRAP (scripts/kafka.sh start). Topics and groups get unique
//             names and are deleted at the end.
//   Input:    BROOK_KAFKA_RECORDS records (default 1 M) in a 6-partition topic, written once,
//             untimed: keys "host-<i mod 1000>", 100-byte values, 1 in 10 starting "DEBUG".
//   Pipeline: filter (drop DEBUG lines) -> map_values (the line in upper case) -> a fresh
//             6-partition output topic per run.
//   Brook:    brook::Streams with bootstrap.servers, 1 stream thread, commit.interval.ms=100,
//             at_least_once (KafkaMapFilter) or exactly_once_v2 (KafkaMapFilter_ExactlyOnce:
//             a transaction per commit, every 100 ms). Timed from RUNNING (partitions
//             assigned) until every input record is processed and committed (lag 0).
//   Baseline: rdkafka_baseline.h consume_transform_produce: one thread, the raw C API,
//             subscribe in a fresh group, poll, the same two lambdas, produce (idempotent,
//             murmur2), every 100 ms flush + commit (at least once) or send the offsets to the
//             transaction and commit it (exactly once). Timed from the assignment to the last
//             commit.
// Each run checks, untimed, that its output topic holds the records the filter keeps (at
// least that many offsets under exactly once, where commit markers take offsets too).
// Wall-clock (UseManualTime), one iteration, 3 repetitions (the median is compared).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "compare.h"
#include "rdkafka_baseline.h"
#include "state_workload.h"
#include "streams_timing.h"

namespace {

constexpr int kPartitions = 6;
constexpr std::size_t kValueBytes = 100;
const std::int64_t kRecords = brook::bench::env_or("BROOK_KAFKA_RECORDS", 1'000'000);

bool keep(const std::string&, const std::string& line) { return !line.starts_with("DEBUG"); }
std::string shout(std::string line) {
  std::ranges::transform(line, line.begin(), [](unsigned char c) { return std::toupper(c); });
  return line;
}

brook::bench::BenchTopics& topics() {
  static brook::bench::BenchTopics topics("brook-kbench-pipeline");
  return topics;
}

struct Input {
  std::string topic;
  std::int64_t kept = 0;  // records the filter keeps
};

// The input topic, written on first use.
const Input& input() {
  static const Input input = [] {
    Input in{.topic = topics().create("in", kPartitions)};
    brook::bench::produce_records(
        in.topic, kRecords, [&](std::int64_t i, std::string& key, std::string& value) {
          key = "host-" + std::to_string(i % 1000);
          value = (i % 10 == 0 ? "DEBUG request " : "INFO request ") + std::to_string(i) + " ";
          value.resize(kValueBytes, 'x');
          in.kept += keep(key, value);
          return RD_KAFKA_PARTITION_UA;
        });
    return in;
  }();
  return input;
}

// Why `output` does not hold the kept records; empty if it does.
std::string check_output(const std::string& output, bool exactly_once) {
  std::int64_t offsets = 0;
  for (int p = 0; p < kPartitions; ++p) offsets += brook::bench::end_offset(output, p);
  const std::int64_t kept = input().kept;
  if (exactly_once ? offsets >= kept : offsets == kept) return "";
  return "output holds " + std::to_string(offsets) + " offsets for " + std::to_string(kept) +
         " kept records";
}

void run_brook(benchmark::State& state, const char* guarantee) {
  const bool exactly_once = std::string_view(guarantee) == "exactly_once_v2";
  for (auto _ : state) {
    try {
      const std::string output = topics().create("out", kPartitions);
      brook::bench::BenchDir dir("kafka-pipeline");
      brook::StreamsBuilder builder;
      builder.stream<std::string, std::string>(input().topic)
          .filter(keep)
          .map_values(shout)
          .to(output);
      brook::Streams app(*builder.build(), {{"bootstrap.servers", brook::bench::kafka_bootstrap()},
                                            {"application.id", topics().name("app")},
                                            {"state.dir", dir.path().string()},
                                            {"num.stream.threads", "1"},
                                            {"processing.guarantee", guarantee},
                                            {"commit.interval.ms", "100"}});
      auto seconds = brook::bench::run_until_idle(app);
      if (!seconds) return state.SkipWithError(seconds.error().to_string().c_str());
      state.SetIterationTime(*seconds);
      if (auto s = app.close(); !s.ok()) return state.SkipWithError(s.to_string().c_str());
      auto wrong = check_output(output, exactly_once);
      if (!wrong.empty()) return state.SkipWithError(wrong.c_str());
    } catch (const std::exception& e) {
      return state.SkipWithError(e.what());
    }
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

void run_baseline(benchmark::State& state, bool exactly_once) {
  for (auto _ : state) {
    try {
      const std::string output = topics().create("out", kPartitions);
      const double seconds = brook::bench::consume_transform_produce(
          {.input = input().topic,
           .output = output,
           .records = kRecords,
           .transactional = exactly_once},
          [](std::string_view key, std::string_view value, auto& emit) {
            std::string k(key), v(value);
            if (keep(k, v)) emit(k, shout(std::move(v)));
          });
      state.SetIterationTime(seconds);
      auto wrong = check_output(output, exactly_once);
      if (!wrong.empty()) return state.SkipWithError(wrong.c_str());
    } catch (const std::exception& e) {
      return state.SkipWithError(e.what());
    }
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

void BM_BrookKafkaMapFilter(benchmark::State& state) { run_brook(state, "at_least_once"); }
void BM_BrookKafkaMapFilter_ExactlyOnce(benchmark::State& state) {
  run_brook(state, "exactly_once_v2");
}
void BM_BaselineKafkaMapFilter(benchmark::State& state) { run_baseline(state, false); }
void BM_BaselineKafkaMapFilter_ExactlyOnce(benchmark::State& state) { run_baseline(state, true); }

BENCHMARK(BM_BrookKafkaMapFilter)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BrookKafkaMapFilter_ExactlyOnce)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineKafkaMapFilter)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineKafkaMapFilter_ExactlyOnce)->Apply(brook::bench::one_timed_iteration);

}  // namespace

int main(int argc, char** argv) {
  return brook::bench::run_kafka_benchmarks(argc, argv, [] { input(); });
}
