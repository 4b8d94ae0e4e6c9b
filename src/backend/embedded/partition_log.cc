#include "backend/embedded/partition_log.h"

#include <unistd.h>

#include <algorithm>
#include <limits>
#include <string>
#include <system_error>

#include "backend/embedded/checksummed_file.h"
#include "backend/embedded/file_io.h"
#include "backend/embedded/frame_scanner.h"
#include "backend/embedded/partition_log_impl.h"
#include "backend/embedded/record_format.h"
#include "core/log.h"
#include "core/text_numbers.h"
#include "core/wall_clock.h"

namespace brook::internal {
namespace {

constexpr std::string_view kCleanedSuffix = ".cleaned";
constexpr std::size_t kMaxRetainedWriteBuffer = std::size_t{16} << 20;
constexpr std::size_t kMaxReadChunk = std::size_t{8} << 20;

Result<std::optional<std::int64_t>> read_start_offset(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kStartOffsetFile;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  auto contents = read_checksummed_file(path);
  if (!contents) return error(contents.error());
  const std::string_view text = *contents;
  const auto offset = parse_number<std::int64_t>(text);
  if (!offset || *offset < 0) {
    return error(Status::corruption(path.string() + " does not hold an offset: \"" +
                                    std::string(text.substr(0, 40)) + "\""));
  }
  return *offset;
}

}  // namespace

Result<std::unique_ptr<PartitionLog>> PartitionLog::open(std::filesystem::path dir,
                                                         PartitionLogConfig config) {
  if (config.segment_bytes <= 0) {
    return error(Status::invalid_argument("segment_bytes must be positive, got " +
                                          std::to_string(config.segment_bytes)));
  }
  auto log = std::make_unique<PartitionLogImpl>(std::move(dir), config);
  if (Status s = log->load(); !s.ok()) return error(std::move(s));
  return log;
}

PartitionLogImpl::PartitionLogImpl(std::filesystem::path dir, PartitionLogConfig config)
    : dir_(std::move(dir)), config_(config) {}

Status PartitionLogImpl::load() {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return Status::io_error("create directory " + dir_.string() + ": " + ec.message());

  std::vector<std::int64_t> bases;
  std::vector<std::pair<std::int64_t, std::int64_t>> swaps;
  std::filesystem::directory_iterator it(dir_, ec);
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::filesystem::path& path = it->path();
    const std::string name = path.filename().string();
    if (name.ends_with(kCleanedSuffix) || name.ends_with(".tmp")) {
      // Left by a compaction, a start-offset update or an index write that did not finish:
      // never renamed into place, so not part of the log.
      std::error_code remove_error;
      std::filesystem::remove(path, remove_error);
      if (remove_error) {
        return Status::io_error("remove " + path.string() + ": " + remove_error.message());
      }
      continue;
    }
    if (auto swap = Segment::parse_swap_file_name(name)) swaps.push_back(*swap);
    if (auto base = Segment::parse_file_name(name)) bases.push_back(*base);
  }
  if (ec) return Status::io_error("list directory " + dir_.string() + ": " + ec.message());
  // A compaction stopped after its output was complete: finish replacing what it merged.
  for (const auto& [base, end] : swaps) {
    std::vector<std::int64_t> replaced;
    std::erase_if(bases, [&, base = base, end = end](std::int64_t b) {
      if (b <= base || b >= end) return false;
      replaced.push_back(b);
      return true;
    });
    if (Status s = complete_swap(dir_, base, end, replaced); !s.ok()) return s;
    if (std::find(bases.begin(), bases.end(), base) == bases.end()) bases.push_back(base);
    log(LogLevel::kWarn, "{}: finished a compaction that had stopped: segments {}..{} replaced",
        dir_.string(), base, end - 1);
  }
  std::sort(bases.begin(), bases.end());

  auto persisted_start = read_start_offset(dir_);
  if (!persisted_start) return persisted_start.error();

