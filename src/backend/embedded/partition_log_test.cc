#include "backend/embedded/partition_log.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "backend/embedded/checksummed_file.h"
#include "backend/embedded/partition_log_impl.h"
#include "backend/embedded/record_format.h"
#include "backend/embedded/segment.h"
#include "core/wall_clock.h"
#include "log_capture.h"
#include "scratch_dir.h"

namespace brook::internal {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

StoredRecord rec(std::optional<std::string> key, std::optional<std::string> value,
                 std::int64_t timestamp = 0, Headers headers = {}) {
  return {.timestamp = Timestamp(timestamp),
          .key = std::move(key),
          .value = std::move(value),
          .headers = std::move(headers)};
}

// PartitionLog::read with each record's key and value copied out of the batch.
Result<std::vector<StoredRecord>> read_owned(const PartitionLog& log, Offset from,
                                             std::size_t max_bytes) {
  auto batch = log.read(from, max_bytes);
  if (!batch) return error(std::move(batch.error()));
  std::vector<StoredRecord> records;
  for (auto& r : batch->records) {
    records.push_back({.offset = r.offset,
                       .timestamp = r.timestamp,
                       .key = owned(r.key),
                       .value = owned(r.value),
                       .headers = std::move(r.headers)});
  }
  return records;
}

// "value-<offset>" padded to about 100 bytes, so tests can check what they read.
std::string value_for(std::int64_t offset) {
  std::string value = "value-" + std::to_string(offset) + "-";
  value.resize(100, 'x');
  return value;
}

// Reads `log` from offset 0 to its end, `max_bytes` at a time, passing each record to `each`;
// false (with a test failure) if a read fails, offsets do not ascend or a value is not
// value_for(its offset).
bool read_through_checked(const PartitionLog& log, std::size_t max_bytes,
                          const std::function<void(const StoredRecord&)>& each) {
  std::int64_t previous = -1;
  for (Offset from(0);;) {
    auto batch = read_owned(log, from, max_bytes);
    if (!batch) {
      ADD_FAILURE() << batch.error().to_string();
      return false;
    }
    if (batch->empty()) return true;
    for (const auto& r : *batch) {
      if (r.offset.value() <= previous || r.value != value_for(r.offset.value())) {
        ADD_FAILURE() << "bad record at offset " << r.offset.value();
        return false;
      }
      previous = r.offset.value();
      each(r);
    }
    from = Offset(previous + 1);
  }
}

std::vector<std::string> segment_files(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".log")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

void flip_byte(const fs::path& file, std::int64_t position) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(position);
  char c = 0;
  f.get(c);
  f.seekp(position);
  f.put(static_cast<char>(c ^ 0x5a));
}

void append_bytes(const fs::path& file, const std::string& bytes) {
  std::ofstream f(file, std::ios::app | std::ios::binary);
  f << bytes;
}

class PartitionLogTest : public ::testing::Test {
 protected:
  std::unique_ptr<PartitionLog> open_log(PartitionLogConfig config = {}) {
    auto log = PartitionLog::open(dir_, config);
    EXPECT_TRUE(log.has_value()) << log.error().to_string();
    return log ? std::move(*log) : nullptr;
  }

  // Appends `n` records, one per call, keyed "k<offset>" with value_for(offset) and
  // timestamp 1000 + offset.
  static void append_numbered(PartitionLog& log, int n) {
    for (int i = 0; i < n; ++i) {
      const std::int64_t offset = log.end_offset().value();
      const StoredRecord record =
          rec("k" + std::to_string(offset), value_for(offset), 1000 + offset);
      ASSERT_TRUE(log.append({&record, 1}).has_value());
    }
  }

  static std::vector<StoredRecord> read_all(const PartitionLog& log, Offset from = Offset(0)) {
    std::vector<StoredRecord> all;
    for (;;) {
      auto batch = read_owned(log, from, 4096);
      EXPECT_TRUE(batch.has_value()) << batch.error().to_string();
      if (!batch || batch->empty()) return all;
      from = Offset(batch->back().offset.value() + 1);
      for (auto& r : *batch) all.push_back(std::move(r));
    }
  }

  static std::vector<std::int64_t> offsets(const std::vector<StoredRecord>& records) {
    std::vector<std::int64_t> out;
    for (const auto& r : records) out.push_back(r.offset.value());
    return out;
  }

  // The one segment file of tests that never roll.
  fs::path only_segment() const {
    const auto files = segment_files(dir_);
    EXPECT_EQ(files.size(), 1u);
    return dir_ / files.front();
  }

  brook::testing::ScratchDir scratch_{"brook-plog"};
  const fs::path dir_ = scratch_.path();
};

TEST_F(PartitionLogTest, AppendThenReadRoundTripsNullsAndHeaders) {
  auto log = open_log();
  const std::vector<StoredRecord> records = {
      rec("k1", "v1", 10, {{"h", "x"}, {"h", std::nullopt}, {"other", ""}}),
      rec(std::nullopt, "no key", 11),
      rec("tombstone", std::nullopt, 12),
      rec(std::nullopt, std::nullopt, 13),
      rec("", "", 14),
  };
  auto first = log->append(records);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(*first, Offset(0));
  EXPECT_EQ(log->end_offset(), Offset(5));
  EXPECT_EQ(log->start_offset(), Offset(0));

  auto read = read_owned(*log, Offset(0), 1 << 20);
  ASSERT_TRUE(read.has_value());
  ASSERT_EQ(read->size(), records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ((*read)[i].offset, Offset(static_cast<std::int64_t>(i)));
    EXPECT_EQ((*read)[i].timestamp, records[i].timestamp);
    EXPECT_EQ((*read)[i].key, records[i].key);
    EXPECT_EQ((*read)[i].value, records[i].value);
    EXPECT_EQ((*read)[i].headers, records[i].headers);
  }
}

TEST_F(PartitionLogTest, AppendAssignsConsecutiveOffsetsAndReturnsTheFirst) {
  auto log = open_log();
  std::vector<StoredRecord> batch(3, rec("k", "v"));
  batch[1].offset = Offset(999);  // ignored
  EXPECT_EQ(log->append(batch), Offset(0));
  EXPECT_EQ(log->append(batch), Offset(3));
  EXPECT_EQ(log->append(std::vector<StoredRecord>()), Offset(6));
  EXPECT_EQ(offsets(read_all(*log)), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));
}

