// Stream-table enrichment (DESIGN.md pattern 4) as a Streams application over the embedded log,
// next to the hand-written app doing the same lookups, measured in the same run.
//
//   Input:     BROOK_JOIN_TABLE_KEYS profiles (default 1 M), keys "key-0000000".. with 100-byte
//              values, in topic "profiles"; BROOK_JOIN_RECORDS clicks (default 1 M) in topic
//              "clicks", keys drawn uniformly at random from the profiles' (seed 42,
//              state_workload.h), 16-byte values. One partition each. Written once, untimed.
//   Brook:     table<string, string>("profiles", {}, {.name = "profiles", .type})
//              stream<string, string>("clicks").join(profiles, click + the profile's first 16
//              bytes).to("out"); 1 stream thread, at_least_once, commit.interval.ms=100. A
//              first run with the table alone loads it (untimed); the timed run starts with it
//              in place (RocksDB: on disk; in memory: restored before RUNNING) and goes from
//              RUNNING to lag 0.
//   Baselines: the hand-written app (hand_written_app.h) over the same clicks, looking each key
//              up in a std::unordered_map<std::string, std::string> of the profiles
//              (EnrichInMemory) or in raw RocksDB holding them, with Brook's options
//              (EnrichRocksDb); the map or database is filled before the clock starts (the
//              database then flushed and compacted into one level, so no background work
//              runs while it is timed).
// Each run checks, untimed, that every click came out enriched. Wall-clock (UseManualTime), one
// iteration, 3 repetitions (median).
#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <unordered_map>

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

using namespace std::chrono_literals;
using brook::bench::BenchDir;
using brook::bench::next_run;
using brook::bench::StateWorkload;

const std::int64_t kTableKeys = brook::bench::env_or("BROOK_JOIN_TABLE_KEYS", 1'000'000);
const std::int64_t kRecords = brook::bench::env_or("BROOK_JOIN_RECORDS", 1'000'000);
constexpr auto kCommitInterval = 100ms;

const StateWorkload& workload() {
  static const StateWorkload w = brook::bench::make_workload(kRecords, kTableKeys);
  return w;
}
std::string profile_of(std::int64_t key) { return brook::bench::padded_value("profile", key); }
std::string enrich(const std::string& click, const std::string& profile) {
  return click + profile.substr(0, 16);
}

// The data dir with both topics written (on first use).
const brook::bench::BenchData& data() {
  static const brook::bench::BenchData data("join-bench", [](brook::internal::EmbeddedLog& log) {
    (void)log.admin().create_topic({"profiles", 1});
    (void)log.admin().create_topic({"clicks", 1});
    auto producer = std::move(*log.make_producer({}));
    const auto& w = workload();
    for (std::int64_t k = 0; k < kTableKeys; ++k) {
      (void)producer->send({.topic = "profiles",
                            .timestamp = brook::Timestamp(k),
                            .key = w.keys[k],
                            .value = profile_of(k)});
    }
    const std::string click(16, 'c');
    for (std::int64_t i = 0; i < kRecords; ++i) {
      (void)producer->send({.topic = "clicks",
                            .timestamp = brook::Timestamp(kTableKeys + i),
                            .key = w.keys[w.sequence[i]],
                            .value = click});
    }
    (void)producer->flush();
  });
  return data;
}

// Why "out" is not every click enriched with its profile; empty if it is.
std::string check_out() {
  auto log = data().open();
  auto consumer = std::move(*log->make_consumer({}));
  (void)consumer->assign({{"out", brook::Partition(0)}});
  const auto& w = workload();
  std::int64_t i = 0;
  while (true) {
    auto records = consumer->poll(0ms);
    if (!records || records->empty()) break;
    for (const auto& r : *records) {
      if (i >= kRecords) return "more results than clicks";
      const std::uint32_t key = w.sequence[i++];
      if (r.key != w.keys[key] || r.value != enrich(std::string(16, 'c'), profile_of(key))) {
        return "wrong result at " + std::to_string(i - 1);
      }
    }
  }
  return i == kRecords ? "" : "only " + std::to_string(i) + " results";
}