  for (std::size_t i = 0; i < bases.size(); ++i) {
    const bool is_last = i + 1 == bases.size();
    const std::int64_t limit = is_last ? std::numeric_limits<std::int64_t>::max() : bases[i + 1];
    std::int64_t truncated = 0;
    auto segment =
        Segment::open(dir_ / Segment::file_name(bases[i]), bases[i], is_last, limit, &truncated);
    if (!segment) return segment.error();
    segments_.push_back(std::move(*segment));
  }
  if (segments_.empty()) {
    auto segment = Segment::create(dir_, persisted_start->value_or(0));
    if (!segment) return segment.error();
    segments_.push_back(std::move(*segment));
  }

  std::int64_t end = segments_.back()->layout().next_offset;
  const std::int64_t start =
      std::max(persisted_start->value_or(0), segments_.front()->base_offset());
  if (start > end) {
    // Records before `start` were deleted, then the log's tail was lost (a torn tail after a
    // power failure). New records must still get offsets >= start.
    log(LogLevel::kWarn, "{}: start offset {} is past the end of the log {}; continuing at {}",
        dir_.string(), start, end, start);
    if (Status s = roll(start); !s.ok()) return s;
    end = start;
  }
  std::int64_t size = 0;
  for (const auto& segment : segments_) size += segment->layout().size;
  start_offset_.store(start);
  end_offset_.store(end);
  size_bytes_.store(size);
  clean_end_ = start;
  if (segments_.back()->layout().record_count > 0) active_since_ms_ = wall_clock_ms();
  return Status::ok_status();
}

// ---- Writing ----

RecordToAppend to_append(const StoredRecord& record) {
  return {.timestamp = record.timestamp,
          .key = record.key,
          .value = record.value,
          .headers = &record.headers};
}

Result<Offset> PartitionLog::append(std::span<const StoredRecord> records) {
  std::vector<RecordToAppend> views;
  views.reserve(records.size());
  for (const StoredRecord& record : records) views.push_back(to_append(record));
  return append(std::span<const RecordToAppend>(views));
}

Result<Offset> PartitionLogImpl::append(std::span<const RecordToAppend> records) {
  if (!failed_.ok()) return error(failed_);
  const std::int64_t first = end_offset_.load();
  if (records.empty()) return Offset(first);
  for (const RecordToAppend& record : records) {
    if (encoded_size(record) - kFrameHeaderBytes > kMaxBodyBytes) {
      return error(Status::invalid_argument(
          "record too large for the embedded log: " + std::to_string(encoded_size(record)) +
          " bytes encoded, at most " + std::to_string(kMaxBodyBytes) + " allowed"));
    }
  }
  write_buffer_.clear();
  pending_index_.clear();
  Segment* active = segments_.back().get();
  std::int64_t last_indexed = active->layout().last_indexed_position();
  std::int64_t next = first;
  std::int64_t batch_records = 0;
  std::int64_t batch_max_timestamp = kNoTimestamp;
  for (const RecordToAppend& record : records) {
    const std::size_t size = encoded_size(record);
    std::int64_t position = active->layout().size + static_cast<std::int64_t>(write_buffer_.size());
    if (position > 0 && position + static_cast<std::int64_t>(size) > config_.segment_bytes) {
      if (Status s = write_out(*active, batch_records, next, batch_max_timestamp); !s.ok()) {
        return error(std::move(s));
      }
      if (Status s = roll(next); !s.ok()) return error(std::move(s));
      active = segments_.back().get();
      position = 0;
      last_indexed = 0;
      batch_records = 0;
      batch_max_timestamp = kNoTimestamp;
    }
    if (index_entry_due(position, last_indexed)) {
      pending_index_.push_back({.offset = next, .position = position});
      last_indexed = position;
    }
    encode_record(record, next, size, write_buffer_);
    ++next;
    ++batch_records;
    batch_max_timestamp = std::max(batch_max_timestamp, record.timestamp.value());
  }
  if (Status s = write_out(*active, batch_records, next, batch_max_timestamp); !s.ok()) {
    return error(std::move(s));
  }
  if (active_since_ms_ == kNoTimestamp) active_since_ms_ = wall_clock_ms();
  write_buffer_.shrink_if_above(kMaxRetainedWriteBuffer);
  return Offset(first);
}