TEST_F(PartitionLogTest, OffsetsContinueAcrossSegmentRolls) {
  auto log = open_log({.segment_bytes = 1000});
  append_numbered(*log, 30);
  std::vector<StoredRecord> batch;
  for (int i = 0; i < 20; ++i) batch.push_back(rec("b", value_for(30 + i), 2000));
  EXPECT_EQ(log->append(batch), Offset(30));  // one batch spanning several segments

  const auto files = segment_files(dir_);
  EXPECT_GT(files.size(), 5u);
  EXPECT_EQ(files.front(), "00000000000000000000.log");
  for (const auto& name : files) EXPECT_LE(fs::file_size(dir_ / name), 1000u) << name;

  const auto all = read_all(*log);
  ASSERT_EQ(all.size(), 50u);
  for (std::int64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(all[i].offset, Offset(i));
    EXPECT_EQ(all[i].value, value_for(i));
  }
  std::int64_t total = 0;
  for (const auto& name : files) total += static_cast<std::int64_t>(fs::file_size(dir_ / name));
  EXPECT_EQ(log->size_bytes(), total);
}

TEST_F(PartitionLogTest, ReadFromAnyOffsetStartsAtThatRecord) {
  auto log = open_log({.segment_bytes = 64 << 10});
  std::vector<StoredRecord> batch;
  for (int i = 0; i < 2000; ++i) batch.push_back(rec("k", value_for(i), i));
  ASSERT_TRUE(log->append(batch).has_value());
  for (std::int64_t from : {0, 1, 25, 26, 27, 400, 401, 999, 1000, 1500, 1999}) {
    auto read = read_owned(*log, Offset(from), 1);
    ASSERT_TRUE(read.has_value());
    ASSERT_EQ(read->size(), 1u) << from;
    EXPECT_EQ(read->front().offset, Offset(from));
    EXPECT_EQ(read->front().value, value_for(from));
  }
}

