// PartitionLog: the records of one topic partition on local disk, as a sequence of segment
// files with checksummed records (format: docs/log_format.md).
//
// Offsets start at 0 and grow by one per record. Reads never see a torn write: opening a log
// whose last segment ends in a partial or corrupt record truncates that tail (it was never
// acknowledged); a corrupt record anywhere else is an error naming the file and position.
//
// Thread safety: append/flush/delete_records_before/run_maintenance calls are serialised by the
// caller's writer; read(), offset_for_timestamp() and the getters may run concurrently with them
// from other threads (a read sees a prefix of the log as published by completed appends).
// One process per directory: the caller guards the data directory with a DirLock.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backend/record_batch.h"
#include "brook/record.h"
#include "brook/status.h"

namespace brook::internal {

enum class CleanupPolicy { kDelete, kCompact, kCompactDelete };

struct PartitionLogConfig {
  std::int64_t segment_bytes = 64 << 20;  // roll to a new segment past this size
  // Maintenance rolls the active segment once its first append is this old (7 days, Kafka's).
  std::int64_t segment_ms = 604'800'000;
  std::int64_t retention_ms = -1;     // delete: drop segments older than this; -1 = keep
  std::int64_t retention_bytes = -1;  // delete: keep at most this many bytes; -1 = keep
  CleanupPolicy cleanup_policy = CleanupPolicy::kDelete;
  std::int64_t delete_retention_ms = 86'400'000;  // compact: how long tombstones survive
  // compact: compaction starts once the closed segments not compacted yet hold this share of
  // the closed segments' bytes (Kafka's default), or a kept tombstone has expired.
  double min_cleanable_dirty_ratio = 0.5;
  bool fsync_on_flush = false;  // flush() also fsyncs (power-loss durability)
};

// A record as stored: what a ConsumerRecord holds minus the topic and partition.
struct StoredRecord {
  Offset offset;
  Timestamp timestamp;
  std::optional<std::string> key;
  std::optional<std::string> value;
  Headers headers;
};

// A record to append, viewing bytes that stay valid during the append.
struct RecordToAppend {
  Timestamp timestamp;
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;
  const Headers* headers = nullptr;  // none if null
};

// A view of `record`, valid while it is.
RecordToAppend to_append(const StoredRecord& record);

class PartitionLog {
 public:
  // Opens (creating if needed) the log in `dir`, scanning and checking every segment. Truncates a
  // torn tail (damage at the end of the last segment with no intact record after it; logged as
  // a warning); kCorruption naming the file and byte position for any other damage;
  // kInvalidArgument for segment_bytes <= 0; kIoError if the OS fails.
  static Result<std::unique_ptr<PartitionLog>> open(std::filesystem::path dir,
                                                    PartitionLogConfig config);
  virtual ~PartitionLog() = default;

  // Appends records (their offsets are ignored and assigned). Returns the first offset given
  // (end_offset() for an empty span). Data is in the OS page cache when this returns (survives a
  // killed process); flush() makes it durable against power loss if fsync_on_flush.
  // kInvalidArgument (nothing written) for a record over 256 MiB encoded; kIoError if a write
  // fails: the records of this call may then be appended up to a segment roll, not beyond.
  virtual Result<Offset> append(std::span<const RecordToAppend> records) = 0;
  // append() of views of `records`.
  Result<Offset> append(std::span<const StoredRecord> records);
  // fsyncs what append() wrote if fsync_on_flush, else does nothing. After a failed fsync the
  // log takes nothing more (appends and flushes fail with that error) until it is reopened.
  virtual Status flush() = 0;

  // Records with offset >= `from`, in offset order, up to about `max_bytes` (at least one record
  // if any exists; fewer when a segment ends first), viewing the frames as read, which the batch
  // owns (no copy after the read, no allocation per record). Offsets may have gaps after
  // compaction. `from` below the start offset reads from the start; at or past the end gives no
  // records. The batch's partition is left empty (the log does not know its name). kCorruption
  // (file and position) if a record read fails its checksum.
  virtual Result<RecordBatch> read(Offset from, std::size_t max_bytes) const = 0;

  virtual Offset start_offset() const = 0;  // the first offset still stored
  virtual Offset end_offset() const = 0;    // the offset the next append gets
  // The first offset >= start_offset() whose timestamp is >= `t`, or end_offset() if none.
  // Scans records in offset order, skipping segments whose largest timestamp is below `t`.
  virtual Result<Offset> offset_for_timestamp(Timestamp t) const = 0;

  // Makes every record before `offset` unreadable (start_offset() becomes `offset`, persisted)
  // and drops whole segments below it. Nothing if `offset` <= start_offset(); kInvalidArgument
  // if it is past end_offset().
  virtual Status delete_records_before(Offset offset) = 0;
  // Rolls the active segment if it is older than segment_ms, then applies retention.ms /
  // retention.bytes (policy delete or compact,delete) and compaction (policy compact or
  // compact,delete, when the dirty ratio or an expired tombstone calls for it). Compaction
  // keeps the newest record per key, never touches the active segment, drops tombstones older
  // than delete_retention_ms, and merges small neighbouring segments up to segment_bytes.
  // Retention never deletes the active segment. Rules and crash safety: docs/log_format.md.
  virtual Status run_maintenance(Timestamp now) = 0;
  // Total bytes of the segment files.
  virtual std::int64_t size_bytes() const = 0;
};

}  // namespace brook::internal