Status PartitionLogImpl::write_out(Segment& segment, std::int64_t record_count,
                                   std::int64_t next_offset, std::int64_t max_timestamp) {
  if (write_buffer_.empty()) return Status::ok_status();
  const std::int64_t position = segment.layout().size;
  const auto bytes = static_cast<std::int64_t>(write_buffer_.size());
  if (Status s = write_at(segment.fd(), segment.path(), write_buffer_.data(), write_buffer_.size(),
                          position);
      !s.ok()) {
    // Undo a partial write so the file ends at a record boundary again.
    if (::ftruncate(segment.fd(), position) != 0) {
      failed_ =
          Status::io_error(s.message() + "; truncating back to byte " + std::to_string(position) +
                           " failed too: reopen the log to recover");
    }
    write_buffer_.clear();
    pending_index_.clear();
    return s;
  }
  {
    std::lock_guard lock(mu_);
    segment.publish(bytes, record_count, next_offset, max_timestamp, pending_index_);
    end_offset_.store(next_offset);
    size_bytes_.fetch_add(bytes);
  }
  write_buffer_.clear();
  pending_index_.clear();
  return Status::ok_status();
}

Status PartitionLogImpl::roll(std::int64_t base_offset) {
  if (!segments_.empty()) segments_.back()->write_index();  // closed from now on
  auto segment = Segment::create(dir_, base_offset);
  if (!segment) return segment.error();
  if (config_.fsync_on_flush) {
    if (!segments_.empty()) unsynced_.push_back(segments_.back());
    dir_unsynced_ = true;
  }
  std::lock_guard lock(mu_);
  segments_.push_back(std::move(*segment));
  active_since_ms_ = kNoTimestamp;
  return Status::ok_status();
}

Status PartitionLogImpl::flush() {
  if (!failed_.ok()) return failed_;
  if (!config_.fsync_on_flush) return Status::ok_status();
  // A failed fsync may have dropped what it was to write from the page cache, and a later one
  // would then succeed without it: once one fails, the log takes nothing more until reopened.
  auto sync_failed = [&](const Status& s) {
    failed_ = Status(s.code(), s.message() +
                                   "; what it covered may not be on disk: the log takes no more "
                                   "writes until it is reopened");
    return failed_;
  };
  for (const auto& segment : unsynced_) {
    if (Status s = sync_fd(segment->fd(), segment->path()); !s.ok()) return sync_failed(s);
  }
  unsynced_.clear();
  const Segment& active = *segments_.back();
  if (Status s = sync_fd(active.fd(), active.path()); !s.ok()) return sync_failed(s);
  if (dir_unsynced_) {
    if (Status s = sync_dir(dir_); !s.ok()) return sync_failed(s);
    dir_unsynced_ = false;
  }
  return Status::ok_status();
}

// ---- Reading ----

const std::shared_ptr<Segment>& PartitionLogImpl::segment_for(std::int64_t offset) const {
  auto it = std::upper_bound(
      segments_.begin(), segments_.end(), offset,
      [](std::int64_t o, const std::shared_ptr<Segment>& s) { return o < s->base_offset(); });
  return it == segments_.begin() ? *it : *std::prev(it);
}

