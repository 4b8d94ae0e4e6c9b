// Restoration of a store from its changelog (DESIGN.md pattern 2: restore on start and
// failover), next to hand-written bulk loads of the same key-values, measured in the same run.
//
//   Changelogs: Restore*: BROOK_RESTORE_RECORDS records (default 10 M) over BROOK_RESTORE_KEYS
//              keys (default 1 M; uniform, std::mt19937_64 seed 42: state_workload.h) with
//              100-byte values. Table240MB*: a 240 MB table, BROOK_TABLE_RECORDS records
//              (default 2.4 M) of 100 bytes (11-byte key, 89-byte value), each key once, in
//              shuffled order. Keys are "key-0000000"..; a value is what a table's timestamped
//              store holds: [8-byte big-endian timestamp = record number][8-byte big-endian
//              record number][constant filler]. Its changelog record holds the value without
//              the timestamp, which is the record's timestamp (as Kafka Streams logs timestamped
//              stores). Each is written once, untimed, to its own topic (1 partition, compacted
//              but in one segment, so every run restores all of it).
//   Brook:     the app builder.table<string, string>("in", {}, {.name = "table", .type}) with an
//              empty "in" and no state dir, so its one task restores the whole changelog on
//              start (application "restore-bench" or "table-bench": changelog
//              "<application>-table-changelog"). Timed by a StateRestoreListener from
//              on_restore_start to on_restore_end: the restore consumer reading batches of up
//              to 10 000 records and the store loading them, until it is ready for queries.
//              Opening the data dir and the store is not timed. The run fails unless every
//              record was restored and (untimed, by an interactive query of every key) every
//              key holds the value of its last record.
//   Baselines: raw RocksDB with Brook's options (rocksdb_baseline.h) and std::unordered_map,
//              given the same key-values:
//              *RocksDb: a bulk load by SST ingestion: the latest value per key in a
//                std::unordered_map<std::string, std::string>, sorted, written with one
//                SstFileWriter and ingested into the empty database (RocksDB's fastest bulk
//                load, memory permitting); from memory.
//              RestoreRocksDb_Batches: WriteBatches of 100 000, WAL off, automatic compactions
//                off, then a flush and one full compaction (RocksDB's PrepareForBulkLoad
//                recipe); from memory.
//              RestoreRocksDb_App: the ingestion, read from the changelog with Consumer::poll
//                (max_poll_records 10 000), each value with its record's timestamp put back in
//                front: a hand-written restore.
//              *InMemory: map[key] = value on a std::unordered_map<std::string, std::string>
//                reserved for the number of records, from memory; RestoreInMemory_App: the
//                same, read from the changelog.
// Wall-clock (UseManualTime), one iteration, 3 repetitions (the median is compared).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backend/embedded/embedded_log.h"
#include "bench_log.h"
#include "brook/internal/coding.h"
#include "brook/kstream.h"
#include "brook/ktable.h"
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

constexpr std::size_t kPollRecords = 10'000;
constexpr std::size_t kWriteBatch = 100'000;

// One changelog to restore.
struct Case {
  const char* application;  // its changelog: <application>-table-changelog
  const StateWorkload& (*workload)();
  std::size_t value_bytes;

  std::string changelog() const { return std::string(application) + "-table-changelog"; }
  std::int64_t records() const { return static_cast<std::int64_t>(workload().sequence.size()); }

  // The store value of record `i` into `out` (value_bytes long; its changelog value is
  // out.substr(8)).
  void value_of(std::int64_t i, std::string& out) const {
    out.resize(value_bytes, 'v');
    const auto number = brook::bench::big_endian(i);
    std::copy(number.begin(), number.end(), out.begin());
    std::copy(number.begin(), number.end(), out.begin() + 8);
  }
};

const StateWorkload& restore_workload() {
  static const StateWorkload w =
      brook::bench::make_workload(brook::bench::env_or("BROOK_RESTORE_RECORDS", 10'000'000),
                                  brook::bench::env_or("BROOK_RESTORE_KEYS", 1'000'000));
  return w;
}
const StateWorkload& table_workload() {
  static const StateWorkload w =
      brook::bench::make_table_workload(brook::bench::env_or("BROOK_TABLE_RECORDS", 2'400'000));
  return w;
}

const Case kRestore{
    .application = "restore-bench", .workload = restore_workload, .value_bytes = 100};
const Case kTable{.application = "table-bench", .workload = table_workload, .value_bytes = 89};

