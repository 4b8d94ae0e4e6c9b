#include "backend/embedded/segment_index.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <system_error>

#include "backend/embedded/crc32c.h"
#include "backend/embedded/file_io.h"
#include "brook/internal/coding.h"

namespace brook::internal {
namespace {

constexpr std::string_view kMagic = "brookidx";
constexpr std::uint32_t kVersion = 1;
// Magic, version, base offset, size, next offset, max timestamp, record count, entry count.
constexpr std::size_t kHeaderBytes = 8 + 4 + 5 * 8 + 4;
constexpr std::size_t kEntryBytes = 16;
constexpr std::size_t kCrcBytes = 4;

Status damaged(const std::filesystem::path& path, std::string_view reason) {
  return Status::corruption("segment index " + path.string() + ": " + std::string(reason));
}

}  // namespace

Status write_segment_index(const std::filesystem::path& path, std::int64_t base_offset,
                           const SegmentLayout& layout) {
  std::string bytes(kHeaderBytes + layout.index.size() * kEntryBytes + kCrcBytes, '\0');
  char* p = bytes.data();
  p = std::copy(kMagic.begin(), kMagic.end(), p);
  p = put_little_endian<std::uint32_t>(p, kVersion);
  for (std::int64_t field :
       {base_offset, layout.size, layout.next_offset, layout.max_timestamp, layout.record_count}) {
    p = put_little_endian<std::int64_t>(p, field);
  }
  p = put_little_endian<std::uint32_t>(p, static_cast<std::uint32_t>(layout.index.size()));
  for (const IndexEntry& entry : layout.index) {
    p = put_little_endian<std::int64_t>(p, entry.offset);
    p = put_little_endian<std::int64_t>(p, entry.position);
  }
  put_little_endian<std::uint32_t>(
      p, crc32c(bytes.data(), static_cast<std::size_t>(p - bytes.data())));
  return replace_file(path, bytes);
}

Result<SegmentLayout> read_segment_index(const std::filesystem::path& path,
                                         std::int64_t base_offset, std::int64_t segment_bytes,
                                         std::int64_t limit_offset) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return error(Status::not_found("no segment index " + path.string()));
  }
  auto contents = read_small_file(path);
  if (!contents) return error(contents.error());
  const std::string& bytes = *contents;
  if (bytes.size() < kHeaderBytes + kCrcBytes) return error(damaged(path, "too short"));
  const std::size_t body = bytes.size() - kCrcBytes;
  if (get_little_endian<std::uint32_t>(bytes.data() + body) != crc32c(bytes.data(), body)) {
    return error(damaged(path, "checksum mismatch"));
  }
  const char* p = bytes.data();
  if (std::string_view(p, kMagic.size()) != kMagic ||
      get_little_endian<std::uint32_t>(p + kMagic.size()) != kVersion) {
    return error(damaged(path, "not a version 1 segment index"));
  }
  p += kMagic.size() + 4;
  auto take = [&p] {
    const auto v = get_little_endian<std::int64_t>(p);
    p += 8;
    return v;
  };
  const std::int64_t base = take();
  SegmentLayout layout;
  layout.size = take();
  layout.next_offset = take();
  layout.max_timestamp = take();
  layout.record_count = take();
  const std::uint32_t entries = get_little_endian<std::uint32_t>(p);
  p += 4;
  if (base != base_offset) return error(damaged(path, "written for another base offset"));
  if (layout.size != segment_bytes) {
    return error(damaged(path, "describes " + std::to_string(layout.size) +
                                   " bytes, the segment has " + std::to_string(segment_bytes)));
  }
  if (body != kHeaderBytes + std::size_t{entries} * kEntryBytes || layout.next_offset < base ||
      layout.next_offset > limit_offset || layout.record_count < 0 ||
      layout.record_count > layout.next_offset - base ||
      (layout.record_count == 0) != (layout.size == 0)) {
    return error(damaged(path, "inconsistent fields"));
  }
  layout.index.reserve(entries);
  for (std::uint32_t i = 0; i < entries; ++i) {
    const IndexEntry entry{.offset = take(), .position = take()};
    const IndexEntry previous =
        layout.index.empty() ? IndexEntry{base - 1, 0} : layout.index.back();
    if (entry.offset <= previous.offset || entry.offset >= layout.next_offset ||
        entry.position <= previous.position || entry.position >= layout.size) {
      return error(damaged(path, "index entries out of order or out of the segment"));
    }
    layout.index.push_back(entry);
  }
  return layout;
}

}  // namespace brook::internal
