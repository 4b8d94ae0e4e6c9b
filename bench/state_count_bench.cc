// Count per key (local state, DESIGN.md pattern 2) as a Streams application over the embedded
// log, next to hand-written loops over the same storage, measured in the same run.
//
//   Input:     BROOK_COUNT_RECORDS records (default 3 M) in topic "in", 1 partition (one task,
//              one store), keys "key-0000000".. (11 bytes) drawn uniformly at random from
//              BROOK_COUNT_KEYS keys (default 1 M; std::mt19937_64, seed 42: state_workload.h),
//              16-byte values. Written once, untimed. (At 10 M records one Brook RocksDB run
//              takes about 3 minutes on 2 cores, hence 3 M: about 95% of the keys occur, each
//              about 3 times; docs/performance.md has figures for both sizes.)
//   Brook:     stream<string, string>("in").group_by_key().count({.name = "counts", .type})
//              .to_stream().to("out"); 1 stream thread, at_least_once, commit.interval.ms=100,
//              defaults otherwise: record cache 10 MiB (about 64 k of the 1 M keys, so random
//              keys mostly miss it and each write-down goes to the store, the changelog and
//              "out"), RocksDB memory 256 MiB. Timed from RUNNING (store open) until every
//              record is processed and committed (lag 0). A fresh application.id per run: its
//              own store directory and changelog. The store holds [8-byte timestamp][8-byte
//              count] per key (a timestamped store, as in Kafka Streams).
//   Cases:     CountRocksDb (record cache on), CountRocksDb_NoCache (off), CountInMemory.
//   Baselines: CountRocksDb: raw RocksDB with Brook's options (rocksdb_baseline.h), WAL on, no
//              fsync: per record Get, increment, Put of an 8-byte big-endian count, the same
//              keys in the same order, from memory. CountRocksDb_App: the hand-written app:
//              Consumer::poll of "in", the same Get/Put, Producer::send of the count to "out",
//              a flush after each poll and an offset commit every 100 ms (no changelog: Brook
//              also writes each change to its changelog topic). CountInMemory: ++counts[key] on
//              a std::unordered_map<std::string, std::int64_t>, from memory. CountInMemory_App:
//              the hand-written app with that map instead of RocksDB.
// Each Brook run and each baseline checks, untimed, that it counted every key right. All runs
// are wall-clock (UseManualTime), one iteration, 3 repetitions (the median is compared).
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "backend/embedded/embedded_log.h"
#include "bench_log.h"
#include "brook/kstream.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "compare.h"
#include "hand_written_app.h"
#include "rocksdb_baseline.h"
#include "state_workload.h"
#include "streams_timing.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using brook::bench::BenchDir;
using brook::bench::Clock;
using brook::bench::get_count;
using brook::bench::increment;
using brook::bench::next_run;
using brook::bench::seconds_since;
using brook::bench::StateWorkload;

const std::int64_t kRecords = brook::bench::env_or("BROOK_COUNT_RECORDS", 3'000'000);
const std::int64_t kKeys = brook::bench::env_or("BROOK_COUNT_KEYS", 1'000'000);
constexpr auto kCommitInterval = 100ms;
constexpr std::size_t kValueBytes = 16;

const StateWorkload& workload() {
  static const StateWorkload w = brook::bench::make_workload(kRecords, kKeys);
  return w;
}

// The data dir, with topic "in" holding the workload (written on first use).
class Data {
 public:
  static Data& get() {
    static Data data;
    return data;
  }
  const fs::path& dir() const { return dir_.path(); }

  // Empties "out", drops the changelogs and the state of earlier runs.
  void reset() {
    auto log = open();
    auto topics = log->admin().list_topics();
    for (const auto& topic : topics.value_or(std::vector<std::string>{})) {
      if (topic.ends_with("-changelog") || topic == "out") (void)log->admin().delete_topic(topic);
    }
    (void)log->admin().create_topic({"out", 1});
    fs::remove_all(dir() / "state");
  }

 private:
  Data() : dir_("count-bench") {
    auto log = open();
    (void)log->admin().create_topic({"in", 1});
    auto producer = std::move(*log->make_producer({}));
    const std::string value(kValueBytes, 'v');
    const auto& w = workload();
    for (std::int64_t i = 0; i < kRecords; ++i) {
      (void)producer->send({.topic = "in",
                            .timestamp = brook::Timestamp(i),
                            .key = w.keys[w.sequence[i]],
                            .value = value});
    }
    (void)producer->flush();
  }
  std::unique_ptr<brook::internal::EmbeddedLog> open() const {
    return brook::bench::open_log(dir_);
  }

  BenchDir dir_;
};

// Why `count(key)` does not give every key its count in the workload; empty if it does.
template <class Count>
std::string check_counts(std::int64_t entries, Count count) {
  return brook::bench::check_counts(workload(), entries, count);
}

