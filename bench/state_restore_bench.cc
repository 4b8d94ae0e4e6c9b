// Restoration of a store from its changelog (DESIGN.md pattern 2: restore on start and
// failover), next to hand-written bulk writes of the same key-values, measured in the same run.
//
//   Changelog: BROOK_RESTORE_RECORDS records (default 10 M) over BROOK_RESTORE_KEYS keys
//              (default 1 M; uniform, std::mt19937_64 seed 42: state_workload.h), what a count
//              store logs: key "key-0000000".. (11 bytes), value [8-byte timestamp][8-byte
//              count so far]. Written once, untimed, to "restore-bench-counts-changelog" (1
//              partition, cleanup.policy=delete so that every run restores all of it).
//   Brook:     the app stream("in").group_by_key().count({.name = "counts", .type}) with an
//              empty "in" and no state dir, so its one task restores the whole changelog on
//              start. Timed by a StateRestoreListener from on_restore_start to on_restore_end:
//              the restore consumer reading batches of up to 10 000 records, each applied to
//              the bottom store and committed with its changelog offset. Opening the data dir
//              and the store is not timed. The run fails unless every record was restored.
//   Cases:     RestoreRocksDb, RestoreInMemory.
//   Baselines: RestoreRocksDb: raw RocksDB with Brook's options (rocksdb_baseline.h): the same
//              key-values, from memory, in WriteBatches of 10 000, WAL on, no fsync.
//              RestoreRocksDb_App: the same batches, but read from the changelog with
//              Consumer::poll (max_poll_records 10 000, one batch per poll): the hand-written
//              restore. RestoreInMemory: map[key] = value on a std::map<std::string,
//              std::string> (what the in-memory store is), from memory. RestoreInMemory_App:
//              the same, read from the changelog.
// Wall-clock (UseManualTime), one iteration, 3 repetitions (the median is compared).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "backend/embedded/embedded_log.h"
#include "bench_log.h"
#include "brook/kstream.h"
#include "brook/restore_listener.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "compare.h"
#include "rocksdb_baseline.h"
#include "state_workload.h"
#include "streams_timing.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using brook::bench::BenchDir;
using brook::bench::Clock;
using brook::bench::seconds_since;
using brook::bench::StateWorkload;
using brook::internal::TopicPartition;

const std::int64_t kRecords = brook::bench::env_or("BROOK_RESTORE_RECORDS", 10'000'000);
const std::int64_t kKeys = brook::bench::env_or("BROOK_RESTORE_KEYS", 1'000'000);
constexpr std::size_t kBatch = 10'000;
constexpr const char* kApplication = "restore-bench";
constexpr const char* kChangelog = "restore-bench-counts-changelog";

const StateWorkload& workload() {
  static const StateWorkload w = brook::bench::make_workload(kRecords, kKeys);
  return w;
}

// The changelog value of record `i`: [timestamp i][its key's count so far], big-endian.
std::array<char, 16> value_of(std::int64_t i) {
  const auto ts = brook::bench::big_endian(i);
  const auto count = brook::bench::big_endian(workload().occurrence[i]);
  std::array<char, 16> value;
  std::copy(count.begin(), count.end(), std::copy(ts.begin(), ts.end(), value.begin()));
  return value;
}

// The data dir: empty "in" and "out", and the changelog (written on first use).
class Data {
 public:
  static Data& get() {
    static Data data;
    return data;
  }
  const fs::path& dir() const { return dir_.path(); }
  std::unique_ptr<brook::internal::EmbeddedLog> open() const {
    return brook::bench::open_log(dir_);
  }

 private:
  Data() : dir_("restore-bench") {
    auto log = open();
    (void)log->admin().create_topic({"in", 1});
    (void)log->admin().create_topic({"out", 1});
    // Compacted, as Brook requires, but in one segment: compaction never touches the active
    // segment, so the log's background compaction (every 30 s) cannot shrink this changelog
    // between or during the runs.
    (void)log->admin().create_topic(
        {.name = kChangelog,
         .partitions = 1,
         .configs = {{"cleanup.policy", "compact"}, {"segment.bytes", "4294967296"}}});
    auto producer = std::move(*log->make_producer({}));
    const auto& w = workload();
    for (std::int64_t i = 0; i < kRecords; ++i) {
      const auto value = value_of(i);
      (void)producer->send({.topic = kChangelog,
                            .timestamp = brook::Timestamp(i),
                            .key = w.keys[w.sequence[i]],
                            .value = std::string(value.data(), value.size())});
    }
    (void)producer->flush();
  }

  BenchDir dir_;
};

// Times the restoration of the app's one store partition.
class TimingListener : public brook::StateRestoreListener {
 public:
  void on_restore_start(const std::string&, brook::TaskId, brook::Offset, brook::Offset) override {
    start_ = Clock::now();
  }
  void on_restore_end(const std::string&, brook::TaskId, std::int64_t restored) override {
    seconds_ = seconds_since(start_);
    restored_ = restored;
  }
  double seconds() const { return seconds_; }
  std::int64_t restored() const { return restored_; }

 private:
  Clock::time_point start_;
  std::atomic<double> seconds_ = 0;
  std::atomic<std::int64_t> restored_ = 0;
};

