// PartitionLogImpl: the PartitionLog of the embedded backend, a directory of segment files
// (docs/log_format.md). Split over partition_log.cc (open, append, read) and
// log_maintenance.cc (delete_records_before, time rolls, retention, compaction).
//
// Concurrency: one writer thread calls append/flush/delete_records_before/run_maintenance
// (the caller serialises them); any number of threads call read/offset_for_timestamp/the
// getters. mu_ guards the segment list and each segment's layout; the writer reads them
// without the lock (it is their only writer) and takes it only to publish a change. Readers
// take it only to pick a segment and snapshot its size and index position, then pread() the
// bytes unlocked: bytes below a published size are never rewritten in place.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <vector>

#include "backend/embedded/byte_buffer.h"
#include "backend/embedded/partition_log.h"
#include "backend/embedded/segment.h"

namespace brook::internal {

struct NewestOffsets;  // compaction's map of each key's newest record (log_maintenance.cc)

// The partition's file holding its log start offset (docs/log_format.md), if one was set.
inline constexpr std::string_view kStartOffsetFile = "start-offset";

class PartitionLogImpl final : public PartitionLog {
 public:
  PartitionLogImpl(std::filesystem::path dir, PartitionLogConfig config);

  // Loads the segments of dir_ (PartitionLog::open's work).
  Status load();

  using PartitionLog::append;
  Result<Offset> append(std::span<const RecordToAppend> records) override;
  Status flush() override;
  Result<RecordBatch> read(Offset from, std::size_t max_bytes) const override;
  Offset start_offset() const override { return Offset(start_offset_.load()); }
  Offset end_offset() const override { return Offset(end_offset_.load()); }
  Result<Offset> offset_for_timestamp(Timestamp t) const override;
  Status delete_records_before(Offset offset) override;
  Status run_maintenance(Timestamp now) override;
  std::int64_t size_bytes() const override { return size_bytes_.load(); }

 private:
  // Writer: writes write_buffer_ (records up to `next_offset` - 1) at the end of `segment` in
  // one pwrite() and publishes them.
  Status write_out(Segment& segment, std::int64_t record_count, std::int64_t next_offset,
                   std::int64_t max_timestamp);
  // Writer: starts a new active segment at `base_offset`.
  Status roll(std::int64_t base_offset);
  // The second half of replacing the segments with base offsets in [base, end) by the
  // compacted `<swap_file_name(base, end)>` (durable: the commit point): removes the files of
  // `replaced` (those after `base`), renames the swap file to `base`'s segment, syncs `dir`.
  static Status complete_swap(const std::filesystem::path& dir, std::int64_t base, std::int64_t end,
                              std::span<const std::int64_t> replaced);

  // Maintenance (log_maintenance.cc).
  Status roll_if_older_than(std::int64_t now);  // segment_ms
  Status apply_retention(std::int64_t now);
  bool compaction_due(std::int64_t now) const;
  Status compact(std::int64_t now);
  // Rewrites the closed segments [first, last] as one segment (named as `first`) holding the
  // records compaction keeps; leaves a single segment alone if it would drop nothing.
  Status compact_group(std::size_t first, std::size_t last, const NewestOffsets& newest,
                       std::int64_t tombstone_horizon);
  Status drop_segments_below_start();
  // Removes the oldest segment (never the active one) and its file.
  Status drop_oldest_segment();

  // The segment holding `offset` (the last one whose base is <= it, else the first). mu_ held.
  const std::shared_ptr<Segment>& segment_for(std::int64_t offset) const;

  const std::filesystem::path dir_;
  const PartitionLogConfig config_;

  mutable std::mutex mu_;
  std::vector<std::shared_ptr<Segment>> segments_;  // by base offset; back() is the active one
  std::atomic<std::int64_t> start_offset_{0};
  std::atomic<std::int64_t> end_offset_{0};
  std::atomic<std::int64_t> size_bytes_{0};

  // Writer-only state.
  ByteBuffer write_buffer_;                         // encoded records of the current append
  std::vector<IndexEntry> pending_index_;           // their index entries
  std::vector<std::shared_ptr<Segment>> unsynced_;  // rolled segments flush() must still fsync
  bool dir_unsynced_ = false;                       // a segment file was created since flush()
  // Set when a failed write could not be undone, or an fsync failed: appends and flushes fail
  // until the log is reopened.
  Status failed_;
  std::int64_t active_since_ms_ = kNoTimestamp;  // wall clock of the active segment's first
                                                 // append (or of the open); none if empty
  std::int64_t clean_end_ = 0;  // closed segments below this offset are compacted (not kept
                                // across an open: everything is dirty then)
  // When the first tombstone kept by the last compaction expires.
  std::int64_t tombstone_due_ = std::numeric_limits<std::int64_t>::max();
};

}  // namespace brook::internal
