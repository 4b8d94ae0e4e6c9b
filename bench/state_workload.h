// The workload of the state benchmarks (state_count_bench, state_restore_bench): a sequence of
// records whose keys are drawn uniformly at random, with a fixed seed, from a set of distinct
// keys, so that every run and every side of a comparison sees the same keys in the same order.
#pragma once

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bench_env.h"
#include "brook/streams.h"
#include "streams_timing.h"

namespace brook::bench {

struct StateWorkload {
  std::vector<std::string> keys;          // "key-0000000", "key-0000001", ...: 11 bytes
  std::vector<std::uint32_t> sequence;    // the key (index into keys) of each record
  std::vector<std::uint32_t> occurrence;  // each record's count of its key so far, from 1
  std::vector<std::uint32_t> totals;      // each key's final count (0: never drawn)

  // The index of a key of `keys`; -1 for anything else.
  static std::int64_t index_of(std::string_view key) {
    std::int64_t index = -1;
    if (!key.starts_with("key-")) return -1;
    auto [end, ec] = std::from_chars(key.data() + 4, key.data() + key.size(), index);
    return ec == std::errc() && end == key.data() + key.size() ? index : -1;
  }
  std::int64_t distinct() const {
    std::int64_t n = 0;
    for (auto total : totals) n += total > 0;
    return n;
  }
};

// Why `count(key)` (the count of key in a store) does not give every key of `w` its total;
// empty if it does. `entries`: the number of keys in the store.
template <class Count>
std::string check_counts(const StateWorkload& w, std::int64_t entries, Count count) {
  if (entries != w.distinct()) {
    return "counted " + std::to_string(entries) + " keys, expected " + std::to_string(w.distinct());
  }
  for (std::size_t i = 0; i < w.keys.size(); ++i) {
    if (w.totals[i] > 0 && count(w.keys[i]) != static_cast<std::int64_t>(w.totals[i])) {
      return "wrong count of " + w.keys[i];
    }
  }
  return "";
}

// Runs the count application `app` until idle (streams_timing.h), checks its "counts" store
// against `w` and closes it: the seconds from RUNNING to lag 0, or what went wrong.
inline Result<double> run_and_check_counts(Streams& app, const StateWorkload& w) {
  auto seconds = run_until_idle(app);
  if (!seconds) return seconds;
  auto counts = app.store<std::string, std::int64_t>("counts");
  if (!counts) return error(counts.error());
  auto all = counts->all();
  if (!all) return error(all.error());
  std::unordered_map<std::string, std::int64_t> by_key;
  for (auto& kv : *all) by_key.emplace(std::move(kv.key), kv.value);
  const auto wrong = check_counts(w, static_cast<std::int64_t>(all->size()),
                                  [&](const std::string& key) { return by_key[key]; });
  if (!wrong.empty()) return error(Status::internal(wrong));
  if (auto s = app.close(); !s.ok()) return error(s);
  return seconds;
}

// Numbers the runs of the process, for fresh application ids and consumer groups.
inline int next_run() {
  static int runs = 0;
  return ++runs;
}

// A table row's value: "<name>-<n>" padded with '.' to `bytes` bytes.
inline std::string padded_value(std::string_view name, std::int64_t n, std::size_t bytes = 100) {
  std::string value = std::string(name) + "-" + std::to_string(n);
  value.resize(bytes, '.');
  return value;
}

// `keys` keys and no records yet.
inline StateWorkload make_keys(std::int64_t keys) {
  StateWorkload w;
  w.keys.reserve(keys);
  char buf[32];
  for (std::int64_t i = 0; i < keys; ++i) {
    std::snprintf(buf, sizeof buf, "key-%07lld", static_cast<long long>(i));
    w.keys.emplace_back(buf);
  }
  w.totals.assign(keys, 0);
  return w;
}

// `records` records over `keys` keys; std::mt19937_64 seeded with 42, uniform.
inline StateWorkload make_workload(std::int64_t records, std::int64_t keys) {
  StateWorkload w = make_keys(keys);
  std::mt19937_64 random(42);
  std::uniform_int_distribution<std::uint32_t> pick(0, static_cast<std::uint32_t>(keys - 1));
  w.sequence.reserve(records);
  w.occurrence.reserve(records);
  for (std::int64_t i = 0; i < records; ++i) {
    const std::uint32_t key = pick(random);
    w.sequence.push_back(key);
    w.occurrence.push_back(++w.totals[key]);
  }
  return w;
}

// The rows of a table: one record per key, in an order shuffled with std::mt19937_64 seeded
// with 42.
inline StateWorkload make_table_workload(std::int64_t keys) {
  StateWorkload w = make_keys(keys);
  w.sequence.resize(keys);
  std::iota(w.sequence.begin(), w.sequence.end(), 0);
  std::shuffle(w.sequence.begin(), w.sequence.end(), std::mt19937_64(42));
  w.occurrence.assign(keys, 1);
  w.totals.assign(keys, 1);
  return w;
}

// A directory under $BROOK_BENCH_DIR, else the system's temporary directory, made empty on
// construction and removed on destruction.
class BenchDir {
 public:
  explicit BenchDir(const std::string& name) {
    const char* base = std::getenv("BROOK_BENCH_DIR");
    path_ = std::filesystem::path(base ? base : std::filesystem::temp_directory_path().c_str()) /
            ("brook-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~BenchDir() { std::filesystem::remove_all(path_); }
  BenchDir(const BenchDir&) = delete;
  BenchDir& operator=(const BenchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// One iteration is one whole run (a pass over the input, a whole restoration) that the
// benchmark times itself; main() asks for 3 repetitions (not compare.h's 5).
inline void one_timed_iteration(benchmark::internal::Benchmark* b) {
  b->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
}

}  // namespace brook::bench