void run_brook(benchmark::State& state, brook::StoreType type) {
  for (auto _ : state) {
    Data& data = Data::get();
    fs::remove_all(data.dir() / "state");
    brook::StreamsBuilder builder;
    builder.stream<std::string, std::string>("in")
        .group_by_key()
        .count({.name = "counts", .type = type})
        .to_stream()
        .to("out");
    brook::Streams app(*builder.build(), {{"application.id", kApplication},
                                          {"data.dir", data.dir().string()},
                                          {"num.stream.threads", "1"}});
    auto listener = std::make_shared<TimingListener>();
    app.set_restore_listener(listener);
    if (auto s = app.start(); !s.ok()) return state.SkipWithError(s.to_string().c_str());
    if (!app.wait_for_state(brook::Streams::State::kRunning, 1h).ok()) {
      return state.SkipWithError("the app did not reach RUNNING");
    }
    if (listener->restored() != kRecords) {
      return state.SkipWithError(("restored " + std::to_string(listener->restored()) +
                                  " records, expected " + std::to_string(kRecords))
                                     .c_str());
    }
    state.SetIterationTime(listener->seconds());
    if (auto s = app.close(); !s.ok()) return state.SkipWithError(s.to_string().c_str());
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

void BM_BrookRestoreRocksDb(benchmark::State& state) {
  run_brook(state, brook::StoreType::kRocksDb);
}
void BM_BrookRestoreInMemory(benchmark::State& state) {
  run_brook(state, brook::StoreType::kInMemory);
}

// Gives every changelog record to `put(key, value)`, calling `end_batch()` after each batch of
// up to kBatch: from memory, or read from the changelog with a consumer (a batch per poll).
// Returns the seconds it took; negative if reading or `end_batch()` failed.
template <class Put, class EndBatch>
double feed(bool from_log, Put put, EndBatch end_batch) {
  const auto& w = workload();
  if (!from_log) {
    const auto start = Clock::now();
    for (std::int64_t i = 0; i < kRecords; ++i) {
      const auto value = value_of(i);
      put(std::string_view(w.keys[w.sequence[i]]), std::string_view(value.data(), value.size()));
      if ((i + 1) % kBatch == 0 || i + 1 == kRecords) {
        if (!end_batch()) return -1;
      }
    }
    return seconds_since(start);
  }
  auto log = Data::get().open();
  auto consumer = std::move(*log->make_consumer({.max_poll_records = kBatch}));
  (void)consumer->assign({{kChangelog, brook::Partition(0)}});
  const auto start = Clock::now();
  std::int64_t seen = 0;
  while (seen < kRecords) {
    auto records = consumer->poll(100ms);
    if (!records || records->empty()) return -1;  // the changelog ends early
    for (const auto& r : *records) put(std::string_view(*r.key), std::string_view(*r.value));
    seen += static_cast<std::int64_t>(records->size());
    if (!end_batch()) return -1;
  }
  return seconds_since(start);
}

void restore_raw_rocksdb(benchmark::State& state, bool from_log) {
  for (auto _ : state) {
    BenchDir dir("restore-bench-raw");
    auto db = brook::bench::open_raw_rocksdb(dir.path());
    rocksdb::WriteBatch batch;
    const double seconds = feed(
        from_log,
        [&](std::string_view key, std::string_view value) {
          batch
              .Put(rocksdb::Slice(key.data(), key.size()),
                   rocksdb::Slice(value.data(), value.size()))
              .PermitUncheckedError();
        },
        [&] {
          const bool ok = db->Write(rocksdb::WriteOptions(), &batch).ok();
          batch.Clear();
          return ok;
        });
    if (seconds < 0) return state.SkipWithError("reading or writing failed");
    state.SetIterationTime(seconds);
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

void restore_map(benchmark::State& state, bool from_log) {
  for (auto _ : state) {
    std::map<std::string, std::string> entries;
    const double seconds = feed(
        from_log,
        [&](std::string_view key, std::string_view value) {
          entries[std::string(key)].assign(value);
        },
        [] { return true; });
    if (seconds < 0) return state.SkipWithError("reading failed");
    state.SetIterationTime(seconds);
    if (static_cast<std::int64_t>(entries.size()) != workload().distinct()) {
      return state.SkipWithError("wrong number of keys");
    }
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

void BM_BaselineRestoreRocksDb(benchmark::State& state) { restore_raw_rocksdb(state, false); }
void BM_BaselineRestoreRocksDb_App(benchmark::State& state) { restore_raw_rocksdb(state, true); }
void BM_BaselineRestoreInMemory(benchmark::State& state) { restore_map(state, false); }
void BM_BaselineRestoreInMemory_App(benchmark::State& state) { restore_map(state, true); }

BENCHMARK(BM_BrookRestoreRocksDb)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BrookRestoreInMemory)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineRestoreRocksDb)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineRestoreRocksDb_App)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineRestoreInMemory)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineRestoreInMemory_App)->Apply(brook::bench::one_timed_iteration);

}  // namespace

int main(int argc, char** argv) {
  return brook::bench::run_and_compare(argc, argv, {"--benchmark_repetitions=3"});
}
