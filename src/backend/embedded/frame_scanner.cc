#include "backend/embedded/frame_scanner.h"

#include <algorithm>
#include <cstring>

#include "backend/embedded/file_io.h"
#include "brook/internal/coding.h"

namespace brook::internal {

FrameScanner::FrameScanner(int fd, const std::filesystem::path& path, std::int64_t begin,
                           std::int64_t end, std::size_t chunk_bytes, ByteBuffer& buffer)
    : fd_(fd),
      path_(path),
      end_(end),
      chunk_bytes_(std::max<std::size_t>(chunk_bytes, kFrameHeaderBytes)),
      buffer_(buffer),
      buffer_position_(begin),
      cursor_(begin) {
  buffer_.clear();
}

Status FrameScanner::fill(std::size_t n) {
  const auto offset_in_buffer = static_cast<std::size_t>(cursor_ - buffer_position_);
  if (buffer_.size() - offset_in_buffer >= n) return Status::ok_status();
  // Move the unread bytes to the front, then read at least the missing ones.
  const std::size_t kept = buffer_.size() - offset_in_buffer;
  if (kept > 0 && offset_in_buffer > 0) {
    std::memmove(buffer_.data(), buffer_.data() + offset_in_buffer, kept);
  }
  buffer_.clear();
  buffer_.extend(kept);
  buffer_position_ = cursor_;
  const auto left_in_range = static_cast<std::size_t>(end_ - cursor_) - kept;
  const std::size_t want = std::min(std::max(n - kept, chunk_bytes_), left_in_range);
  char* out = buffer_.extend(want);
  auto got = read_at(fd_, path_, out, want, cursor_ + static_cast<std::int64_t>(kept));
  if (!got) return got.error();
  if (*got < want) {
    return Status::corruption(path_.string() + " is shorter than expected (" +
                              std::to_string(cursor_ + static_cast<std::int64_t>(kept + *got)) +
                              " bytes, expected " + std::to_string(end_) + ")");
  }
  return Status::ok_status();
}

bool FrameScanner::next_frame_buffered() const {
  if (cursor_ >= end_) return true;
  const auto offset_in_buffer = static_cast<std::size_t>(cursor_ - buffer_position_);
  const std::size_t buffered = buffer_.size() - offset_in_buffer;
  if (buffered < kFrameHeaderBytes) return false;
  const auto body_bytes = get_little_endian<std::uint32_t>(buffer_.data() + offset_in_buffer);
  return buffered - kFrameHeaderBytes >= body_bytes;
}

FrameScanner::Step FrameScanner::damaged(Damage damage, std::string reason) {
  damage_ = damage;
  damage_reason_ = std::move(reason);
  return Step::kDamaged;
}

Result<FrameScanner::Step> FrameScanner::next() {
  frame_position_ = cursor_;
  if (cursor_ >= end_) return Step::kEnd;
  const std::int64_t left = end_ - cursor_;
  if (left < static_cast<std::int64_t>(kFrameHeaderBytes)) {
    return damaged(Damage::kIncomplete, "incomplete frame header (" + std::to_string(left) +
                                            " bytes before the end of the file)");
  }
  if (Status s = fill(kFrameHeaderBytes); !s.ok()) return error(std::move(s));
  const char* frame = buffer_.data() + (cursor_ - buffer_position_);
  const std::optional<FrameHeader> header = decode_frame_header(frame);
  if (!header) return damaged(Damage::kBadHeader, "frame header checksum mismatch");
  if (header->body_bytes < kMinBodyBytes || header->body_bytes > kMaxBodyBytes) {
    return damaged(Damage::kMalformed,
                   "record length " + std::to_string(header->body_bytes) + " out of range");
  }
  const std::size_t frame_bytes = header->frame_bytes();
  if (static_cast<std::int64_t>(frame_bytes) > left) {
    return damaged(Damage::kIncomplete, "record of " + std::to_string(frame_bytes) +
                                            " bytes extends past the end of the file (" +
                                            std::to_string(left) + " bytes left)");
  }
  if (Status s = fill(frame_bytes); !s.ok()) return error(std::move(s));
  frame = buffer_.data() + (cursor_ - buffer_position_);
  if (!body_crc_matches(*header, frame + kFrameHeaderBytes)) {
    damaged_frame_bytes_ = frame_bytes;
    return damaged(Damage::kBadBody, "record checksum mismatch");
  }
  const std::string_view body(frame + kFrameHeaderBytes, header->body_bytes);
  if (decode_body_into(body, record_) != nullptr) {
    return damaged(Damage::kMalformed, decode_body(body).error().message());
  }
  frame_data_ = std::string_view(frame, frame_bytes);
  cursor_ += static_cast<std::int64_t>(frame_bytes);
  return Step::kFrame;
}

Result<bool> intact_frame_in(int fd, const std::filesystem::path& path, std::int64_t from,
                             std::int64_t end) {
  constexpr std::size_t kWindow = std::size_t{1} << 20;
  ByteBuffer window;
  ByteBuffer body;
  for (std::int64_t start = from; start + static_cast<std::int64_t>(kFrameHeaderBytes) <= end;
       start += kWindow) {
    // Each window overlaps the next by a header's length, so every header position is seen.
    const auto bytes = static_cast<std::size_t>(
        std::min<std::int64_t>(kWindow + kFrameHeaderBytes - 1, end - start));
    window.clear();
    auto got = read_at(fd, path, window.extend(bytes), bytes, start);
    if (!got) return error(got.error());
    for (std::size_t i = 0; i + kFrameHeaderBytes <= *got && i < kWindow; ++i) {
      const std::optional<FrameHeader> header = decode_frame_header(window.data() + i);
      if (!header || header->body_bytes < kMinBodyBytes || header->body_bytes > kMaxBodyBytes) {
        continue;
      }
      const std::int64_t position = start + static_cast<std::int64_t>(i);
      if (position + static_cast<std::int64_t>(header->frame_bytes()) > end) continue;
      body.clear();
      auto body_got = read_at(fd, path, body.extend(header->body_bytes), header->body_bytes,
                              position + static_cast<std::int64_t>(kFrameHeaderBytes));
      if (!body_got) return error(body_got.error());
      if (*body_got == header->body_bytes && body_crc_matches(*header, body.data())) return true;
    }
  }
  return false;
}

}  // namespace brook::internal