// A batch's records view bytes the batch owns: they outlive later reads (which reuse the
// reading thread's buffer), the log itself, and a move of the batch; a key or value larger
// than the batch's first block gets a block of its own.
TEST_F(PartitionLogTest, ABatchsRecordsStayValidAfterLaterReadsAndTheLogsClose) {
  auto log = open_log();
  append_numbered(*log, 50);
  const StoredRecord large = rec("large", std::string(300'000, 'L'));
  ASSERT_TRUE(log->append({&large, 1}).has_value());
  auto first = log->read(Offset(0), 2000);
  ASSERT_TRUE(first.has_value());
  ASSERT_GE(first->records.size(), 2u);
  auto rest = log->read(Offset(0), 1 << 20);
  ASSERT_TRUE(rest.has_value());
  log.reset();
  const RecordBatch moved = std::move(*first);
  for (const ConsumedRecord& r : moved.records) {
    EXPECT_EQ(r.key, "k" + std::to_string(r.offset.value()));
    EXPECT_EQ(r.value, value_for(r.offset.value()));
  }
  ASSERT_EQ(rest->records.size(), 51u);
  EXPECT_EQ(rest->records.back().value, large.value);
  EXPECT_EQ(rest->records[49].value, value_for(49));
}

// A record past the bytes a read brought in is not read by moving the batch's bytes (its earlier
// records view them): it comes with a later read, and every batch stays intact.
TEST_F(PartitionLogTest, ARecordPastTheBytesReadComesWithALaterReadAndBatchesStayIntact) {
  auto log = open_log();
  append_numbered(*log, 50);
  const StoredRecord large = rec("large", std::string(300'000, 'L'));
  ASSERT_TRUE(log->append({&large, 1}).has_value());
  append_numbered(*log, 5);
  std::vector<RecordBatch> batches;
  for (std::int64_t next = 0; next < log->end_offset().value();) {
    auto batch = log->read(Offset(next), 100'000);
    ASSERT_TRUE(batch.has_value());
    ASSERT_FALSE(batch->records.empty());
    ASSERT_EQ(batch->records.front().offset, Offset(next));
    next = batch->records.back().offset.value() + 1;
    batches.push_back(std::move(*batch));
  }
  ASSERT_GE(batches.size(), 2u);
  std::int64_t expected = 0;
  for (const RecordBatch& batch : batches) {
    for (const ConsumedRecord& r : batch.records) {
      ASSERT_EQ(r.offset, Offset(expected));
      if (expected == 50) {
        EXPECT_EQ(r.value, large.value);
      } else {
        EXPECT_EQ(r.key, "k" + std::to_string(expected));
        EXPECT_EQ(r.value, value_for(expected));
      }
      ++expected;
    }
  }
  EXPECT_EQ(expected, 56);
}

TEST_F(PartitionLogTest, ReadReturnsAboutMaxBytesButAlwaysAtLeastOneRecord) {
  auto log = open_log();
  std::vector<StoredRecord> batch(100, rec("key", std::string(1000, 'v')));
  ASSERT_TRUE(log->append(batch).has_value());
  auto one = read_owned(*log, Offset(0), 1);
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->size(), 1u);
  auto some = read_owned(*log, Offset(10), 10'000);
  ASSERT_TRUE(some.has_value());
  EXPECT_GE(some->size(), 9u);
  EXPECT_LE(some->size(), 10u);
  EXPECT_EQ(some->front().offset, Offset(10));
}

TEST_F(PartitionLogTest, ReadBelowStartReadsFromStartAndAtOrPastEndIsEmpty) {
  auto log = open_log();
  append_numbered(*log, 10);
  ASSERT_TRUE(log->delete_records_before(Offset(4)).ok());
  auto below = read_owned(*log, Offset(0), 1 << 20);
  ASSERT_TRUE(below.has_value());
  ASSERT_FALSE(below->empty());
  EXPECT_EQ(below->front().offset, Offset(4));
  EXPECT_EQ(below->size(), 6u);
  for (std::int64_t from : {10, 11, 1000}) {
    auto past = read_owned(*log, Offset(from), 1 << 20);
    ASSERT_TRUE(past.has_value());
    EXPECT_TRUE(past->empty()) << from;
  }
}

TEST_F(PartitionLogTest, ReopenGivesTheSameRecordsAndEndOffset) {
  std::vector<StoredRecord> before;
  {
    auto log = open_log({.segment_bytes = 2000});
    append_numbered(*log, 40);
    const StoredRecord extra = rec(std::nullopt, std::nullopt, 5, {{"h", std::nullopt}});
    ASSERT_TRUE(log->append({&extra, 1}).has_value());
    ASSERT_TRUE(log->flush().ok());
    before = read_all(*log);
  }
  auto log = open_log({.segment_bytes = 2000});
  EXPECT_EQ(log->end_offset(), Offset(41));
  const auto after = read_all(*log);
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].offset, before[i].offset);
    EXPECT_EQ(after[i].timestamp, before[i].timestamp);
    EXPECT_EQ(after[i].key, before[i].key);
    EXPECT_EQ(after[i].value, before[i].value);
    EXPECT_EQ(after[i].headers, before[i].headers);
  }
  EXPECT_EQ(log->append(std::vector<StoredRecord>{rec("k", "v")}), Offset(41));
}

TEST_F(PartitionLogTest, TornTailIsTruncatedOnOpenAndAppendsContinueAtTheRightOffset) {
  std::uintmax_t intact_size = 0;
  {
    auto log = open_log();
    append_numbered(*log, 5);
    intact_size = fs::file_size(only_segment());
    append_numbered(*log, 1);
  }
  // Cut the last record short, as a write interrupted by a crash would.
  fs::resize_file(only_segment(), fs::file_size(only_segment()) - 7);
  auto log = open_log();
  EXPECT_EQ(fs::file_size(only_segment()), intact_size);
  EXPECT_EQ(log->end_offset(), Offset(5));
  EXPECT_EQ(log->append(std::vector<StoredRecord>{rec("new", "after the tear")}), Offset(5));
  const auto all = read_all(*log);
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[4].value, value_for(4));
  EXPECT_EQ(all[5].value, "after the tear");
}

TEST_F(PartitionLogTest, TornFrameHeaderIsTruncatedOnOpen) {
  {
    auto log = open_log();
    append_numbered(*log, 3);
  }
  const auto size = fs::file_size(only_segment());
  append_bytes(only_segment(), std::string("\x20\x00\x00", 3));  // 3 of a header's 12 bytes
  auto log = open_log();
  EXPECT_EQ(fs::file_size(only_segment()), size);
  EXPECT_EQ(log->end_offset(), Offset(3));
}

TEST_F(PartitionLogTest, GarbageAfterTheLastRecordIsTruncatedOnOpen) {
  {
    auto log = open_log();
    append_numbered(*log, 5);
  }
  const auto size = fs::file_size(only_segment());
  std::mt19937 rng(3);
  std::string garbage(5000, '\0');
  for (char& c : garbage) c = static_cast<char>(rng());
  append_bytes(only_segment(), garbage);
  auto log = open_log();
  EXPECT_EQ(fs::file_size(only_segment()), size);
  EXPECT_EQ(log->end_offset(), Offset(5));
  EXPECT_EQ(read_all(*log).size(), 5u);
}

TEST_F(PartitionLogTest, ZeroFilledTailIsTruncatedOnOpen) {
  {
    auto log = open_log();
    append_numbered(*log, 5);
  }
  const auto size = fs::file_size(only_segment());
  append_bytes(only_segment(), std::string(4096, '\0'));
  auto log = open_log();
  EXPECT_EQ(fs::file_size(only_segment()), size);
  EXPECT_EQ(log->end_offset(), Offset(5));
}

TEST_F(PartitionLogTest, DamagedLastRecordOfTheLastSegmentIsATornTail) {
  {
    auto log = open_log();
    append_numbered(*log, 5);
  }
  const auto size = fs::file_size(only_segment());
  flip_byte(only_segment(), static_cast<std::int64_t>(size) - 3);  // in the last value
  auto log = open_log();
  EXPECT_EQ(log->end_offset(), Offset(4));
}

TEST_F(PartitionLogTest, FlippedByteInAMiddleRecordIsCorruptionNamingFileAndPosition) {
  std::int64_t third_record = 0;
  {
    auto log = open_log();
    append_numbered(*log, 2);
    third_record = log->size_bytes();
    append_numbered(*log, 5);
  }
  flip_byte(only_segment(), third_record + 30);
  auto log = PartitionLog::open(dir_, {});
  ASSERT_FALSE(log.has_value());
  EXPECT_EQ(log.error().code(), StatusCode::kCorruption);
  EXPECT_THAT(log.error().message(), HasSubstr(only_segment().string()));
  EXPECT_THAT(log.error().message(), HasSubstr("at byte " + std::to_string(third_record)));
}

TEST_F(PartitionLogTest, FlippedFrameHeaderInAMiddleRecordIsCorruption) {
  std::int64_t second_record = 0;
  {
    auto log = open_log();
    append_numbered(*log, 1);
    second_record = log->size_bytes();
    append_numbered(*log, 3);
  }
  flip_byte(only_segment(), second_record + 1);  // the body length
  auto log = PartitionLog::open(dir_, {});
  ASSERT_FALSE(log.has_value());
  EXPECT_EQ(log.error().code(), StatusCode::kCorruption);
  EXPECT_THAT(log.error().message(), HasSubstr("at byte " + std::to_string(second_record)));
}

TEST_F(PartitionLogTest, DamageInAnEarlierSegmentIsCorruptionEvenAtItsEnd) {
  {
    auto log = open_log({.segment_bytes = 1000});
    append_numbered(*log, 20);
  }
  const auto files = segment_files(dir_);
  ASSERT_GE(files.size(), 3u);
  const fs::path first = dir_ / files.front();
  // Damage in the last record of a closed segment is not a torn tail. The open trusts the
  // segment's index, so reading the record reports it.
  flip_byte(first, static_cast<std::int64_t>(fs::file_size(first)) - 3);
  {
    auto log = open_log({.segment_bytes = 1000});
    Status problem;
    for (Offset from(0); problem.ok();) {
      auto batch = read_owned(*log, from, 4096);
      if (!batch) problem = batch.error();
      if (!batch || batch->empty()) break;
      from = Offset(batch->back().offset.value() + 1);
    }
    EXPECT_EQ(problem.code(), StatusCode::kCorruption);
    EXPECT_THAT(problem.message(), HasSubstr(first.string()));
  }
  // Without its index the open scans it and refuses.
  fs::remove(dir_ / Segment::index_file_name(0));
  auto log = PartitionLog::open(dir_, {.segment_bytes = 1000});
  ASSERT_FALSE(log.has_value());
  EXPECT_EQ(log.error().code(), StatusCode::kCorruption);
  EXPECT_THAT(log.error().message(), HasSubstr(first.string()));

  // So is a truncated closed segment (its index describes more bytes: scanned).
  flip_byte(first, static_cast<std::int64_t>(fs::file_size(first)) - 3);  // undo
  ASSERT_TRUE(open_log({.segment_bytes = 1000}));                         // indexes it again
  fs::resize_file(first, fs::file_size(first) - 5);
  log = PartitionLog::open(dir_, {.segment_bytes = 1000});
  ASSERT_FALSE(log.has_value());
  EXPECT_EQ(log.error().code(), StatusCode::kCorruption);
}

// Closed segments open from their index files (written when the log rolled), the active one
// by a scan; a missing, damaged or stale index is rebuilt by a scan, with a log line, and the
// log reads the same either way.
TEST_F(PartitionLogTest, ClosedSegmentsOpenFromTheirIndexes) {
  {
    auto log = open_log({.segment_bytes = 2000});
    append_numbered(*log, 100);
  }
  const auto files = segment_files(dir_);
  ASSERT_GE(files.size(), 4u);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto base = *Segment::parse_file_name(files[i]);
    EXPECT_EQ(fs::exists(dir_ / Segment::index_file_name(base)), i + 1 < files.size()) << files[i];
  }
  auto reads_everything = [&] {
    auto log = open_log({.segment_bytes = 2000});
    std::int64_t count = 0;
    EXPECT_TRUE(read_through_checked(*log, 700, [&](const StoredRecord&) { ++count; }));
    EXPECT_EQ(count, 100);
    EXPECT_EQ(log->end_offset(), Offset(100));
    EXPECT_EQ(log->offset_for_timestamp(Timestamp(1050)), Offset(50));
    EXPECT_EQ(log->size_bytes(), [&] {
      std::int64_t bytes = 0;
      for (const auto& f : files) bytes += static_cast<std::int64_t>(fs::file_size(dir_ / f));
      return bytes;
    }());
  };
  {
    testing::LogCapture logs;
    reads_everything();
    EXPECT_TRUE(logs.at(LogLevel::kWarn).empty());
    EXPECT_TRUE(logs.at(LogLevel::kInfo).empty());  // nothing scanned but the active segment
  }
  const fs::path second_index =
      dir_ / Segment::index_file_name(*Segment::parse_file_name(files[1]));
  const fs::path third_index = dir_ / Segment::index_file_name(*Segment::parse_file_name(files[2]));
  flip_byte(second_index, 30);
  fs::remove(third_index);
  {
    testing::LogCapture logs;
    reads_everything();
    EXPECT_THAT(
        logs.at(LogLevel::kWarn),
        ElementsAre(HasSubstr("segment index " + second_index.string() + ": checksum mismatch")));
    EXPECT_THAT(logs.at(LogLevel::kInfo),
                ElementsAre(HasSubstr("no segment index " + third_index.string())));
  }
  // Rebuilt: the next open reads them again.
  {
    testing::LogCapture logs;
    reads_everything();
    EXPECT_TRUE(logs.at(LogLevel::kWarn).empty());
  }
  // An index of another segment's bytes (here: the first's, put in place of the second's) is
  // not used.
  fs::copy_file(dir_ / Segment::index_file_name(0), second_index,
                fs::copy_options::overwrite_existing);
  {
    testing::LogCapture logs;
    reads_everything();
    EXPECT_THAT(logs.at(LogLevel::kWarn),
                ElementsAre(HasSubstr("written for another base offset")));
  }
}

