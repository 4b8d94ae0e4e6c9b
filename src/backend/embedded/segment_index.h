// The layout of a closed segment (segment.h: size, next offset, largest timestamp, record count,
// sparse index), kept beside it in `<20-digit base offset>.index` so that opening the log reads
// the closed segments' indexes instead of every byte of them (docs/log_format.md).
//
// An index is written when its segment closes (the log rolls to a new one, or compaction
// writes the segment) without fsync: it can always be rebuilt by scanning the segment. It is
// used only if its checksum matches and it describes a segment of the base offset and size
// found; anything else makes the open scan the segment and write the index again.
//
// Format (little endian): "brookidx" | u32 version (1) | i64 base offset | i64 size |
// i64 next offset | i64 max timestamp | i64 record count | u32 entry count |
// entry count × (i64 offset, i64 position) | u32 crc32c of every byte before it.
#pragma once

#include <cstdint>
#include <filesystem>

#include "backend/embedded/segment.h"
#include "brook/status.h"

namespace brook::internal {

// `layout` of the segment at `base_offset` as index file `path`.
Status write_segment_index(const std::filesystem::path& path, std::int64_t base_offset,
                           const SegmentLayout& layout);

// The layout in index file `path`, if it describes the segment at `base_offset` of
// `segment_bytes` bytes whose records are below `limit_offset` (the next segment's base).
// kNotFound if there is no such file; kCorruption with the reason if it does not check out.
Result<SegmentLayout> read_segment_index(const std::filesystem::path& path,
                                         std::int64_t base_offset, std::int64_t segment_bytes,
                                         std::int64_t limit_offset);

}  // namespace brook::internal
