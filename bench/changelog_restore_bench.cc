// What a fresh instance restores from a changelog on the embedded log after many updates of few
// keys and the log's maintenance: the records it reads and the time it takes, next to the
// baseline of the live keys (the least any restore must read), with their ratio.
//
// Each case creates a one-partition topic with the configs below, appends kUpdates updates of
// kKeys keys (16-byte keys, 8-byte values, in batches of 1000, as a count store's changelog
// gets them), runs maintenance every kUpdates / 10 updates and once at the end (as the
// background maintenance would), closes the log, then opens it again and times reading the
// whole partition into a hash map (key -> newest value): the restore of an in-memory store. It
// also counts the records read from the active segment, which compaction never touches (its
// size is bounded by segment.bytes and segment.ms): the target is at most 2 x the live keys
// beyond it.
//   before  {cleanup.policy=compact}: what changelogs got before they had segment configs.
//   after   what src/runtime/streams.cc gives changelogs now: cleanup.policy=compact,
//           segment.bytes=4 MiB, segment.ms=10 min (and min.cleanable.dirty.ratio 0.5).
// BROOK_CHANGELOG_UPDATES and BROOK_CHANGELOG_KEYS change the sizes (defaults 2.7 M and 10 k).
// Files go to $BROOK_BENCH_DIR, else the system temporary directory.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/embedded/embedded_log.h"
#include "bench_env.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

using brook::bench::env_or;

brook::Timestamp wall_clock() {
  return brook::Timestamp(std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count());
}

struct Restore {
  std::int64_t records = 0;
  std::int64_t active = 0;  // of them, read from the active segment
  std::int64_t keys = 0;
  double seconds = 0;
};

// The base offset of the active (newest) segment of partition 0 of `topic`: segment files are
// named by their base offset (docs/log_format.md).
std::int64_t active_segment_base(const fs::path& data_dir, const std::string& topic) {
  std::int64_t base = 0;
  for (const auto& file : fs::directory_iterator(data_dir / "topics" / topic / "0")) {
    if (file.path().extension() == ".log") {
      base = std::max<std::int64_t>(base, std::stoll(file.path().stem().string()));
    }
  }
  return base;
}

// Fails the run with `what` unless `s` is OK.
void check(const brook::Status& s, const char* what) {
  if (s.ok()) return;
  fmt::print(stderr, "{}: {}\n", what, s.to_string());
  std::exit(1);
}

Restore run_case(const fs::path& dir, const std::map<std::string, std::string>& configs,
                 std::int64_t updates, std::int64_t keys) {
  fs::remove_all(dir);
  const brook::internal::EmbeddedLogOptions options{.data_dir = dir, .maintenance_interval = 0ms};
  {
    auto log = brook::internal::open_embedded_log(options);
    check(log ? brook::Status() : log.error(), "open");
    check((*log)->admin().create_topic({"changelog", 1, configs}), "create_topic");
    auto producer = std::move(*(*log)->make_producer({}));
    const std::int64_t maintenance_every = std::max<std::int64_t>(1, updates / 10);
    for (std::int64_t i = 0; i < updates; ++i) {
      const std::int64_t value = i / keys + 1;
      check(producer->send({.topic = "changelog",
                            .partition = brook::Partition(0),
                            .key = fmt::format("key-{:012}", i % keys),
                            .value = std::string(reinterpret_cast<const char*>(&value), 8)}),
            "send");
      if ((i + 1) % 1000 == 0) check(producer->flush(), "flush");
      if ((i + 1) % maintenance_every == 0) check((*log)->run_maintenance(wall_clock()), "maint");
    }
    check(producer->flush(), "flush");
    check((*log)->run_maintenance(wall_clock()), "maintenance");
  }
  const auto start = std::chrono::steady_clock::now();
  auto log = brook::internal::open_embedded_log(options);
  check(log ? brook::Status() : log.error(), "reopen");
  auto consumer = std::move(*(*log)->make_consumer({.client_id = "restore"}));
  check(consumer->assign({{"changelog", brook::Partition(0)}}), "assign");
  const auto end = *(*log)->admin().list_offset(
      {"changelog", brook::Partition(0)}, {.kind = brook::internal::OffsetSpec::Kind::kLatest});
  const std::int64_t active_base = active_segment_base(dir, "changelog");
  std::unordered_map<std::string, std::string> store;
  Restore restore;
  for (;;) {
    auto records = consumer->poll(0ms);
    check(records ? brook::Status() : records.error(), "poll");
    if (records->empty() && *consumer->position({"changelog", brook::Partition(0)}) >= end) break;
    for (auto& r : *records) {
      ++restore.records;
      if (r.offset.value() >= active_base) ++restore.active;
      if (r.value) {
        store[std::move(*r.key)] = std::move(*r.value);
      } else {
        store.erase(*r.key);
      }
    }
  }
  restore.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  restore.keys = static_cast<std::int64_t>(store.size());
  return restore;
}

}  // namespace

int main() {
  const std::int64_t updates = env_or("BROOK_CHANGELOG_UPDATES", 2'700'000);
  const std::int64_t keys = env_or("BROOK_CHANGELOG_KEYS", 10'000);
  const char* base = std::getenv("BROOK_BENCH_DIR");
  const fs::path dir = fs::path(base ? base : fs::temp_directory_path().c_str()) /
                       ("brook-changelog-bench-" + std::to_string(::getpid()));
  const std::vector<std::pair<std::string, std::map<std::string, std::string>>> cases{
      {"before", {{"cleanup.policy", "compact"}}},
      {"after",
       {{"cleanup.policy", "compact"}, {"segment.bytes", "4194304"}, {"segment.ms", "600000"}}}};
  fmt::print("{} updates of {} keys; a fresh instance restores the changelog after maintenance\n",
             updates, keys);
  fmt::print("{:<8} | {:>16} | {:>20} | {:>22} | {:>10} | {:>14} | {:>24}\n", "case",
             "records restored", "baseline: live keys", "ratio (brook/baseline)", "restore s",
             "active segment", "beyond it / live keys");
  fmt::print("{}\n", std::string(135, '-'));
  for (const auto& [name, configs] : cases) {
    const Restore r = run_case(dir, configs, updates, keys);
    const auto per_key = [&](std::int64_t n) {
      return static_cast<double>(n) / static_cast<double>(r.keys);
    };
    fmt::print("{:<8} | {:>16} | {:>20} | {:>22.2f} | {:>10.3f} | {:>14} | {:>24.2f}\n", name,
               r.records, r.keys, per_key(r.records), r.seconds, r.active,
               per_key(r.records - r.active));
  }
  fs::remove_all(dir);
  return 0;
}