// The data dir: empty "in" and "out", and each case's changelog (written on first use).
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

  void write_changelog(const Case& c) {
    if (std::find(written_.begin(), written_.end(), &c) != written_.end()) return;
    written_.push_back(&c);
    auto log = open();
    // Compacted, as Brook requires, but in one segment: compaction never touches the active
    // segment, so the log's background compaction cannot shrink this changelog.
    (void)log->admin().create_topic(
        {.name = c.changelog(),
         .partitions = 1,
         .configs = {{"cleanup.policy", "compact"}, {"segment.bytes", "4294967296"}}});
    auto producer = std::move(*log->make_producer({}));
    const auto& w = c.workload();
    std::string value;
    for (std::int64_t i = 0; i < c.records(); ++i) {
      c.value_of(i, value);
      (void)producer->send({.topic = c.changelog(),
                            .timestamp = brook::Timestamp(i),
                            .key = w.keys[w.sequence[i]],
                            .value = value.substr(8)});
    }
    (void)producer->flush();
  }

 private:
  Data() : dir_("restore-bench") {
    auto log = open();
    (void)log->admin().create_topic({"in", 1});
    (void)log->admin().create_topic({"out", 1});
  }

  BenchDir dir_;
  std::vector<const Case*> written_;
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

// Why the app's "table" store does not hold every key's last value; empty if it does.
std::string check_table(brook::Streams& app, const Case& c) {
  const auto& w = c.workload();
  std::vector<std::int64_t> last(w.keys.size(), -1);
  for (std::int64_t i = 0; i < c.records(); ++i) last[w.sequence[i]] = i;
  auto table = app.store<std::string, std::string>("table");
  if (!table) return table.error().to_string();
  std::string value;
  for (std::size_t key = 0; key < w.keys.size(); ++key) {
    auto got = table->get(w.keys[key]);
    if (!got) return got.error().to_string();
    if (last[key] < 0) {
      if (got->has_value()) return "unexpected key " + w.keys[key];
      continue;
    }
    c.value_of(last[key], value);
    if (!got->has_value() || **got != std::string_view(value).substr(8)) {
      return "wrong value of " + w.keys[key];
    }
  }
  return "";
}

void run_brook(benchmark::State& state, const Case& c, brook::StoreType type) {
  for (auto _ : state) {
    Data& data = Data::get();
    data.write_changelog(c);
    fs::remove_all(data.dir() / "state");
    brook::StreamsBuilder builder;
    builder.table<std::string, std::string>("in", {}, {.name = "table", .type = type});
    brook::Streams app(*builder.build(), {{"application.id", c.application},
                                          {"data.dir", data.dir().string()},
                                          {"num.stream.threads", "1"}});
    auto listener = std::make_shared<TimingListener>();
    app.set_restore_listener(listener);
    if (auto s = app.start(); !s.ok()) return state.SkipWithError(s.to_string().c_str());
    if (!app.wait_for_state(brook::Streams::State::kRunning, 1h).ok()) {
      return state.SkipWithError("the app did not reach RUNNING");
    }
    if (listener->restored() != c.records()) {
      return state.SkipWithError(("restored " + std::to_string(listener->restored()) +
                                  " records, expected " + std::to_string(c.records()))
                                     .c_str());
    }
    state.SetIterationTime(listener->seconds());
    if (auto wrong = check_table(app, c); !wrong.empty()) {
      return state.SkipWithError(wrong.c_str());
    }
    if (auto s = app.close(); !s.ok()) return state.SkipWithError(s.to_string().c_str());
  }
  state.SetItemsProcessed(state.iterations() * c.records());
}

void BM_BrookRestoreRocksDb(benchmark::State& state) {
  run_brook(state, kRestore, brook::StoreType::kRocksDb);
}
void BM_BrookRestoreInMemory(benchmark::State& state) {
  run_brook(state, kRestore, brook::StoreType::kInMemory);
}
void BM_BrookTable240MB(benchmark::State& state) {
  run_brook(state, kTable, brook::StoreType::kRocksDb);
}
void BM_BrookTable240MBInMemory(benchmark::State& state) {
  run_brook(state, kTable, brook::StoreType::kInMemory);
}

// Gives every changelog record of `c` to `put(key, value)`, calling `end_batch()` after each
// batch of up to `batch` records: from memory, or read from the changelog with a consumer (a
// batch per poll of up to kPollRecords). Returns when the records began to come (opening the
// log is not timed); nullopt if reading or `end_batch()` failed.
template <class Put, class EndBatch>
std::optional<Clock::time_point> feed(const Case& c, bool from_log, std::size_t batch, Put put,
                                      EndBatch end_batch) {
  const auto& w = c.workload();
  const std::int64_t records = c.records();
  if (!from_log) {
    const auto start = Clock::now();
    std::string value;
    for (std::int64_t i = 0; i < records; ++i) {
      c.value_of(i, value);
      put(std::string_view(w.keys[w.sequence[i]]), std::string_view(value));
      if ((i + 1) % batch == 0 || i + 1 == records) {
        if (!end_batch()) return std::nullopt;
      }
    }
    return start;
  }
  Data::get().write_changelog(c);
  auto log = Data::get().open();
  auto consumer = std::move(*log->make_consumer({.max_poll_records = kPollRecords}));
  (void)consumer->assign({{c.changelog(), brook::Partition(0)}});
  const auto start = Clock::now();
  std::int64_t seen = 0;
  std::string value;
  while (seen < records) {
    auto polled = consumer->poll(100ms);
    if (!polled || polled->empty()) return std::nullopt;  // the changelog ends early
    for (const auto& r : *polled) {
      value.resize(8);
      brook::internal::put_big_endian(value.data(), r.timestamp.value());
      put(std::string_view(*r.key), std::string_view(value.append(*r.value)));
    }
    seen += static_cast<std::int64_t>(polled->size());
    if (!end_batch()) return std::nullopt;
  }
  return start;
}