TEST_F(PartitionLogTest, RandomDamageNeverCrashesOpen) {
  {
    auto log = open_log({.segment_bytes = 1500});
    append_numbered(*log, 30);
  }
  const fs::path pristine = dir_.string() + "-pristine";
  fs::remove_all(pristine);
  fs::copy(dir_, pristine);
  std::mt19937 rng(5);
  for (int round = 0; round < 90; ++round) {
    fs::remove_all(dir_);
    fs::copy(pristine, dir_);
    std::vector<std::string> files = segment_files(dir_);
    const bool index = round % 3 == 1;  // damage an index file instead of a segment
    if (index) {
      std::erase_if(files, [](const std::string& f) { return f == "00000000000000000000.log"; });
      for (auto& f : files) f = Segment::index_file_name(*Segment::parse_file_name(f));
      std::erase_if(files, [&](const std::string& f) { return !fs::exists(dir_ / f); });
      ASSERT_FALSE(files.empty());
    }
    const fs::path file = dir_ / files[rng() % files.size()];
    const auto size = static_cast<std::int64_t>(fs::file_size(file));
    for (int i = 0; i < 4; ++i) flip_byte(file, rng() % size);
    if (round % 3 == 0) fs::resize_file(file, rng() % size);
    auto log = PartitionLog::open(dir_, {.segment_bytes = 1500});
    if (index) {  // a damaged index is rebuilt: the log is whole
      ASSERT_TRUE(log.has_value()) << log.error().to_string();
      std::int64_t count = 0;
      EXPECT_TRUE(read_through_checked(**log, 4096, [&](const StoredRecord&) { ++count; }));
      EXPECT_EQ(count, 30);
      continue;
    }
    if (!log.has_value()) {
      EXPECT_EQ(log.error().code(), StatusCode::kCorruption) << log.error().to_string();
      continue;
    }
    // A closed segment's damage shows when it is read; whatever reads is intact.
    for (Offset from(0);;) {
      auto batch = read_owned(**log, from, 4096);
      if (!batch) {
        EXPECT_EQ(batch.error().code(), StatusCode::kCorruption) << batch.error().to_string();
        break;
      }
      if (batch->empty()) break;
      for (const auto& r : *batch) EXPECT_EQ(r.value, value_for(r.offset.value()));
      from = Offset(batch->back().offset.value() + 1);
    }
  }
  fs::remove_all(pristine);
}

TEST_F(PartitionLogTest, OffsetForTimestampFindsTheFirstRecordAtOrAfterIt) {
  auto log = open_log({.segment_bytes = 600});
  // Not monotonic: 100, 300, 200, 400, 250, 500 (several segments).
  for (std::int64_t ts : {100, 300, 200, 400, 250, 500}) {
    ASSERT_TRUE(log->append(std::vector<StoredRecord>{rec("k", value_for(ts), ts)}).has_value());
  }
  EXPECT_EQ(log->offset_for_timestamp(Timestamp(0)), Offset(0));
  EXPECT_EQ(log->offset_for_timestamp(Timestamp(100)), Offset(0));
  EXPECT_EQ(log->offset_for_timestamp(Timestamp(101)), Offset(1));
  EXPECT_EQ(log->offset_for_timestamp(Timestamp(350)), Offset(3));
  EXPECT_EQ(log->offset_for_timestamp(Timestamp(450)), Offset(5));
  EXPECT_EQ(log->offset_for_timestamp(Timestamp(501)), Offset(6));  // none: end offset
  ASSERT_TRUE(log->delete_records_before(Offset(2)).ok());
  EXPECT_EQ(log->offset_for_timestamp(Timestamp(0)), Offset(2));
}

TEST_F(PartitionLogTest, DeleteRecordsBeforeMovesStartDropsSegmentsAndSurvivesReopen) {
  {
    auto log = open_log({.segment_bytes = 1000});
    append_numbered(*log, 30);
    const auto files_before = segment_files(dir_).size();
    ASSERT_TRUE(log->delete_records_before(Offset(17)).ok());
    EXPECT_EQ(log->start_offset(), Offset(17));
    EXPECT_LT(segment_files(dir_).size(), files_before);
    const auto all = read_all(*log);
    ASSERT_FALSE(all.empty());
    EXPECT_EQ(all.front().offset, Offset(17));
    // Moving it backwards does nothing.
    ASSERT_TRUE(log->delete_records_before(Offset(3)).ok());
    EXPECT_EQ(log->start_offset(), Offset(17));
  }
  auto log = open_log({.segment_bytes = 1000});
  EXPECT_EQ(log->start_offset(), Offset(17));
  EXPECT_EQ(log->end_offset(), Offset(30));
  EXPECT_EQ(offsets(read_all(*log)).front(), 17);
}

