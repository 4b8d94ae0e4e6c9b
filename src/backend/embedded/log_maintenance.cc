// PartitionLogImpl's maintenance: delete_records_before, retention and compaction
// (docs/log_format.md describes the rules and the crash-safety of each step).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>

#include "backend/embedded/checksummed_file.h"
#include "backend/embedded/file_io.h"
#include "backend/embedded/frame_scanner.h"
#include "backend/embedded/partition_log_impl.h"
#include "core/log.h"

namespace brook::internal {
namespace {

constexpr std::string_view kStartOffsetFile = "start-offset";
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

bool has_delete(CleanupPolicy policy) { return policy != CleanupPolicy::kCompact; }
bool has_compact(CleanupPolicy policy) { return policy != CleanupPolicy::kDelete; }

Status corrupt_at(const Segment& segment, const FrameScanner& scanner) {
  return Status::corruption("corrupt record in " + segment.path().string() + " at byte " +
                            std::to_string(scanner.frame_position()) + ": " +
                            scanner.damage_reason());
}

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace

// The newest offset of every key in the closed segments.
struct NewestOffsets {
  std::unordered_map<std::string, std::int64_t, StringHash, std::equal_to<>> by_key;
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
  if (has_delete(config_.cleanup_policy)) {
    if (Status s = apply_retention(now.value()); !s.ok()) return s;
  }
  if (has_compact(config_.cleanup_policy)) {
    if (Status s = compact(now.value()); !s.ok()) return s;
  }
  return drop_segments_below_start();
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

Status PartitionLogImpl::compact(std::int64_t now) {
  if (segments_.size() < 2) return Status::ok_status();
  const std::size_t closed = segments_.size() - 1;
  // Pass 1: the newest offset of each key in the closed segments.
  NewestOffsets newest;
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
      if (!record.key) continue;
      if (auto it = newest.by_key.find(*record.key); it != newest.by_key.end()) {
        it->second = record.offset;
      } else {
        newest.by_key.emplace(std::string(*record.key), record.offset);
      }
    }
  }
  // Pass 2: rewrite each closed segment, oldest first. A tombstone dropped from a newer
  // segment has already had the older values of its key dropped from the older ones, so a
  // crash part-way never brings an old value back.
  const std::int64_t horizon = saturating_sub(now, config_.delete_retention_ms);
  for (std::size_t i = 0; i < closed; ++i) {
    if (Status s = compact_segment(i, newest, horizon); !s.ok()) return s;
  }
  return Status::ok_status();
}

Status PartitionLogImpl::compact_segment(std::size_t index, const NewestOffsets& newest,
                                         std::int64_t tombstone_horizon) {
  const std::shared_ptr<Segment> old = segments_[index];
  std::filesystem::path cleaned = old->path();
  cleaned += ".cleaned";
  auto fd = open_file(cleaned, O_RDWR | O_CREAT | O_TRUNC);
  if (!fd) return fd.error();

  SegmentLayout layout{.next_offset = old->base_offset()};
  ByteBuffer out;
  std::int64_t written = 0;
  std::int64_t dropped = 0;
  ByteBuffer buffer;
  FrameScanner scanner(old->fd(), old->path(), 0, old->layout().size, kScanChunkBytes, buffer);
  Status status;
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
    // Null-key records are kept as they are; keyed ones only if newest for their key and not
    // a tombstone past delete_retention_ms.
    bool keep = true;
    if (record.key) {
      const auto it = newest.by_key.find(*record.key);
      const bool is_newest = it == newest.by_key.end() || it->second == record.offset;
      const bool expired_tombstone = !record.value && record.timestamp < tombstone_horizon;
      keep = is_newest && !expired_tombstone;
    }
    if (!keep) {
      ++dropped;
      continue;
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
  if (status.ok() && dropped > 0) {
    status = write_at(fd->get(), cleaned, out.data(), out.size(), written);
  }
  if (status.ok() && dropped > 0) status = sync_fd(fd->get(), cleaned);
  if (!status.ok() || dropped == 0) {
    ::unlink(cleaned.c_str());
    return status;
  }
  if (::rename(cleaned.c_str(), old->path().c_str()) != 0) {
    Status s = errno_status("rename", cleaned);
    ::unlink(cleaned.c_str());
    return s;
  }
  if (Status s = sync_dir(dir_); !s.ok()) return s;

  auto replacement =
      std::make_shared<Segment>(old->path(), old->base_offset(), std::move(*fd), std::move(layout));
  {
    std::lock_guard lock(mu_);
    size_bytes_.fetch_add(replacement->layout().size - old->layout().size);
    segments_[index] = replacement;
  }
  std::erase(unsynced_, old);
  log(LogLevel::kDebug, "{}: compacted, {} records dropped, {} kept", old->path().string(), dropped,
      replacement->layout().record_count);
  return Status::ok_status();
}

}  // namespace brook::internal
