// PartitionLogImpl's maintenance: delete_records_before, time rolls, retention and compaction
// (docs/log_format.md describes the rules and the crash-safety of each step).
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>

#include "backend/embedded/checksummed_file.h"
#include "backend/embedded/file_io.h"
#include "backend/embedded/frame_scanner.h"
#include "backend/embedded/partition_log_impl.h"
#include "core/bytes_hash.h"
#include "core/log.h"

namespace brook::internal {
namespace {

constexpr std::size_t kScanChunkBytes = std::size_t{1} << 20;
constexpr std::size_t kCompactionWriteBytes = std::size_t{1} << 20;

// a - b, clamped to the int64 range.
std::int64_t saturating_sub(std::int64_t a, std::int64_t b) {
  std::int64_t result;
  if (__builtin_sub_overflow(a, b, &result)) {
    return b > 0 ? std::numeric_limits<std::int64_t>::min()
                 : std::numeric_limits<std::int64_t>::max();
  }
  return result;
}

// a + b, clamped to the int64 range.
std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t result;
  if (__builtin_add_overflow(a, b, &result)) {
    return b > 0 ? std::numeric_limits<std::int64_t>::max()
                 : std::numeric_limits<std::int64_t>::min();
  }
  return result;
}

bool has_delete(CleanupPolicy policy) { return policy != CleanupPolicy::kCompact; }
bool has_compact(CleanupPolicy policy) { return policy != CleanupPolicy::kDelete; }

Status corrupt_at(const Segment& segment, const FrameScanner& scanner) {
  return Status::corruption("corrupt record in " + segment.path().string() + " at byte " +
                            std::to_string(scanner.frame_position()) + ": " +
                            scanner.damage_reason());
}

}  // namespace

// The newest record of every key in the closed segments, and what compaction keeps of each
// closed segment.
struct NewestOffsets {
  struct Newest {
    std::int64_t offset;
    std::int64_t frame_bytes;
    std::size_t segment;
    bool kept;  // not a tombstone past delete_retention_ms
  };
  BytesMap<Newest> by_key;
  std::vector<std::int64_t> kept_bytes;  // by closed segment
};

Status PartitionLogImpl::delete_records_before(Offset offset) {
  const std::int64_t end = end_offset_.load();
  if (offset.value() > end) {
    return Status::invalid_argument("cannot delete records before offset " +
                                    std::to_string(offset.value()) + ": the log of " +
                                    dir_.string() + " ends at " + std::to_string(end));
  }
  if (offset.value() <= start_offset_.load()) return Status::ok_status();
  // Persist first: a crash after this leaves segments below the start, dropped next time.
  if (Status s = write_checksummed_file(dir_ / kStartOffsetFile, std::to_string(offset.value()));
      !s.ok()) {
    return s;
  }
  {
    std::lock_guard lock(mu_);
    start_offset_.store(offset.value());
  }
  return drop_segments_below_start();
}

Status PartitionLogImpl::run_maintenance(Timestamp now) {
  if (!failed_.ok()) return failed_;
  if (Status s = roll_if_older_than(now.value()); !s.ok()) return s;
  if (has_delete(config_.cleanup_policy)) {
    if (Status s = apply_retention(now.value()); !s.ok()) return s;
  }
  if (has_compact(config_.cleanup_policy) && compaction_due(now.value())) {
    if (Status s = compact(now.value()); !s.ok()) return s;
  }
  return drop_segments_below_start();
}

Status PartitionLogImpl::roll_if_older_than(std::int64_t now) {
  if (active_since_ms_ == kNoTimestamp ||
      saturating_sub(now, active_since_ms_) < config_.segment_ms) {
    return Status::ok_status();
  }
  return roll(end_offset_.load());
}

Status PartitionLogImpl::drop_segments_below_start() {
  // Every record of a closed segment is below the next segment's base offset.
  while (segments_.size() > 1 && segments_[1]->base_offset() <= start_offset_.load()) {
    if (Status s = drop_oldest_segment(); !s.ok()) return s;
  }
  return Status::ok_status();
}

Status PartitionLogImpl::drop_oldest_segment() {
  std::shared_ptr<Segment> dropped;
  {
    std::lock_guard lock(mu_);
    dropped = segments_.front();
    segments_.erase(segments_.begin());
    size_bytes_.fetch_sub(dropped->layout().size);
    start_offset_.store(std::max(start_offset_.load(), segments_.front()->base_offset()));
  }
  std::erase(unsynced_, dropped);
  // Readers still holding `dropped` keep reading through its open descriptor.
  if (::unlink(dropped->path().c_str()) != 0) return errno_status("remove", dropped->path());
  const std::filesystem::path index = dropped->index_path();
  if (::unlink(index.c_str()) != 0 && errno != ENOENT) return errno_status("remove", index);
  return Status::ok_status();
}