TEST_F(PartitionLogTest, DeleteRecordsBeforeTheEndKeepsTheEndOffset) {
  {
    auto log = open_log({.segment_bytes = 1000});
    append_numbered(*log, 10);
    ASSERT_TRUE(log->delete_records_before(Offset(10)).ok());
    EXPECT_TRUE(read_all(*log).empty());
  }
  auto log = open_log({.segment_bytes = 1000});
  EXPECT_EQ(log->start_offset(), Offset(10));
  EXPECT_EQ(log->end_offset(), Offset(10));
  EXPECT_EQ(log->append(std::vector<StoredRecord>{rec("k", "v")}), Offset(10));
}

TEST_F(PartitionLogTest, NewRecordsNeverGetOffsetsBelowAStartOffsetPastATornTail) {
  {
    auto log = open_log();
    append_numbered(*log, 10);
    ASSERT_TRUE(log->delete_records_before(Offset(10)).ok());
  }
  fs::resize_file(only_segment(), fs::file_size(only_segment()) - 5);  // record 9 is torn
  auto log = open_log();
  EXPECT_EQ(log->start_offset(), Offset(10));
  EXPECT_EQ(log->end_offset(), Offset(10));
  EXPECT_EQ(log->append(std::vector<StoredRecord>{rec("k", "v")}), Offset(10));
  EXPECT_EQ(offsets(read_all(*log)), std::vector<std::int64_t>{10});
}

TEST_F(PartitionLogTest, UnreadableStartOffsetFileIsCorruption) {
  {
    auto log = open_log();
    append_numbered(*log, 3);
  }
  append_bytes(dir_ / "start-offset", "twelve\n");
  auto log = PartitionLog::open(dir_, {});
  ASSERT_FALSE(log.has_value());
  EXPECT_EQ(log.error().code(), StatusCode::kCorruption);
  EXPECT_THAT(log.error().message(), HasSubstr("start-offset"));
}

TEST_F(PartitionLogTest, AStartOffsetFileWhoseChecksumMatchesButHoldsNoOffsetIsCorruption) {
  {
    auto log = open_log();
    append_numbered(*log, 3);
  }
  ASSERT_TRUE(write_checksummed_file(dir_ / "start-offset", "twelve").ok());
  auto log = PartitionLog::open(dir_, {});
  ASSERT_FALSE(log.has_value());
  EXPECT_EQ(log.error().code(), StatusCode::kCorruption);
  EXPECT_THAT(log.error().message(), HasSubstr("start-offset does not hold an offset: \"twelve\""));
}

TEST_F(PartitionLogTest, DeleteRecordsBeforePastTheEndIsInvalidArgument) {
  auto log = open_log();
  append_numbered(*log, 3);
  const Status s = log->delete_records_before(Offset(4));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(log->start_offset(), Offset(0));
}

TEST_F(PartitionLogTest, RetentionByTimeDropsOldSegmentsButNeverTheActiveOne) {
  auto log = open_log({.segment_bytes = 1000, .retention_ms = 100});
  append_numbered(*log, 30);  // timestamps 1000..1029, about 6 records per segment
  const auto files = segment_files(dir_).size();
  // Segments whose newest record is older than 1015 - 100 go: none yet.
  ASSERT_TRUE(log->run_maintenance(Timestamp(1015 + 100)).ok());
  ASSERT_LT(segment_files(dir_).size(), files);
  const auto all = read_all(*log);
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front().offset, log->start_offset());
  EXPECT_GT(log->start_offset(), Offset(0));
  EXPECT_LE(log->start_offset(), Offset(16));  // the segment holding 1015 stays
  EXPECT_EQ(all.back().offset, Offset(29));

  // Far in the future: only the active segment is left.
  ASSERT_TRUE(log->run_maintenance(Timestamp(1'000'000)).ok());
  EXPECT_EQ(segment_files(dir_).size(), 1u);
  EXPECT_EQ(log->end_offset(), Offset(30));
  EXPECT_EQ(log->append(std::vector<StoredRecord>{rec("k", "v", 2000)}), Offset(30));
}

TEST_F(PartitionLogTest, RetentionByBytesDropsOldestSegmentsNeverTheActiveOne) {
  auto log = open_log({.segment_bytes = 1000, .retention_bytes = 2500});
  append_numbered(*log, 40);
  ASSERT_GT(log->size_bytes(), 2500);
  ASSERT_TRUE(log->run_maintenance(Timestamp(0)).ok());
  EXPECT_LE(log->size_bytes(), 2500);
  EXPECT_EQ(read_all(*log).back().offset, Offset(39));
  EXPECT_EQ(read_all(*log).front().offset, log->start_offset());

  auto tiny = PartitionLog::open(dir_.string() + "-tiny", {.retention_bytes = 0});
  ASSERT_TRUE(tiny.has_value());
  append_numbered(**tiny, 3);
  ASSERT_TRUE((*tiny)->run_maintenance(Timestamp(0)).ok());
  EXPECT_EQ(read_all(**tiny).size(), 3u);  // all in the active segment
  fs::remove_all(dir_.string() + "-tiny");
}

TEST_F(PartitionLogTest, RetentionDoesNothingUnderThePolicyCompact) {
  auto log = open_log(
      {.segment_bytes = 1000, .retention_bytes = 0, .cleanup_policy = CleanupPolicy::kCompact});
  append_numbered(*log, 20);  // distinct keys: compaction keeps all
  ASSERT_TRUE(log->run_maintenance(Timestamp(1'000'000)).ok());
  EXPECT_EQ(read_all(*log).size(), 20u);
}

class PartitionLogCompactionTest : public PartitionLogTest {
 protected:
  static constexpr std::int64_t kNow = 1'000'000;
  static PartitionLogConfig config() {
    return {.segment_bytes = 400,
            .cleanup_policy = CleanupPolicy::kCompact,
            .delete_retention_ms = 1000};
  }
  // "key=value" for each record the log now holds, in offset order, fillers left out.
  static std::vector<std::string> contents(const PartitionLog& log) {
    std::vector<std::string> out;
    for (const auto& r : read_all(log)) {
      if (r.key && r.key->starts_with("filler")) continue;
      out.push_back(r.key.value_or("<null>") + "=" + r.value.value_or("<tombstone>"));
    }
    return out;
  }
  static void put(PartitionLog& log, std::optional<std::string> key,
                  std::optional<std::string> value, std::int64_t timestamp) {
    ASSERT_TRUE(
        log.append(std::vector<StoredRecord>{rec(std::move(key), std::move(value), timestamp)})
            .has_value());
  }
  // Appends distinct-keyed fillers at `timestamp` until a new segment starts, so that
  // everything appended before is in closed segments.
  void roll_past(PartitionLog& log, std::int64_t timestamp = kNow) {
    const std::size_t files = segment_files(dir_).size();
    for (int i = 0; segment_files(dir_).size() == files; ++i) {
      put(log, "filler" + std::to_string(i), std::string(100, 'f'), timestamp);
    }
  }
};

