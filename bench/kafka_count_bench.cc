// Count per key (local state) as a Streams application on a real Kafka broker, next to a
// hand-written librdkafka loop with a raw RocksDB store, measured in the same run (issue "Kafka
// backend": benchmarks).
//
//   Broker:   $BROOK_KAFKA_BOOTSTRAP (scripts/kafka.sh start). Topics and groups get unique
//             names and are deleted at the end (changelogs included).
//   Input:    BROOK_KAFKA_RECORDS records (default 1 M) in a 6-partition topic (murmur2 of the
//             key), written once, untimed: keys "key-0000000".. drawn uniformly at random from
//             BROOK_KAFKA_KEYS keys (default 100 k; std::mt19937_64, seed 42: state_workload.h),
//             16-byte values.
//   Brook:    stream<string, string>(input).group_by_key().count({.name = "counts", RocksDB})
//             .to_stream().to(a fresh 6-partition topic): 6 tasks, 6 stores, each change
//             also written to the changelog topic. 1 stream thread, at_least_once,
//             commit.interval.ms=100, record cache on (KafkaCount, default 10 MiB) or off
//             (KafkaCount_NoCache). Timed from RUNNING until every record is processed and
//             committed (lag 0); a fresh application id (store directory, changelog) per run.
//   Baseline: rdkafka_baseline.h consume_transform_produce: one thread, the raw C API, per
//             record Get, increment, Put of an 8-byte big-endian count in one raw RocksDB with
//             Brook's options (rocksdb_baseline.h), the count produced to a fresh output topic;
//             every 100 ms a flush and an offset commit. No changelog (Brook writes one).
// Each run checks, untimed, that its store holds every key's count. Wall-clock
// (UseManualTime), one iteration, 3 repetitions (the median is compared).
#include <benchmark/benchmark.h>

#include <string>
#include <unordered_map>

#include "brook/kstream.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "compare.h"
#include "rdkafka_baseline.h"
#include "rocksdb_baseline.h"
#include "state_workload.h"
#include "streams_timing.h"

namespace {

using brook::bench::BenchDir;

constexpr int kPartitions = 6;
const std::int64_t kRecords = brook::bench::env_or("BROOK_KAFKA_RECORDS", 1'000'000);
const std::int64_t kKeys = brook::bench::env_or("BROOK_KAFKA_KEYS", 100'000);

const brook::bench::StateWorkload& workload() {
  static const auto w = brook::bench::make_workload(kRecords, kKeys);
  return w;
}

brook::bench::BenchTopics& topics() {
  static brook::bench::BenchTopics topics("brook-kbench-count");
  return topics;
}

// The input topic, written on first use.
const std::string& input() {
  static const std::string topic = [] {
    auto name = topics().create("in", kPartitions);
    const auto& w = workload();
    brook::bench::produce_records(name, kRecords,
                                  [&](std::int64_t i, std::string& key, std::string& value) {
                                    key = w.keys[w.sequence[i]];
                                    value.assign(16, 'v');
                                    return RD_KAFKA_PARTITION_UA;
                                  });
    return name;
  }();
  return topic;
}

void run_brook(benchmark::State& state, bool caching) {
  for (auto _ : state) {
    try {
      BenchDir dir("kafka-count");
      brook::StreamsBuilder builder;
      builder.stream<std::string, std::string>(input())
          .group_by_key()
          .count({.name = "counts", .type = brook::StoreType::kRocksDb, .caching = caching})
          .to_stream()
          .to(topics().create("out", kPartitions));
      brook::Streams app(*builder.build(), {{"bootstrap.servers", brook::bench::kafka_bootstrap()},
                                            {"application.id", topics().name("app")},
                                            {"state.dir", dir.path().string()},
                                            {"num.stream.threads", "1"},
                                            {"commit.interval.ms", "100"}});
      auto seconds = brook::bench::run_and_check_counts(app, workload());
      if (!seconds) return state.SkipWithError(seconds.error().to_string().c_str());
      state.SetIterationTime(*seconds);
    } catch (const std::exception& e) {
      return state.SkipWithError(e.what());
    }
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

void BM_BrookKafkaCount(benchmark::State& state) { run_brook(state, true); }
void BM_BrookKafkaCount_NoCache(benchmark::State& state) { run_brook(state, false); }

void BM_BaselineKafkaCount(benchmark::State& state) {
  for (auto _ : state) {
    try {
      BenchDir dir("kafka-count-raw");
      auto db = brook::bench::open_raw_rocksdb(dir.path());
      std::string scratch, key_copy;
      bool failed = false;
      const double seconds = brook::bench::consume_transform_produce(
          {.input = input(), .output = topics().create("out", kPartitions), .records = kRecords},
          [&](std::string_view key, std::string_view, auto& emit) {
            key_copy.assign(key);
            const std::int64_t n = brook::bench::increment(*db, key_copy, scratch);
            failed |= n < 0;
            const auto bytes = brook::bench::big_endian(n);
            emit(key, std::string_view(bytes.data(), bytes.size()));
          });
      if (failed) return state.SkipWithError("RocksDB failed");
      state.SetIterationTime(seconds);
      auto wrong = brook::bench::check_counts(
          workload(), brook::bench::count_entries(*db),
          [&](const std::string& key) { return brook::bench::get_count(*db, key, scratch); });
      if (!wrong.empty()) return state.SkipWithError(wrong.c_str());
    } catch (const std::exception& e) {
      return state.SkipWithError(e.what());
    }
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

BENCHMARK(BM_BrookKafkaCount)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BrookKafkaCount_NoCache)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineKafkaCount)->Apply(brook::bench::one_timed_iteration);

}  // namespace

int main(int argc, char** argv) {
  return brook::bench::run_kafka_benchmarks(argc, argv, [] { input(); });
}