// The bulk load by SST ingestion (see the top of the file); the seconds it took, or -1.
double load_by_ingestion(const Case& c, bool from_log) {
  BenchDir dir("restore-bench-raw");
  const auto options = brook::bench::raw_rocksdb_options();
  auto db = brook::bench::open_raw_rocksdb(dir.path() / "db", options);
  std::unordered_map<std::string, std::string> latest;
  const auto start = feed(
      c, from_log, kPollRecords,
      [&](std::string_view key, std::string_view value) { latest[std::string(key)].assign(value); },
      [] { return true; });
  if (!start) return -1;
  std::vector<std::pair<std::string_view, std::string_view>> sorted(latest.begin(), latest.end());
  std::sort(sorted.begin(), sorted.end());
  if (!brook::bench::ingest_sorted(*db, options, dir.path() / "load.sst", sorted)) return -1;
  return seconds_since(*start);
}

// The bulk load with WriteBatches (see the top of the file); the seconds it took, or -1.
double load_by_batches(const Case& c) {
  BenchDir dir("restore-bench-raw");
  auto options = brook::bench::raw_rocksdb_options();
  options.disable_auto_compactions = true;
  auto db = brook::bench::open_raw_rocksdb(dir.path(), options);
  rocksdb::WriteOptions write_options;
  write_options.disableWAL = true;
  rocksdb::WriteBatch batch;
  const auto start = feed(
      c, false, kWriteBatch,
      [&](std::string_view key, std::string_view value) {
        batch
            .Put(rocksdb::Slice(key.data(), key.size()), rocksdb::Slice(value.data(), value.size()))
            .PermitUncheckedError();
      },
      [&] {
        const bool ok = db->Write(write_options, &batch).ok();
        batch.Clear();
        return ok;
      });
  if (!start) return -1;
  if (!db->Flush(rocksdb::FlushOptions()).ok()) return -1;
  if (!db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok()) return -1;
  return seconds_since(*start);
}

// Loads into a std::unordered_map; the seconds it took, or -1 (also if a key is missing).
double load_map(const Case& c, bool from_log) {
  std::unordered_map<std::string, std::string> entries;
  entries.reserve(c.records());
  const auto start = feed(
      c, from_log, kPollRecords,
      [&](std::string_view key, std::string_view value) {
        entries[std::string(key)].assign(value);
      },
      [] { return true; });
  if (!start) return -1;
  const double seconds = seconds_since(*start);
  return static_cast<std::int64_t>(entries.size()) == c.workload().distinct() ? seconds : -1;
}

template <class Load>
void run_baseline(benchmark::State& state, const Case& c, Load load) {
  for (auto _ : state) {
    const double seconds = load();
    if (seconds < 0) return state.SkipWithError("reading or writing failed");
    state.SetIterationTime(seconds);
  }
  state.SetItemsProcessed(state.iterations() * c.records());
}

void BM_BaselineRestoreRocksDb(benchmark::State& state) {
  run_baseline(state, kRestore, [] { return load_by_ingestion(kRestore, false); });
}
void BM_BaselineRestoreRocksDb_Batches(benchmark::State& state) {
  run_baseline(state, kRestore, [] { return load_by_batches(kRestore); });
}
void BM_BaselineRestoreRocksDb_App(benchmark::State& state) {
  run_baseline(state, kRestore, [] { return load_by_ingestion(kRestore, true); });
}
void BM_BaselineRestoreInMemory(benchmark::State& state) {
  run_baseline(state, kRestore, [] { return load_map(kRestore, false); });
}
void BM_BaselineRestoreInMemory_App(benchmark::State& state) {
  run_baseline(state, kRestore, [] { return load_map(kRestore, true); });
}
void BM_BaselineTable240MB(benchmark::State& state) {
  run_baseline(state, kTable, [] { return load_by_ingestion(kTable, false); });
}
void BM_BaselineTable240MBInMemory(benchmark::State& state) {
  run_baseline(state, kTable, [] { return load_map(kTable, false); });
}

BENCHMARK(BM_BrookRestoreRocksDb)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BrookRestoreInMemory)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BrookTable240MB)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BrookTable240MBInMemory)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineRestoreRocksDb)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineRestoreRocksDb_Batches)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineRestoreRocksDb_App)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineRestoreInMemory)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineRestoreInMemory_App)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineTable240MB)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineTable240MBInMemory)->Apply(brook::bench::one_timed_iteration);

}  // namespace

int main(int argc, char** argv) {
  return brook::bench::run_and_compare(argc, argv, {"--benchmark_repetitions=3"});
}