void run_brook(benchmark::State& state, brook::StoreType type) {
  for (auto _ : state) {
    data().recreate("out");
    const std::map<std::string, std::string> config = {
        {"application.id", "enrich-" + std::to_string(next_run())},
        {"data.dir", data().dir().string()},
        {"num.stream.threads", "1"},
        {"commit.interval.ms", std::to_string(kCommitInterval.count())}};
    const brook::Materialized<std::string, std::string> table{.name = "profiles", .type = type};
    {  // loads the table, untimed
      brook::StreamsBuilder builder;
      builder.table<std::string, std::string>("profiles", {}, table);
      brook::Streams load(*builder.build(), config);
      auto seconds = brook::bench::run_until_idle(load);
      if (!seconds) return state.SkipWithError(seconds.error().to_string().c_str());
      (void)load.close();
    }
    brook::StreamsBuilder builder;
    auto profiles = builder.table<std::string, std::string>("profiles", {}, table);
    builder.stream<std::string, std::string>("clicks").join(profiles, enrich).to("out");
    brook::Streams app(*builder.build(), config);
    auto seconds = brook::bench::run_until_idle(app);
    if (!seconds) return state.SkipWithError(seconds.error().to_string().c_str());
    state.SetIterationTime(*seconds);
    (void)app.close();
    if (auto wrong = check_out(); !wrong.empty()) return state.SkipWithError(wrong.c_str());
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

// The hand-written app over the clicks with `lookup(key)` -> the profile, or nullopt.
template <class Lookup>
void run_baseline(benchmark::State& state, Lookup lookup) {
  data().recreate("out");
  auto seconds = brook::bench::run_hand_written_app(
      data().dir(), "baseline-" + std::to_string(next_run()), "clicks", "out", kRecords,
      kCommitInterval, [&](const brook::ConsumerRecord& r) -> std::optional<std::string> {
        auto profile = lookup(*r.key);
        if (!profile) return std::nullopt;
        return enrich(*r.value, *profile);
      });
  if (!seconds) return state.SkipWithError(seconds.error().to_string().c_str());
  state.SetIterationTime(*seconds);
  if (auto wrong = check_out(); !wrong.empty()) return state.SkipWithError(wrong.c_str());
}

void BM_BrookEnrichRocksDb(benchmark::State& state) {
  run_brook(state, brook::StoreType::kRocksDb);
}
void BM_BrookEnrichInMemory(benchmark::State& state) {
  run_brook(state, brook::StoreType::kInMemory);
}

void BM_BaselineEnrichRocksDb(benchmark::State& state) {
  for (auto _ : state) {
    BenchDir dir("join-bench-raw");
    auto db = brook::bench::open_raw_rocksdb(dir.path());
    const auto& w = workload();
    for (std::int64_t k = 0; k < kTableKeys; ++k) {
      (void)db->Put(rocksdb::WriteOptions(), w.keys[k], profile_of(k));
    }
    // Settled before the clock starts, as Brook's store is (written by an earlier run): all in
    // files of one level, no flush or compaction running while the lookups are timed.
    (void)db->Flush(rocksdb::FlushOptions());
    (void)db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr);
    std::string value;
    run_baseline(state, [&](const std::string& key) -> std::optional<std::string> {
      if (!db->Get(rocksdb::ReadOptions(), key, &value).ok()) return std::nullopt;
      return value;
    });
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

void BM_BaselineEnrichInMemory(benchmark::State& state) {
  for (auto _ : state) {
    std::unordered_map<std::string, std::string> profiles;
    const auto& w = workload();
    for (std::int64_t k = 0; k < kTableKeys; ++k) profiles.emplace(w.keys[k], profile_of(k));
    run_baseline(state, [&](const std::string& key) -> std::optional<std::string> {
      auto it = profiles.find(key);
      if (it == profiles.end()) return std::nullopt;
      return it->second;
    });
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

BENCHMARK(BM_BrookEnrichRocksDb)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BrookEnrichInMemory)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineEnrichRocksDb)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineEnrichInMemory)->Apply(brook::bench::one_timed_iteration);

}  // namespace

int main(int argc, char** argv) {
  return brook::bench::run_and_compare(argc, argv, {"--benchmark_repetitions=3"});
}
