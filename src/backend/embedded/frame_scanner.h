// FrameScanner: reads the record frames of one segment file in order, between two byte
// positions, through a caller-owned buffer (one pread per chunk, no allocation per record; a
// buffer reused across scans avoids allocating at all). Every
// length is bounded by the scanned range before it is used, so garbage never makes it read out
// of bounds or allocate more than the range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "backend/embedded/byte_buffer.h"
#include "backend/embedded/record_format.h"
#include "brook/status.h"

namespace brook::internal {

class FrameScanner {
 public:
  enum class Step {
    kFrame,    // frame_position(), frame_data() and record() describe the next record
    kEnd,      // the scan reached `end` exactly at a frame boundary
    kDamaged,  // the bytes at frame_position() are not an intact frame; the scan stops
  };
  enum class Damage {
    kNone,
    kIncomplete,  // the frame (header or body) extends past `end`
    kBadHeader,   // the frame header's checksum does not match
    kBadBody,     // the header is intact but the body's checksum does not match
    kMalformed,   // checksums match but the contents are invalid (length, fields)
  };

  // Scans [begin, end) of `fd` (named `path` in messages), reading `chunk_bytes` at a time (more
  // when one frame is larger) into `buffer`, which it clears. `end` must not exceed the file
  // size. `path` and `buffer` must outlive the scanner.
  FrameScanner(int fd, const std::filesystem::path& path, std::int64_t begin, std::int64_t end,
               std::size_t chunk_bytes, ByteBuffer& buffer);

  // Advances to the next frame. Fails only on an I/O error (or a file shorter than `end`).
  Result<Step> next();

  // Whether next() can go on without reading the file, so without moving the buffer's bytes:
  // the scan is at its end, or the next frame (as long as its header says, checked or not) is
  // in the buffer already. Views into frames it returned stay valid while this holds.
  bool next_frame_buffered() const;

  // Valid after kFrame until the next call: the frame's position, its bytes and its record.
  std::int64_t frame_position() const { return frame_position_; }
  std::string_view frame_data() const { return frame_data_; }
  const RecordView& record() const { return record_; }

  // Valid after kDamaged (frame_position() is where the damage starts).
  Damage damage() const { return damage_; }
  const std::string& damage_reason() const { return damage_reason_; }
  // For kBadBody: the frame's length according to its (intact) header.
  std::size_t damaged_frame_bytes() const { return damaged_frame_bytes_; }

 private:
  // Makes [cursor_, cursor_ + n) available in the buffer; n <= end_ - cursor_.
  Status fill(std::size_t n);
  Step damaged(Damage damage, std::string reason);

  int fd_;
  const std::filesystem::path& path_;
  std::int64_t end_;
  std::size_t chunk_bytes_;
  ByteBuffer& buffer_;
  std::int64_t buffer_position_;  // file position of buffer_.data()[0]
  std::int64_t cursor_;           // file position of the next frame
  std::int64_t frame_position_ = 0;
  std::string_view frame_data_;
  RecordView record_;
  Damage damage_ = Damage::kNone;
  std::string damage_reason_;
  std::size_t damaged_frame_bytes_ = 0;
};

// Whether an intact frame (header checksum, length within range and body checksum all good)
// starts at any byte position in [from, end) of `fd`. Used on open to tell a torn tail (nothing
// intact after the damage) from corruption (intact records after it). Reads in bounded chunks.
Result<bool> intact_frame_in(int fd, const std::filesystem::path& path, std::int64_t from,
                             std::int64_t end);

}  // namespace brook::internal
