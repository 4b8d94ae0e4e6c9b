// How long the embedded log takes to open a data dir of BROOK_OPEN_BYTES bytes of records
// (default 1 GiB): with the closed segments' index files, and without them (the open scans
// every segment and writes the indexes again, as a data dir from before indexes), next to the
// baseline of reading every byte of the segment files with pread() in 1 MiB chunks (the least
// a scan of the whole log costs). Each figure is the median of 3 runs; the files are in the
// page cache (just written), so this measures the work, not the disk, unless
// BROOK_OPEN_DROP_CACHES=1 (needs root) empties the page cache before each run.
//
// The data dir: one topic of 4 partitions, records of 16-byte keys and BROOK_OPEN_VALUE_BYTES
// values (default 100, a store's changelog record), segments of BROOK_OPEN_SEGMENT_BYTES
// (default 64 MiB, the embedded log's default). Written once, untimed. The scans' log lines
// are counted, not printed.
// Files go to $BROOK_BENCH_DIR, else the system temporary directory.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/embedded/embedded_log.h"
#include "bench_env.h"
#include "core/log.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using brook::bench::env_or;

constexpr std::int32_t kPartitions = 4;

// Fails the run with `what` unless `s` is OK.
void check(const brook::Status& s, const char* what) {
  if (s.ok()) return;
  fmt::print(stderr, "{}: {}\n", what, s.to_string());
  std::exit(1);
}

brook::internal::EmbeddedLogOptions options(const fs::path& dir) {
  return {.data_dir = dir, .maintenance_interval = 0ms};
}

void write_data_dir(const fs::path& dir, std::int64_t bytes, std::int64_t segment_bytes,
                    std::size_t value_bytes) {
  fs::remove_all(dir);
  auto log = brook::internal::open_embedded_log(options(dir));
  check(log ? brook::Status() : log.error(), "open");
  check((*log)->admin().create_topic(
            {"big", kPartitions, {{"segment.bytes", std::to_string(segment_bytes)}}}),
        "create_topic");
  auto producer = std::move(*(*log)->make_producer({}));
  const std::string value(value_bytes, 'v');
  const std::int64_t records = bytes / static_cast<std::int64_t>(value_bytes + 16 + 42);
  for (std::int64_t i = 0; i < records; ++i) {
    check(producer->send({.topic = "big",
                          .partition = brook::Partition(static_cast<std::int32_t>(i % kPartitions)),
                          .key = fmt::format("key-{:012}", i),
                          .value = value}),
          "send");
  }
  check(producer->flush(), "flush");
}

std::vector<fs::path> files_ending(const fs::path& dir, std::string_view suffix) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().string().ends_with(suffix)) out.push_back(entry.path());
  }
  return out;
}

// Writes back and drops the page cache (root only), if `drop`.
void drop_caches(bool drop) {
  if (!drop) return;
  ::sync();
  FILE* f = std::fopen("/proc/sys/vm/drop_caches", "w");
  if (f == nullptr || std::fputs("3\n", f) < 0 || std::fclose(f) != 0) {
    check(brook::Status::io_error("cannot write /proc/sys/vm/drop_caches (needs root)"), "drop");
  }
}

// The median of 3 runs of `run` (seconds), each after `prepare`.
double median_seconds(const std::function<void()>& prepare, const std::function<void()>& run) {
  std::vector<double> seconds;
  for (int i = 0; i < 3; ++i) {
    prepare();
    const auto start = std::chrono::steady_clock::now();
    run();
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[1];
}

void open_log(const fs::path& dir) {
  auto log = brook::internal::open_embedded_log(options(dir));
  check(log ? brook::Status() : log.error(), "open");
}

void read_every_byte(const std::vector<fs::path>& segments) {
  std::vector<char> buffer(std::size_t{1} << 20);
  std::int64_t total = 0;
  for (const auto& path : segments) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) check(brook::Status::io_error("open " + path.string()), "read");
    for (off_t position = 0;;) {
      const ssize_t n = ::pread(fd, buffer.data(), buffer.size(), position);
      if (n < 0) check(brook::Status::io_error("read " + path.string()), "read");
      if (n <= 0) break;
      position += n;
      total += n;
    }
    ::close(fd);
  }
  if (total == 0) check(brook::Status::internal("no bytes read"), "read");
}

}  // namespace

int main() {
  const std::int64_t bytes = env_or("BROOK_OPEN_BYTES", std::int64_t{1} << 30);
  const std::int64_t segment_bytes = env_or("BROOK_OPEN_SEGMENT_BYTES", std::int64_t{64} << 20);
  const auto value_bytes = static_cast<std::size_t>(env_or("BROOK_OPEN_VALUE_BYTES", 100));
  std::int64_t log_lines = 0;
  brook::internal::set_log_sink([&](brook::internal::LogLevel, std::string_view) { ++log_lines; });
  const char* base = std::getenv("BROOK_BENCH_DIR");
  const fs::path dir = fs::path(base ? base : fs::temp_directory_path().c_str()) /
                       ("brook-open-bench-" + std::to_string(::getpid()));
  write_data_dir(dir, bytes, segment_bytes, value_bytes);
  const auto segments = files_ending(dir, ".log");
  std::int64_t segment_total = 0;
  for (const auto& path : segments) segment_total += static_cast<std::int64_t>(fs::file_size(path));
  const auto indexes = files_ending(dir, ".index");
  const bool drop = env_or("BROOK_OPEN_DROP_CACHES", 0) != 0;
  fmt::print(
      "{} bytes in {} segment files ({} with an index), {} partitions, {}-byte values, "
      "page cache {}\n",
      segment_total, segments.size(), indexes.size(), kPartitions, value_bytes,
      env_or("BROOK_OPEN_DROP_CACHES", 0) ? "dropped before each run" : "warm");

  const double baseline =
      median_seconds([&] { drop_caches(drop); }, [&] { read_every_byte(segments); });
  const double indexed = median_seconds([&] { drop_caches(drop); }, [&] { open_log(dir); });
  const double scanned = median_seconds(
      [&] {
        for (const auto& index : files_ending(dir, ".index")) fs::remove(index);
        drop_caches(drop);
      },
      [&] { open_log(dir); });
  fmt::print("{:<44} | {:>9} | {:>26}\n", "case", "seconds", "ratio (baseline s / Brook s)");
  fmt::print("{}\n", std::string(85, '-'));
  fmt::print("{:<44} | {:>9.3f} | {:>26}\n", "baseline: pread every byte of every segment",
             baseline, "-");
  fmt::print("{:<44} | {:>9.3f} | {:>26.2f}\n", "open with the closed segments' indexes", indexed,
             baseline / indexed);
  fmt::print("{:<44} | {:>9.3f} | {:>26.2f}\n", "open without indexes (scan, write them)", scanned,
             baseline / scanned);
  fmt::print("log lines of the opens: {} (one per segment scanned to index it)\n", log_lines);
  fs::remove_all(dir);
  return 0;
}