TEST_F(PartitionLogCompactionTest, KeepsOnlyTheNewestValuePerKeyAndNullKeyRecords) {
  auto log = open_log(config());
  put(*log, "a", "a1", kNow);
  put(*log, "b", "b1", kNow);
  put(*log, std::nullopt, "no key", kNow);
  put(*log, "a", "a2", kNow);
  put(*log, "c", "c1", kNow);
  put(*log, "a", "a3", kNow);
  put(*log, "b", "b2", kNow);
  roll_past(*log);
  const Offset end = log->end_offset();
  const std::int64_t size_before = log->size_bytes();
  ASSERT_TRUE(log->run_maintenance(Timestamp(kNow)).ok());
  EXPECT_THAT(contents(*log), ElementsAre("<null>=no key", "c=c1", "a=a3", "b=b2"));
  const auto all = read_all(*log);
  // Offsets keep their values; start and end do not move.
  EXPECT_EQ(all.front().offset, Offset(2));
  EXPECT_EQ(log->start_offset(), Offset(0));
  EXPECT_EQ(log->end_offset(), end);
  EXPECT_LT(log->size_bytes(), size_before);
  EXPECT_EQ(read_owned(*log, Offset(0), 1)->front().offset, Offset(2));
}

TEST_F(PartitionLogCompactionTest, DropsOldTombstonesButKeepsYoungOnes) {
  auto log = open_log(config());
  put(*log, "a", "a1", kNow);
  put(*log, "old", "x", kNow - 5000);
  put(*log, "old", std::nullopt, kNow - 5000);
  put(*log, "young", "y", kNow - 10);
  put(*log, "young", std::nullopt, kNow - 10);
  roll_past(*log);
  ASSERT_TRUE(log->run_maintenance(Timestamp(kNow)).ok());
  EXPECT_THAT(contents(*log), ElementsAre("a=a1", "young=<tombstone>"));
  // Once past delete_retention_ms the young tombstone goes too.
  ASSERT_TRUE(log->run_maintenance(Timestamp(kNow + 5000)).ok());
  EXPECT_THAT(contents(*log), ElementsAre("a=a1"));
}

TEST_F(PartitionLogCompactionTest, NeverTouchesTheActiveSegment) {
  auto log = open_log(config());
  put(*log, "k", "v1", kNow);
  roll_past(*log);
  const fs::path active = dir_ / segment_files(dir_).back();
  put(*log, "k", "v2", kNow);
  put(*log, "k", std::nullopt, kNow - 1'000'000);  // an expired tombstone, but active
  const auto active_size = fs::file_size(active);
  ASSERT_TRUE(log->run_maintenance(Timestamp(kNow)).ok());
  EXPECT_EQ(fs::file_size(active), active_size);
  // k=v1 is the newest k among the closed segments, so it stays too.
  EXPECT_THAT(contents(*log), ElementsAre("k=v1", "k=v2", "k=<tombstone>"));
}

TEST_F(PartitionLogCompactionTest, CompactedLogSurvivesReopen) {
  Offset end;
  std::vector<std::int64_t> kept;
  {
    auto log = open_log(config());
    for (int round = 0; round < 5; ++round) {
      for (const char* key : {"a", "b", "c"}) put(*log, key, key + std::to_string(round), kNow);
    }
    roll_past(*log);
    ASSERT_TRUE(log->run_maintenance(Timestamp(kNow)).ok());
    end = log->end_offset();
    kept = offsets(read_all(*log));
    EXPECT_THAT(contents(*log), ElementsAre("a=a4", "b=b4", "c=c4"));
  }
  EXPECT_TRUE(std::none_of(fs::directory_iterator(dir_), fs::directory_iterator(),
                           [](const auto& e) { return e.path().extension() == ".cleaned"; }));
  auto log = open_log(config());
  EXPECT_EQ(log->end_offset(), end);
  EXPECT_EQ(log->start_offset(), Offset(0));
  EXPECT_EQ(offsets(read_all(*log)), kept);
  EXPECT_THAT(contents(*log), ElementsAre("a=a4", "b=b4", "c=c4"));
  EXPECT_EQ(log->append(std::vector<StoredRecord>{rec("d", "d1")}), end);
}

TEST_F(PartitionLogCompactionTest, AppliesRetentionTooUnderCompactDelete) {
  PartitionLogConfig c = config();
  c.cleanup_policy = CleanupPolicy::kCompactDelete;
  c.retention_ms = 100;
  auto log = open_log(c);
  put(*log, "a", "a1", 10);
  put(*log, "a", "a2", 10);
  roll_past(*log, 10);
  roll_past(*log);
  ASSERT_TRUE(log->run_maintenance(Timestamp(kNow)).ok());
  EXPECT_THAT(contents(*log), ElementsAre());  // the old segment went by time
  EXPECT_GT(log->start_offset(), Offset(0));
}