Status PartitionLogImpl::apply_retention(std::int64_t now) {
  if (config_.retention_ms >= 0) {
    const std::int64_t horizon = saturating_sub(now, config_.retention_ms);
    while (segments_.size() > 1 && segments_.front()->layout().max_timestamp < horizon) {
      if (Status s = drop_oldest_segment(); !s.ok()) return s;
    }
  }
  if (config_.retention_bytes >= 0) {
    while (segments_.size() > 1 && size_bytes_.load() > config_.retention_bytes) {
      if (Status s = drop_oldest_segment(); !s.ok()) return s;
    }
  }
  return Status::ok_status();
}

bool PartitionLogImpl::compaction_due(std::int64_t now) const {
  if (segments_.size() < 2) return false;
  if (now >= tombstone_due_) return true;
  std::int64_t clean = 0;
  std::int64_t dirty = 0;
  for (std::size_t i = 0; i + 1 < segments_.size(); ++i) {
    (segments_[i]->base_offset() < clean_end_ ? clean : dirty) += segments_[i]->layout().size;
  }
  return dirty > 0 && static_cast<double>(dirty) >=
                          config_.min_cleanable_dirty_ratio * static_cast<double>(clean + dirty);
}

Status PartitionLogImpl::compact(std::int64_t now) {
  const std::int64_t horizon = saturating_sub(now, config_.delete_retention_ms);
  // Pass 1: the newest record of each key in the closed segments, and the bytes of what each
  // segment keeps.
  const std::size_t closed = segments_.size() - 1;
  NewestOffsets newest;
  newest.kept_bytes.assign(closed, 0);
  ByteBuffer buffer;
  for (std::size_t i = 0; i < closed; ++i) {
    const Segment& segment = *segments_[i];
    FrameScanner scanner(segment.fd(), segment.path(), 0, segment.layout().size, kScanChunkBytes,
                         buffer);
    for (;;) {
      auto step = scanner.next();
      if (!step) return step.error();
      if (*step == FrameScanner::Step::kEnd) break;
      if (*step == FrameScanner::Step::kDamaged) return corrupt_at(segment, scanner);
      const RecordView& record = scanner.record();
      const auto bytes = static_cast<std::int64_t>(scanner.frame_data().size());
      if (!record.key) {
        newest.kept_bytes[i] += bytes;
        continue;
      }
      const NewestOffsets::Newest now_newest{.offset = record.offset,
                                             .frame_bytes = bytes,
                                             .segment = i,
                                             .kept = record.value || record.timestamp >= horizon};
      if (now_newest.kept) newest.kept_bytes[i] += bytes;
      if (auto it = newest.by_key.find(*record.key); it != newest.by_key.end()) {
        if (it->second.kept) newest.kept_bytes[it->second.segment] -= it->second.frame_bytes;
        it->second = now_newest;
      } else {
        newest.by_key.emplace(std::string(*record.key), now_newest);
      }
    }
  }
  // Groups of neighbours whose kept records fit one segment (segment_bytes), oldest first.
  std::vector<std::pair<std::size_t, std::size_t>> groups;
  for (std::size_t first = 0; first < closed;) {
    std::size_t last = first;
    std::int64_t bytes = newest.kept_bytes[first];
    while (last + 1 < closed && bytes + newest.kept_bytes[last + 1] <= config_.segment_bytes) {
      bytes += newest.kept_bytes[++last];
    }
    groups.emplace_back(first, last);
    first = last + 1;
  }
  // Pass 2: rewrite each group as one segment, oldest first. A tombstone dropped from a newer
  // segment has already had the older values of its key dropped from the older ones, so a
  // crash part-way never brings an old value back.
  tombstone_due_ = std::numeric_limits<std::int64_t>::max();
  std::size_t merged = 0;  // segments gone before the next group, by merging
  for (const auto& [first, last] : groups) {
    if (Status s = compact_group(first - merged, last - merged, newest, horizon); !s.ok()) {
      tombstone_due_ = std::numeric_limits<std::int64_t>::min();  // retried next time
      return s;
    }
    merged += last - first;
  }
  clean_end_ = segments_.back()->base_offset();
  return Status::ok_status();
}

