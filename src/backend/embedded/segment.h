// Segment: one `<20-digit base offset>.log` file of a PartitionLog, with what is known about its
// records (size, next offset, largest timestamp) and a sparse in-memory index from offsets to
// byte positions (one entry about every kIndexIntervalBytes), so a read by offset starts at most
// that many bytes before its record instead of scanning the file.
//
// The path, base offset and file descriptor never change. The layout changes only in the
// active segment, only by the log's writer, and is guarded by the owning log's mutex: readers
// take that mutex to look at it. Segments are shared (shared_ptr): a reader holding one can
// finish reading it even after the log dropped or replaced it (the open descriptor keeps the
// removed file readable).
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/embedded/file_io.h"
#include "brook/status.h"

namespace brook::internal {

inline constexpr std::int64_t kIndexIntervalBytes = 4096;
inline constexpr std::int64_t kNoTimestamp = std::numeric_limits<std::int64_t>::min();

struct IndexEntry {
  std::int64_t offset;
  std::int64_t position;
};

// Whether a record at `position` gets an index entry, given the last indexed position.
inline bool index_entry_due(std::int64_t position, std::int64_t last_indexed_position) {
  return position - last_indexed_position >= kIndexIntervalBytes;
}

// What the bytes of a segment hold.
struct SegmentLayout {
  std::int64_t size = 0;         // bytes of complete records
  std::int64_t next_offset = 0;  // the last record's offset + 1; the base offset if empty
  std::int64_t max_timestamp = kNoTimestamp;
  std::int64_t record_count = 0;
  std::vector<IndexEntry> index;  // increasing offsets; position 0 is implicitly indexed

  // The position of the newest index entry (0 if none).
  std::int64_t last_indexed_position() const { return index.empty() ? 0 : index.back().position; }
  // Accounts for a record of `frame_bytes` at `position` (= size), indexing it if it starts
  // kIndexIntervalBytes or more after the last indexed position.
  void add_record(std::int64_t offset, std::int64_t timestamp, std::int64_t position,
                  std::int64_t frame_bytes);
};

class Segment {
 public:
  Segment(std::filesystem::path path, std::int64_t base_offset, UniqueFd fd, SegmentLayout layout);

  // "00000000000000000042.log" for 42; parse_file_name is its inverse (nullopt for other names).
  static std::string file_name(std::int64_t base_offset);
  static std::optional<std::int64_t> parse_file_name(std::string_view name);
  // A compaction's output about to replace every segment with a base offset in [base, end):
  // "<file_name(base)>.<end in 20 digits>.swap"; parse_swap_file_name is its inverse.
  static std::string swap_file_name(std::int64_t base_offset, std::int64_t end_offset);
  static std::optional<std::pair<std::int64_t, std::int64_t>> parse_swap_file_name(
      std::string_view name);

  // "00000000000000000042.index" for 42: the segment's index file (segment_index.h).
  static std::string index_file_name(std::int64_t base_offset);

  // Creates the empty segment file `<dir>/<file_name(base_offset)>`; fails if it exists.
  static Result<std::shared_ptr<Segment>> create(const std::filesystem::path& dir,
                                                 std::int64_t base_offset);

  // Opens an existing segment file. A closed one (not `is_last`) takes its layout from its
  // index file if that checks out (segment_index.h); otherwise, and always for the last one,
  // the whole file is scanned: every checksum is checked, that offsets increase, are >= the
  // base offset and < `limit_offset` (the next segment's base), and the layout is built (and
  // a closed segment's index written). If `is_last` and the first damaged frame has no intact
  // frame anywhere after it, that is a torn tail: the file is truncated there and
  // `*truncated_bytes` says by how much. Any other damage is kCorruption naming the file and
  // byte position. The last segment's index file, if any, is removed: it may be stale.
  static Result<std::shared_ptr<Segment>> open(const std::filesystem::path& path,
                                               std::int64_t base_offset, bool is_last,
                                               std::int64_t limit_offset,
                                               std::int64_t* truncated_bytes);

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path index_path() const;
  std::int64_t base_offset() const { return base_offset_; }
  int fd() const { return fd_.get(); }

  // Guarded by the owning log's mutex.
  const SegmentLayout& layout() const { return layout_; }
  // Where to start scanning for `offset`: the position of the last index entry at or below it.
  std::int64_t scan_start(std::int64_t offset) const;
  // The writer wrote `bytes` more at the end of the file: records up to `next_offset` - 1, with
  // `index` entries for the new records and their largest timestamp.
  // Writer, once the segment is closed: writes its index file. A failure is logged, not
  // returned: the next open scans the segment instead.
  void write_index() const;
  void publish(std::int64_t bytes, std::int64_t record_count, std::int64_t next_offset,
               std::int64_t max_timestamp, std::span<const IndexEntry> index);

 private:
  std::filesystem::path path_;
  std::int64_t base_offset_;
  UniqueFd fd_;
  SegmentLayout layout_;
};

}  // namespace brook::internal
