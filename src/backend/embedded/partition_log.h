// PartitionLog: the records of one topic partition on local disk, as a sequence of segment
// files with checksummed records (format: docs/log_format.md).
//
// Offsets start at 0 and grow by one per record. Reads never see a torn write: opening a log
// whose last segment ends in a partial or corrupt record truncates that tail (it was never
// acknowledged); a corrupt record anywhere else is an error naming the file and position.
//
// Thread safety: append/flush/maintenance calls are serialised by the caller's writer; read()
// may run concurrently with append() from other threads (it sees a prefix of the log).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "brook/record.h"
#include "brook/status.h"

namespace brook::internal {

enum class CleanupPolicy { kDelete, kCompact, kCompactDelete };

struct PartitionLogConfig {
  std::int64_t segment_bytes = 64 << 20;       // roll to a new segment past this size
  std::int64_t retention_ms = -1;              // delete: drop segments older than this; -1 = keep
  std::int64_t retention_bytes = -1;           // delete: keep at most this many bytes; -1 = keep
  CleanupPolicy cleanup_policy = CleanupPolicy::kDelete;
  std::int64_t delete_retention_ms = 86'400'000;  // compact: how long tombstones survive
  bool fsync_on_flush = false;                 // flush() also fsyncs (power-loss durability)
};

// A record as stored: what a ConsumerRecord holds minus the topic and partition.
struct StoredRecord {
  Offset offset;
  Timestamp timestamp;
  std::optional<std::string> key;
  std::optional<std::string> value;
  Headers headers;
};

class PartitionLog {
 public:
  // Opens (creating if needed) the log in `dir`. Truncates a torn tail; kCorruption naming the
  // file and byte position for damage that is not a torn tail.
  static Result<std::unique_ptr<PartitionLog>> open(std::filesystem::path dir,
                                                   PartitionLogConfig config);
  virtual ~PartitionLog() = default;

  // Appends records (their offsets are ignored and assigned). Returns the first offset given.
  // Data is in the OS page cache when this returns (survives a killed process); flush() makes
  // it durable against power loss if fsync_on_flush.
  virtual Result<Offset> append(std::span<const StoredRecord> records) = 0;
  virtual Status flush() = 0;

  // Records with offset >= `from`, in offset order, up to about `max_bytes` (at least one record
  // if any exists). Offsets may have gaps after compaction. `from` below the start offset reads
  // from the start; at or past the end gives an empty vector.
  virtual Result<std::vector<StoredRecord>> read(Offset from, std::size_t max_bytes) const = 0;

  virtual Offset start_offset() const = 0;  // the first offset still stored
  virtual Offset end_offset() const = 0;    // the offset the next append gets
  // The first offset whose timestamp is >= `t`, or end_offset() if none.
  virtual Result<Offset> offset_for_timestamp(Timestamp t) const = 0;

  // Makes every record before `offset` unreadable (start_offset() becomes `offset`) and drops
  // whole segments below it.
  virtual Status delete_records_before(Offset offset) = 0;
  // Applies retention.ms / retention.bytes (policy delete or compact,delete) and compaction
  // (policy compact or compact,delete) now. Compaction keeps the newest record per key, never
  // touches the active segment, and drops tombstones older than delete_retention_ms.
  virtual Status run_maintenance(Timestamp now) = 0;
  // Total bytes of the segment files.
  virtual std::int64_t size_bytes() const = 0;
};

}  // namespace brook::internal