Result<RecordBatch> PartitionLogImpl::read(Offset from, std::size_t max_bytes) const {
  // The records' keys and values are views into the frames as read: the batch owns the buffer
  // the scanner reads into, and the read ends where the scanner would have to move its bytes
  // (a frame past the buffer, another segment) once it holds a record.
  RecordBatch batch;
  std::vector<ConsumedRecord>& records = batch.records;
  auto buffer = std::make_shared<ByteBuffer>();
  batch.bytes = buffer;
  std::int64_t want = std::max(from.value(), start_offset_.load());
  std::size_t bytes = 0;
  // The segment being read and the byte range [position, end) of it still to scan.
  std::shared_ptr<Segment> segment;
  std::int64_t position = 0;
  std::int64_t end = 0;
  {
    std::lock_guard lock(mu_);
    if (want >= end_offset_.load()) return batch;
    segment = segment_for(want);
    position = segment->scan_start(want);
    end = segment->layout().size;
    // Room for the records expected, from the segment's average record size.
    if (const SegmentLayout& layout = segment->layout(); layout.record_count > 0) {
      const std::int64_t span =
          std::min(end - position, static_cast<std::int64_t>(std::min(max_bytes, kMaxReadChunk)));
      records.reserve(static_cast<std::size_t>(span / (layout.size / layout.record_count)) + 1);
    }
  }
  for (;;) {
    // Enough for the rest of max_bytes plus the records between the index entry and `want`.
    const std::size_t remaining = max_bytes - bytes;  // bytes < max_bytes here
    const std::size_t chunk =
        remaining >= kMaxReadChunk ? kMaxReadChunk : remaining + kIndexIntervalBytes;
    FrameScanner scanner(segment->fd(), segment->path(), position, end, chunk, *buffer);
    for (;;) {
      if (!records.empty() && !scanner.next_frame_buffered()) return batch;
      auto step = scanner.next();
      if (!step) return error(step.error());
      if (*step == FrameScanner::Step::kEnd) break;
      if (*step == FrameScanner::Step::kDamaged) {
        return error(Status::corruption("corrupt record in " + segment->path().string() +
                                        " at byte " + std::to_string(scanner.frame_position()) +
                                        ": " + scanner.damage_reason()));
      }
      const RecordView& record = scanner.record();
      if (record.offset < want) continue;
      records.push_back(to_consumed_record(record));
      bytes += scanner.frame_data().size();
      if (bytes >= max_bytes) return batch;
    }
    if (!records.empty()) return batch;  // a new scan would reuse the buffer
    std::lock_guard lock(mu_);
    if (segment->layout().size > end) {
      // The writer published more records in this segment while it was being read.
      position = end;
      end = segment->layout().size;
      continue;
    }
    // Done with this segment (a later one exists only once it is complete). Compaction may
    // have replaced it meanwhile, merged with its neighbours: go on in the segment that now
    // holds `want`, else in the next one.
    want = std::max(want, segment->layout().next_offset);
    if (const auto& holder = segment_for(want); holder != segment) {
      segment = holder;
    } else {
      auto next = std::upper_bound(
          segments_.begin(), segments_.end(), segment->base_offset(),
          [](std::int64_t o, const std::shared_ptr<Segment>& s) { return o < s->base_offset(); });
      if (next == segments_.end()) return batch;
      segment = *next;
    }
    want = std::max(want, segment->base_offset());
    if (want >= end_offset_.load()) return batch;
    position = segment->scan_start(want);
    end = segment->layout().size;
  }
}

Result<Offset> PartitionLogImpl::offset_for_timestamp(Timestamp t) const {
  struct Candidate {
    std::shared_ptr<Segment> segment;
    std::int64_t position;
    std::int64_t end;
  };
  std::vector<Candidate> candidates;
  std::int64_t end_offset = 0;
  const std::int64_t start = start_offset_.load();
  {
    std::lock_guard lock(mu_);
    end_offset = end_offset_.load();
    for (const auto& segment : segments_) {
      // A segment whose newest record is older than t cannot hold the answer.
      if (segment->layout().max_timestamp < t.value()) continue;
      if (segment->layout().next_offset <= start) continue;
      candidates.push_back({segment, segment->scan_start(start), segment->layout().size});
    }
  }
  ByteBuffer buffer;
  for (const Candidate& candidate : candidates) {
    FrameScanner scanner(candidate.segment->fd(), candidate.segment->path(), candidate.position,
                         candidate.end, std::size_t{1} << 20, buffer);
    for (;;) {
      auto step = scanner.next();
      if (!step) return error(step.error());
      if (*step == FrameScanner::Step::kEnd) break;
      if (*step == FrameScanner::Step::kDamaged) {
        return error(Status::corruption("corrupt record in " + candidate.segment->path().string() +
                                        " at byte " + std::to_string(scanner.frame_position()) +
                                        ": " + scanner.damage_reason()));
      }
      const RecordView& record = scanner.record();
      if (record.offset >= start && record.timestamp >= t.value()) return Offset(record.offset);
    }
  }
  return Offset(end_offset);
}

}  // namespace brook::internal
