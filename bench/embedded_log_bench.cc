// Append and read rates of the embedded log (PartitionLog), each next to a baseline that moves
// the same payload through a plain file on the same disk with the same number of syscalls,
// measured in the same run (DESIGN.md: Conventions).
//
// Records have a 16-byte key and a 100-byte value (116 payload bytes; 158 bytes in a segment
// file with the frame header and fixed fields, docs/log_format.md). items/s = records/s and
// bytes/s = payload bytes/s on both sides, so the two MB/s figures compare like for like.
//   LogAppend       Brook: PartitionLog::append of a batch of kBatch records (one write()).
//                   Baseline: the batch's keys and values gathered into one buffer and written
//                   with one write() to a file opened O_APPEND: the least any log must do.
//   LogAppendFsync  The same, with PartitionLog::flush() (fsync_on_flush) / fsync() per batch:
//                   the disk's real write rate rather than the page cache's.
//   ProducerSend    Brook: Producer::send of kBatch records, each as views of its key and value
//                   (as a sink sends them), then dispatch() (as a stream thread does after a
//                   poll): the producer's copy into its buffer, the partitioner and the append.
//                   Baseline: PartitionLog::append of the same records built beforehand (as
//                   LogAppend): what the producer adds to the log's own append.
//   LogRead         Brook: PartitionLog::read of about 1 MiB from a log of kReadRecords records,
//                   every record checked and decoded, its key and value copied into the
//                   batch's memory. Baseline: pread() of the same
//                   number of payload bytes from a file holding them. Both files were just
//                   written, so both read from the page cache.
// Files go to $BROOK_BENCH_DIR, else the system temporary directory.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "backend/embedded/embedded_log.h"
#include "backend/embedded/partition_log.h"
#include "compare.h"