void run_brook(benchmark::State& state, brook::StoreType type, bool caching) {
  for (auto _ : state) {
    Data& data = Data::get();
    data.reset();
    brook::StreamsBuilder builder;
    builder.stream<std::string, std::string>("in")
        .group_by_key()
        .count({.name = "counts", .type = type, .caching = caching})
        .to_stream()
        .to("out");
    brook::Streams app(*builder.build(),
                       {{"application.id", "count-" + std::to_string(next_run())},
                        {"data.dir", data.dir().string()},
                        {"num.stream.threads", "1"},
                        {"commit.interval.ms", std::to_string(kCommitInterval.count())}});
    auto seconds = brook::bench::run_and_check_counts(app, workload());
    if (!seconds) return state.SkipWithError(seconds.error().to_string().c_str());
    state.SetIterationTime(*seconds);
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

void BM_BrookCountRocksDb(benchmark::State& state) {
  run_brook(state, brook::StoreType::kRocksDb, true);
}
void BM_BrookCountRocksDb_NoCache(benchmark::State& state) {
  run_brook(state, brook::StoreType::kRocksDb, false);
}
void BM_BrookCountInMemory(benchmark::State& state) {
  run_brook(state, brook::StoreType::kInMemory, true);
}

std::string check_db(rocksdb::DB& db) {
  std::string scratch;
  return check_counts(brook::bench::count_entries(db),
                      [&](const std::string& key) { return get_count(db, key, scratch); });
}

void BM_BaselineCountRocksDb(benchmark::State& state) {
  const auto& w = workload();
  for (auto _ : state) {
    BenchDir dir("count-bench-raw");
    auto db = brook::bench::open_raw_rocksdb(dir.path());
    std::string scratch;
    const auto start = Clock::now();
    for (std::uint32_t key : w.sequence) {
      if (increment(*db, w.keys[key], scratch) < 0) return state.SkipWithError("RocksDB failed");
    }
    state.SetIterationTime(seconds_since(start));
    if (auto wrong = check_db(*db); !wrong.empty()) return state.SkipWithError(wrong.c_str());
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

// One timed run of the hand-written app (hand_written_app.h) on a reset data dir: per record
// of "in", `count(key)` (the key's new count; negative on an error) sent to "out" as 8
// big-endian bytes. False (and the benchmark skipped) on an error.
template <class Count>
bool run_app(benchmark::State& state, Count count) {
  auto seconds = brook::bench::run_hand_written_app(
      Data::get().dir(), "baseline-" + std::to_string(next_run()), "in", "out", kRecords,
      kCommitInterval, [&](const brook::ConsumerRecord& r) -> std::optional<std::string> {
        const std::int64_t n = count(*r.key);
        if (n < 0) return std::nullopt;
        const auto bytes = brook::bench::big_endian(n);
        return std::string(bytes.data(), bytes.size());
      });
  if (!seconds) {
    state.SkipWithError(seconds.error().to_string().c_str());
    return false;
  }
  state.SetIterationTime(*seconds);
  return true;
}

void BM_BaselineCountRocksDb_App(benchmark::State& state) {
  for (auto _ : state) {
    Data::get().reset();
    auto db = brook::bench::open_raw_rocksdb(Data::get().dir() / "state" / "baseline");
    std::string scratch;
    if (!run_app(state, [&](const std::string& key) { return increment(*db, key, scratch); })) {
      return;
    }
    if (auto wrong = check_db(*db); !wrong.empty()) return state.SkipWithError(wrong.c_str());
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

std::string check_map(std::unordered_map<std::string, std::int64_t>& counts) {
  return check_counts(static_cast<std::int64_t>(counts.size()),
                      [&](const std::string& key) { return counts[key]; });
}

void BM_BaselineCountInMemory(benchmark::State& state) {
  const auto& w = workload();
  for (auto _ : state) {
    std::unordered_map<std::string, std::int64_t> counts;
    const auto start = Clock::now();
    for (std::uint32_t key : w.sequence) ++counts[w.keys[key]];
    state.SetIterationTime(seconds_since(start));
    if (auto wrong = check_map(counts); !wrong.empty()) return state.SkipWithError(wrong.c_str());
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

void BM_BaselineCountInMemory_App(benchmark::State& state) {
  for (auto _ : state) {
    Data::get().reset();
    std::unordered_map<std::string, std::int64_t> counts;
    if (!run_app(state, [&](const std::string& key) { return ++counts[key]; })) return;
    if (auto wrong = check_map(counts); !wrong.empty()) return state.SkipWithError(wrong.c_str());
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

BENCHMARK(BM_BrookCountRocksDb)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BrookCountRocksDb_NoCache)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BrookCountInMemory)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineCountRocksDb)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineCountRocksDb_App)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineCountInMemory)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineCountInMemory_App)->Apply(brook::bench::one_timed_iteration);

}  // namespace

int main(int argc, char** argv) {
  return brook::bench::run_and_compare(argc, argv, {"--benchmark_repetitions=3"});
}