Status PartitionLogImpl::compact_group(std::size_t first, std::size_t last,
                                       const NewestOffsets& newest,
                                       std::int64_t tombstone_horizon) {
  const std::vector<std::shared_ptr<Segment>> olds(segments_.begin() + first,
                                                   segments_.begin() + last + 1);
  const std::int64_t base = olds.front()->base_offset();
  const std::int64_t end = segments_[last + 1]->base_offset();
  std::filesystem::path cleaned = olds.front()->path();
  cleaned += ".cleaned";
  auto fd = open_file(cleaned, O_RDWR | O_CREAT | O_TRUNC);
  if (!fd) return fd.error();

  SegmentLayout layout{.next_offset = base};
  ByteBuffer out;
  std::int64_t written = 0;
  std::int64_t dropped = 0;
  std::int64_t tombstone_due = tombstone_due_;
  ByteBuffer buffer;
  Status status;
  for (const auto& old : olds) {
    FrameScanner scanner(old->fd(), old->path(), 0, old->layout().size, kScanChunkBytes, buffer);
    for (;;) {
      auto step = scanner.next();
      if (!step) {
        status = step.error();
        break;
      }
      if (*step == FrameScanner::Step::kEnd) break;
      if (*step == FrameScanner::Step::kDamaged) {
        status = corrupt_at(*old, scanner);
        break;
      }
      const RecordView& record = scanner.record();
      // Null-key records are kept as they are; keyed ones only if newest for their key and
      // not a tombstone past delete_retention_ms.
      if (record.key) {
        const auto it = newest.by_key.find(*record.key);
        const bool is_newest = it == newest.by_key.end() || it->second.offset == record.offset;
        const bool tombstone = !record.value;
        if (!is_newest || (tombstone && record.timestamp < tombstone_horizon)) {
          ++dropped;
          continue;
        }
        if (tombstone) {
          tombstone_due = std::min(
              tombstone_due,
              saturating_add(saturating_add(record.timestamp, config_.delete_retention_ms), 1));
        }
      }
      const std::string_view frame = scanner.frame_data();
      layout.add_record(record.offset, record.timestamp, layout.size,
                        static_cast<std::int64_t>(frame.size()));
      out.append(frame.data(), frame.size());
      if (out.size() >= kCompactionWriteBytes) {
        status = write_at(fd->get(), cleaned, out.data(), out.size(), written);
        if (!status.ok()) break;
        written += static_cast<std::int64_t>(out.size());
        out.clear();
      }
    }
    if (!status.ok()) break;
  }
  const bool rewrite = dropped > 0 || olds.size() > 1;
  if (status.ok() && rewrite)
    status = write_at(fd->get(), cleaned, out.data(), out.size(), written);
  if (status.ok() && rewrite) status = sync_fd(fd->get(), cleaned);
  if (!status.ok() || !rewrite) {
    ::unlink(cleaned.c_str());
    if (status.ok()) tombstone_due_ = tombstone_due;
    return status;
  }
  // The commit point: once the swap file is durable, the next open finishes the replacement.
  const std::filesystem::path swap = dir_ / Segment::swap_file_name(base, end);
  if (::rename(cleaned.c_str(), swap.c_str()) != 0) {
    Status s = errno_status("rename", cleaned);
    ::unlink(cleaned.c_str());
    return s;
  }
  std::vector<std::int64_t> replaced;
  for (std::size_t i = 1; i < olds.size(); ++i) replaced.push_back(olds[i]->base_offset());
  if (Status s = sync_dir(dir_); !s.ok() || !(s = complete_swap(dir_, base, end, replaced)).ok()) {
    // Finished by the next open; until then this log takes no more writes.
    failed_ = Status::io_error(s.message() + " while replacing compacted segments of " +
                               dir_.string() + ": reopen the log to finish");
    return failed_;
  }

  auto replacement =
      std::make_shared<Segment>(olds.front()->path(), base, std::move(*fd), std::move(layout));
  std::int64_t old_bytes = 0;
  for (const auto& old : olds) old_bytes += old->layout().size;
  {
    std::lock_guard lock(mu_);
    size_bytes_.fetch_add(replacement->layout().size - old_bytes);
    segments_.erase(segments_.begin() + first + 1, segments_.begin() + last + 1);
    segments_[first] = replacement;
  }
  for (const auto& old : olds) std::erase(unsynced_, old);
  replacement->write_index();
  tombstone_due_ = tombstone_due;
  log(LogLevel::kDebug, "{}: compacted {} segment(s) into one, {} records dropped, {} kept",
      replacement->path().string(), olds.size(), dropped, replacement->layout().record_count);
  return Status::ok_status();
}

Status PartitionLogImpl::complete_swap(const std::filesystem::path& dir, std::int64_t base,
                                       std::int64_t end, std::span<const std::int64_t> replaced) {
  // The indexes first: one left beside the replacement would describe the file it replaced.
  std::vector<std::filesystem::path> gone{dir / Segment::index_file_name(base)};
  for (const std::int64_t b : replaced) gone.push_back(dir / Segment::index_file_name(b));
  for (const std::int64_t b : replaced) gone.push_back(dir / Segment::file_name(b));
  for (const auto& path : gone) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return errno_status("remove", path);
  }
  const std::filesystem::path swap = dir / Segment::swap_file_name(base, end);
  const std::filesystem::path segment = dir / Segment::file_name(base);
  if (::rename(swap.c_str(), segment.c_str()) != 0) return errno_status("rename", swap);
  return sync_dir(dir);
}

}  // namespace brook::internal