namespace {

namespace fs = std::filesystem;
using brook::Offset;
using brook::Timestamp;
using brook::internal::PartitionLog;
using brook::internal::PartitionLogConfig;
using brook::internal::StoredRecord;

constexpr std::size_t kKeyBytes = 16;
constexpr std::size_t kValueBytes = 100;
constexpr std::size_t kPayloadBytes = kKeyBytes + kValueBytes;
constexpr std::size_t kBatch = 1000;
constexpr std::int64_t kReadRecords = 400'000;
constexpr std::size_t kReadMaxBytes = std::size_t{1} << 20;
constexpr std::size_t kFrameOverhead = 12 + 30;  // frame header + fixed body fields

// A fresh directory for one benchmark run, removed afterwards.
class ScratchDir {
 public:
  explicit ScratchDir(const char* name) {
    const char* base = std::getenv("BROOK_BENCH_DIR");
    path_ = fs::path(base ? base : fs::temp_directory_path().c_str()) /
            ("brook-log-bench-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::vector<StoredRecord> make_batch(std::size_t n, std::int64_t seed) {
  std::vector<StoredRecord> batch;
  batch.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    char key[kKeyBytes + 1];
    std::snprintf(key, sizeof key, "key-%012lld", static_cast<long long>(seed + i));
    std::string value(kValueBytes, static_cast<char>('a' + (seed + i) % 26));
    batch.push_back({.timestamp = Timestamp(1'700'000'000'000 + seed + i),
                     .key = std::string(key, kKeyBytes),
                     .value = std::move(value)});
  }
  return batch;
}

// What the baseline writes for a batch: every key and value, back to back.
void gather_payload(const std::vector<StoredRecord>& batch, std::string& out) {
  out.resize(batch.size() * kPayloadBytes);
  char* p = out.data();
  for (const StoredRecord& r : batch) {
    std::memcpy(p, r.key->data(), kKeyBytes);
    std::memcpy(p + kKeyBytes, r.value->data(), kValueBytes);
    p += kPayloadBytes;
  }
}

void set_rates(benchmark::State& state, std::int64_t records) {
  state.SetItemsProcessed(records);
  state.SetBytesProcessed(records * static_cast<std::int64_t>(kPayloadBytes));
}

void brook_append(benchmark::State& state, bool fsync) {
  ScratchDir dir(fsync ? "brook-append-fsync" : "brook-append");
  auto log = PartitionLog::open(dir.path(), PartitionLogConfig{.fsync_on_flush = fsync});
  if (!log) return state.SkipWithError(log.error().to_string().c_str());
  const std::vector<StoredRecord> batch = make_batch(kBatch, 0);
  for (auto _ : state) {
    auto first = (*log)->append(batch);
    if (!first) return state.SkipWithError(first.error().to_string().c_str());
    if (fsync) {
      if (auto s = (*log)->flush(); !s.ok()) return state.SkipWithError(s.to_string().c_str());
    }
  }
  set_rates(state, static_cast<std::int64_t>(state.iterations() * kBatch));
  state.counters["file_bytes_per_record"] = static_cast<double>(kPayloadBytes + kFrameOverhead);
}

void baseline_append(benchmark::State& state, bool fsync) {
  ScratchDir dir(fsync ? "baseline-append-fsync" : "baseline-append");
  const fs::path file = dir.path() / "raw.data";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return state.SkipWithError("open failed");
  const std::vector<StoredRecord> batch = make_batch(kBatch, 0);
  std::string buffer;
  for (auto _ : state) {
    gather_payload(batch, buffer);
    if (::write(fd, buffer.data(), buffer.size()) != static_cast<ssize_t>(buffer.size())) {
      ::close(fd);
      return state.SkipWithError("write failed");
    }
    if (fsync && ::fsync(fd) != 0) {
      ::close(fd);
      return state.SkipWithError("fsync failed");
    }
  }
  ::close(fd);
  set_rates(state, static_cast<std::int64_t>(state.iterations() * kBatch));
  state.counters["file_bytes_per_record"] = static_cast<double>(kPayloadBytes);
}

void BM_BrookLogAppend(benchmark::State& state) { brook_append(state, false); }
void BM_BaselineLogAppend(benchmark::State& state) { baseline_append(state, false); }
void BM_BrookLogAppendFsync(benchmark::State& state) { brook_append(state, true); }
void BM_BaselineLogAppendFsync(benchmark::State& state) { baseline_append(state, true); }

void BM_BrookProducerSend(benchmark::State& state) {
  ScratchDir dir("brook-producer");
  auto log = brook::internal::open_embedded_log({.data_dir = dir.path()});
  if (!log) return state.SkipWithError(log.error().to_string().c_str());
  if (auto s = (*log)->admin().create_topic({"t", 1}); !s.ok()) {
    return state.SkipWithError(s.to_string().c_str());
  }
  auto producer = (*log)->make_producer({});
  if (!producer) return state.SkipWithError(producer.error().to_string().c_str());
  const std::vector<StoredRecord> batch = make_batch(kBatch, 0);
  const std::string topic = "t";
  for (auto _ : state) {
    for (const StoredRecord& r : batch) {
      const brook::OutgoingRecord out{.timestamp = r.timestamp, .key = *r.key, .value = *r.value};
      if (auto s = (*producer)->send(topic, out); !s.ok()) {
        return state.SkipWithError(s.to_string().c_str());
      }
    }
    if (auto s = (*producer)->dispatch(); !s.ok())
      return state.SkipWithError(s.to_string().c_str());
  }
  set_rates(state, static_cast<std::int64_t>(state.iterations() * kBatch));
}
void BM_BaselineProducerSend(benchmark::State& state) { brook_append(state, false); }

void BM_BrookLogRead(benchmark::State& state) {
  ScratchDir dir("brook-read");
  auto log = PartitionLog::open(dir.path(), {});
  if (!log) return state.SkipWithError(log.error().to_string().c_str());
  for (std::int64_t n = 0; n < kReadRecords; n += kBatch) {
    if (!(*log)->append(make_batch(kBatch, n))) return state.SkipWithError("append failed");
  }
  std::int64_t from = 0;
  std::int64_t records = 0;
  for (auto _ : state) {
    auto read = (*log)->read(Offset(from), kReadMaxBytes);
    if (!read || read->records.empty()) return state.SkipWithError("read failed");
    records += static_cast<std::int64_t>(read->records.size());
    from = read->records.back().offset.value() + 1;
    if (from >= kReadRecords) from = 0;
    benchmark::DoNotOptimize(read->records.back().value->data());
  }
  set_rates(state, records);
}

void BM_BaselineLogRead(benchmark::State& state) {
  ScratchDir dir("baseline-read");
  const fs::path file = dir.path() / "raw.data";
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return state.SkipWithError("open failed");
  std::string buffer;
  for (std::int64_t n = 0; n < kReadRecords; n += kBatch) {
    gather_payload(make_batch(kBatch, n), buffer);
    if (::write(fd, buffer.data(), buffer.size()) != static_cast<ssize_t>(buffer.size())) {
      ::close(fd);
      return state.SkipWithError("write failed");
    }
  }
  // As many records per read as Brook returns for kReadMaxBytes of its (larger) frames.
  const std::size_t per_read = kReadMaxBytes / (kPayloadBytes + kFrameOverhead) + 1;
  std::string chunk(per_read * kPayloadBytes, '\0');
  std::int64_t from = 0;
  std::int64_t records = 0;
  for (auto _ : state) {
    const ssize_t got =
        ::pread(fd, chunk.data(), chunk.size(), from * static_cast<std::int64_t>(kPayloadBytes));
    if (got <= 0) {
      ::close(fd);
      return state.SkipWithError("read failed");
    }
    const auto n = static_cast<std::int64_t>(got) / static_cast<std::int64_t>(kPayloadBytes);
    records += n;
    from += n;
    if (from >= kReadRecords) from = 0;
    benchmark::DoNotOptimize(chunk.data());
  }
  ::close(fd);
  set_rates(state, records);
}

// Wall-clock rates: the time spent waiting for the disk counts.
BENCHMARK(BM_BrookLogAppend)->UseRealTime();
BENCHMARK(BM_BaselineLogAppend)->UseRealTime();
BENCHMARK(BM_BrookLogAppendFsync)->UseRealTime();
BENCHMARK(BM_BaselineLogAppendFsync)->UseRealTime();
BENCHMARK(BM_BrookProducerSend)->UseRealTime();
BENCHMARK(BM_BaselineProducerSend)->UseRealTime();
BENCHMARK(BM_BrookLogRead)->UseRealTime();
BENCHMARK(BM_BaselineLogRead)->UseRealTime();

}  // namespace

int main(int argc, char** argv) { return brook::bench::run_and_compare(argc, argv); }