TEST_F(PartitionLogCompactionTest, RollsTheActiveSegmentOnceItIsOlderThanSegmentMs) {
  PartitionLogConfig c = config();
  c.segment_bytes = 1 << 20;
  c.segment_ms = 60'000;
  auto log = open_log(c);
  put(*log, "k", "v1", kNow);
  put(*log, "k", "v2", kNow);
  const std::int64_t appended = wall_clock_ms();
  ASSERT_TRUE(log->run_maintenance(Timestamp(appended + 1'000)).ok());
  EXPECT_EQ(segment_files(dir_).size(), 1u);  // young: stays active, untouched
  EXPECT_THAT(contents(*log), ElementsAre("k=v1", "k=v2"));
  ASSERT_TRUE(log->run_maintenance(Timestamp(appended + 61'000)).ok());
  // Rolled, so closed and compacted; the new active segment is empty and does not roll.
  EXPECT_EQ(segment_files(dir_).size(), 2u);
  EXPECT_THAT(contents(*log), ElementsAre("k=v2"));
  ASSERT_TRUE(log->run_maintenance(Timestamp(appended + 200'000)).ok());
  EXPECT_EQ(segment_files(dir_).size(), 2u);
  EXPECT_EQ(log->end_offset(), Offset(2));
}

TEST_F(PartitionLogCompactionTest, CompactsOnlyOnceTheDirtyShareReachesTheRatio) {
  PartitionLogConfig c = config();
  c.segment_bytes = 2000;
  c.min_cleanable_dirty_ratio = 0.5;
  auto log = open_log(c);
  // 60 distinct keys, then compacted: nothing to drop, all clean.
  for (int i = 0; i < 60; ++i) put(*log, "k" + std::to_string(i), std::string(60, 'a'), kNow);
  roll_past(*log);
  ASSERT_TRUE(log->run_maintenance(Timestamp(kNow)).ok());
  const std::size_t compacted = read_all(*log).size();
  // Updates of 10 keys: well below half of the closed bytes, so no compaction yet.
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 10; ++i) put(*log, "k" + std::to_string(i), std::string(60, 'b'), kNow);
  }
  roll_past(*log);
  const std::size_t before = read_all(*log).size();
  ASSERT_TRUE(log->run_maintenance(Timestamp(kNow)).ok());
  EXPECT_EQ(read_all(*log).size(), before);
  // Updates of every key again and again: the dirty share passes one half, compaction runs.
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 60; ++i) put(*log, "k" + std::to_string(i), std::string(60, 'c'), kNow);
  }
  roll_past(*log);
  ASSERT_TRUE(log->run_maintenance(Timestamp(kNow)).ok());
  const auto after = read_all(*log);
  EXPECT_LE(after.size(), compacted + 60);  // each key once in the closed segments, + fillers
  for (const auto& r : after) {
    if (!r.key->starts_with("filler")) {
      EXPECT_EQ(r.value, std::string(60, 'c')) << *r.key;
    }
  }
}

TEST_F(PartitionLogCompactionTest, MergesSmallNeighboursUpToSegmentBytes) {
  auto log = open_log(config());  // 400-byte segments: about 8 records each
  for (int round = 0; round < 50; ++round) {
    for (const char* key : {"a", "b", "c"}) put(*log, key, key + std::to_string(round), kNow);
  }
  const auto before = segment_files(dir_).size();
  ASSERT_GT(before, 15u);
  ASSERT_TRUE(log->run_maintenance(Timestamp(kNow)).ok());
  // What the closed segments keep fits one: they were merged into it.
  EXPECT_EQ(segment_files(dir_).size(), 2u);
  const Offset end = log->end_offset();
  log.reset();
  log = open_log(config());
  EXPECT_EQ(log->end_offset(), end);
  EXPECT_EQ(log->start_offset(), Offset(0));
  const auto all = contents(*log);
  for (const char* key : {"a", "b", "c"}) {
    EXPECT_EQ(std::count(all.begin(), all.end(), std::string(key) + "=" + key + "49"), 1);
  }
}

TEST_F(PartitionLogCompactionTest, AfterManyUpdatesHoldsAtMostTwiceTheLiveKeysAndTheActiveSegment) {
  PartitionLogConfig c = config();
  c.segment_bytes = 16 << 10;
  constexpr int kKeys = 500;
  constexpr int kUpdates = 100'000;
  auto log = open_log(c);
  std::map<std::string, std::string> expected;
  std::mt19937 rng(7);
  std::vector<StoredRecord> batch;
  for (int i = 0; i < kUpdates; i += 100) {
    batch.clear();
    for (int j = i; j < i + 100; ++j) {
      // Records of one size (tombstones aside), so that the bytes' dirty ratio counts records.
      std::string key = fmt::format("key-{:03}", rng() % kKeys);
      std::optional<std::string> value;
      if (j % 997 != 0) value = fmt::format("value-{:08}", j);  // else deleted
      if (value) {
        expected[key] = *value;
      } else {
        expected.erase(key);
      }
      batch.push_back(rec(std::move(key), std::move(value), kNow));
    }
    ASSERT_TRUE(log->append(batch).has_value());
    if (i % 5'000 == 0) {
      ASSERT_TRUE(log->run_maintenance(Timestamp(kNow)).ok());
    }
  }
  ASSERT_TRUE(log->run_maintenance(Timestamp(kNow)).ok());
  // What a restore reads: every record, newest value per key, tombstones delete.
  std::map<std::string, std::string> restored;
  std::int64_t in_active = 0;
  const auto all = read_all(*log);
  const std::int64_t active_base = std::stoll(segment_files(dir_).back().substr(0, 20));
  for (const auto& r : all) {
    if (r.value) {
      restored[*r.key] = *r.value;
    } else {
      restored.erase(*r.key);
    }
    in_active += r.offset.value() >= active_base;
  }
  EXPECT_EQ(restored, expected);
  const std::int64_t closed = static_cast<std::int64_t>(all.size()) - in_active;
  EXPECT_LE(closed, 2 * kKeys) << "the closed segments hold more than twice the live keys";
  EXPECT_LE(in_active * 40, c.segment_bytes);  // a record here has at least 49 bytes
}

TEST_F(PartitionLogTest, ACompactionStoppedAfterItsOutputWasCompleteIsFinishedOnOpen) {
  {
    auto log = open_log({.segment_bytes = 1000});
    append_numbered(*log, 25);
  }
  const auto files = segment_files(dir_);
  ASSERT_GE(files.size(), 3u);
  const std::int64_t second = *Segment::parse_file_name(files[1]);
  const std::int64_t third = *Segment::parse_file_name(files[2]);
  // What a compaction of the first two segments into one leaves when it stops right after
  // making its output durable: the output (here the second segment's records) under its swap
  // name, which replaces every segment below the third.
  const std::string swap = Segment::swap_file_name(0, third);
  EXPECT_EQ(swap, files[0] + "." + files[2].substr(0, 20) + ".swap");
  fs::copy_file(dir_ / files[1], dir_ / swap);
  auto log = open_log({.segment_bytes = 1000});
  std::vector<std::string> expected_files(files.begin() + 2, files.end());
  expected_files.insert(expected_files.begin(), files[0]);
  EXPECT_EQ(segment_files(dir_), expected_files);
  EXPECT_FALSE(fs::exists(dir_ / swap));
  std::vector<std::int64_t> expected;
  for (std::int64_t o = second; o < 25; ++o) expected.push_back(o);
  EXPECT_EQ(offsets(read_all(*log)), expected);
  EXPECT_EQ(log->start_offset(), Offset(0));
  EXPECT_EQ(log->end_offset(), Offset(25));
}

TEST_F(PartitionLogTest, AReaderFromTheStartSeesTheNewestValueOfEveryKeyWhileCompactionMerges) {
  auto log = open_log({.segment_bytes = 4 << 10,
                       .cleanup_policy = CleanupPolicy::kCompact,
                       .min_cleanable_dirty_ratio = 0});
  constexpr std::int64_t kKeys = 50;
  constexpr std::int64_t kTotal = 20'000;
  auto key_of = [](std::int64_t offset) { return "k" + std::to_string(offset % kKeys); };
  std::atomic<bool> done{false};
  std::atomic<bool> failed{false};
  std::atomic<int> passes{0};
  std::thread reader([&] {
    while (!done && !failed) {
      // Every key's newest offset below `end` must be seen, or a newer one.
      const std::int64_t end = log->end_offset().value();
      std::map<std::string, std::int64_t> seen;
      bool keys_right = true;
      if (!read_through_checked(*log, 2 << 10, [&](const StoredRecord& r) {
            keys_right = keys_right && r.key == key_of(r.offset.value());
            seen[r.key.value_or("")] = r.offset.value();
          })) {
        failed = true;
        return;
      }
      if (!keys_right) {
        ADD_FAILURE() << "a record has the key of another offset";
        failed = true;
        return;
      }
      for (std::int64_t o = std::max<std::int64_t>(0, end - kKeys); o < end; ++o) {
        if (seen[key_of(o)] < o) {
          ADD_FAILURE() << "a read from the start missed offset " << o << " of " << key_of(o)
                        << " (saw " << seen[key_of(o)] << ")";
          failed = true;
          return;
        }
      }
      ++passes;
    }
  });
  std::vector<StoredRecord> batch;
  for (std::int64_t offset = 0; offset < kTotal && !failed; offset += 10) {
    batch.clear();
    for (std::int64_t i = offset; i < offset + 10; ++i) {
      batch.push_back(rec(key_of(i), value_for(i), i));
    }
    ASSERT_EQ(log->append(batch), Offset(offset));
    ASSERT_TRUE(log->run_maintenance(Timestamp(kTotal)).ok());
  }
  done = true;
  reader.join();
  EXPECT_FALSE(failed);
  EXPECT_GT(passes.load(), 0);
}

TEST_F(PartitionLogTest, LeftoverFilesOfAnUnfinishedCompactionAreIgnoredOnOpen) {
  {
    auto log = open_log();
    append_numbered(*log, 3);
  }
  const fs::path leftover = dir_ / "00000000000000000000.log.cleaned";
  append_bytes(leftover, "half-written compaction output");
  auto log = open_log();
  EXPECT_FALSE(fs::exists(leftover));
  EXPECT_EQ(read_all(*log).size(), 3u);
}

TEST_F(PartitionLogTest, FlushWithFsyncSyncsEveryRolledSegment) {
  auto log = open_log({.segment_bytes = 1000, .fsync_on_flush = true});
  append_numbered(*log, 20);
  EXPECT_TRUE(log->flush().ok());
  append_numbered(*log, 1);
  EXPECT_TRUE(log->flush().ok());
}

TEST_F(PartitionLogTest, ConcurrentReaderAlwaysSeesAConsistentPrefix) {
  auto log = open_log({.segment_bytes = 32 << 10});
  constexpr std::int64_t kTotal = 20'000;
  std::atomic<bool> failed{false};
  std::thread reader([&] {
    std::int64_t next = 0;
    while (next < kTotal && !failed) {
      const std::int64_t end_before = log->end_offset().value();
      auto batch = read_owned(*log, Offset(next), 16 << 10);
      if (!batch) {
        ADD_FAILURE() << batch.error().to_string();
        failed = true;
        return;
      }
      for (const auto& r : *batch) {
        if (r.offset.value() != next || r.value != value_for(next) ||
            r.key != "k" + std::to_string(next)) {
          ADD_FAILURE() << "expected offset " << next << ", got " << r.offset.value();
          failed = true;
          return;
        }
        ++next;
      }
      // Everything published before the read started is visible to it.
      if (batch->empty() && next < end_before) {
        ADD_FAILURE() << "read at " << next << " returned nothing below end " << end_before;
        failed = true;
        return;
      }
    }
  });
  std::mt19937 rng(1);
  std::vector<StoredRecord> batch;
  for (std::int64_t offset = 0; offset < kTotal && !failed;) {
    batch.clear();
    const std::int64_t n = std::min<std::int64_t>(1 + rng() % 50, kTotal - offset);
    for (std::int64_t i = 0; i < n; ++i) {
      batch.push_back(rec("k" + std::to_string(offset + i), value_for(offset + i), offset + i));
    }
    ASSERT_EQ(log->append(batch), Offset(offset));
    offset += n;
  }
  reader.join();
  EXPECT_FALSE(failed);
}

TEST_F(PartitionLogTest, ReadersSurviveSegmentsBeingDroppedAndCompactedUnderThem) {
  auto log = open_log({.segment_bytes = 8 << 10,
                       .retention_bytes = 64 << 10,
                       .cleanup_policy = CleanupPolicy::kCompactDelete});
  constexpr std::int64_t kTotal = 4'000;
  std::atomic<bool> done{false};
  std::atomic<bool> failed{false};
  std::thread reader([&] {
    while (!done && !failed) {
      if (!read_through_checked(*log, 8 << 10, [](const StoredRecord&) {})) failed = true;
    }
  });
  std::vector<StoredRecord> batch;
  for (std::int64_t offset = 0; offset < kTotal && !failed; offset += 20) {
    batch.clear();
    for (std::int64_t i = offset; i < offset + 20; ++i) {
      batch.push_back(rec("k" + std::to_string(i % 50), value_for(i), i));
    }
    ASSERT_EQ(log->append(batch), Offset(offset));
    if (offset % 400 == 0) {
      ASSERT_TRUE(log->run_maintenance(Timestamp(kTotal)).ok());
    }
  }
  done = true;
  reader.join();
  EXPECT_FALSE(failed);
  EXPECT_LE(log->size_bytes(), (64 << 10) + (8 << 10));
}

TEST_F(PartitionLogTest, EveryAcknowledgedRecordSurvivesKill9) {
  int acks[2];
  ASSERT_EQ(::pipe(acks), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child appends batches forever, reporting each acknowledged end offset.
    ::close(acks[0]);
    auto log = PartitionLog::open(dir_, {.segment_bytes = 256 << 10});
    if (!log) ::_exit(2);
    std::vector<StoredRecord> batch;
    for (std::int64_t offset = 0;;) {
      batch.clear();
      const std::int64_t n = 1 + offset % 37;
      for (std::int64_t i = 0; i < n; ++i) {
        batch.push_back(rec("k" + std::to_string(offset + i), value_for(offset + i)));
      }
      if (!(*log)->append(batch)) ::_exit(3);
      offset += n;
      if (::write(acks[1], &offset, sizeof offset) != sizeof offset) ::_exit(4);
    }
  }
  ::close(acks[1]);
  std::int64_t acknowledged = 0;
  std::int64_t got = 0;
  while (acknowledged < 20'000 && ::read(acks[0], &got, sizeof got) == sizeof got) {
    acknowledged = got;
  }
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  while (::read(acks[0], &got, sizeof got) == sizeof got) acknowledged = got;  // the rest
  ::close(acks[0]);

  auto log = open_log({.segment_bytes = 256 << 10});
  ASSERT_GE(log->end_offset().value(), acknowledged);
  std::int64_t next = 0;
  for (const auto& r : read_all(*log)) {
    ASSERT_EQ(r.offset.value(), next);
    ASSERT_EQ(r.value, value_for(next));
    ++next;
  }
  EXPECT_EQ(next, log->end_offset().value());
  EXPECT_GE(next, acknowledged);
}

}  // namespace
}  // namespace brook::internal
