#include "backend/embedded/segment.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "backend/embedded/frame_scanner.h"
#include "backend/embedded/segment_index.h"
#include "core/log.h"
#include "core/text_numbers.h"

namespace brook::internal {
namespace {

constexpr std::size_t kOffsetDigits = 20;
constexpr std::string_view kSegmentSuffix = ".log";
constexpr std::string_view kSwapSuffix = ".swap";
constexpr std::string_view kIndexSuffix = ".index";
constexpr std::size_t kOpenScanChunkBytes = std::size_t{1} << 20;

// `offset` in kOffsetDigits digits, zero-padded, then `suffix`.
std::string offset_name(std::int64_t offset, std::string_view suffix) {
  char digits[kOffsetDigits + 1];
  std::snprintf(digits, sizeof digits, "%020lld", static_cast<long long>(offset));
  return std::string(digits).append(suffix);
}

Status corrupt_at(const std::filesystem::path& path, std::int64_t position,
                  std::string_view reason) {
  return Status::corruption("corrupt record in " + path.string() + " at byte " +
                            std::to_string(position) + ": " + std::string(reason));
}

// Scans the `file_size` bytes of segment file `fd` (Segment::open's scan).
Result<SegmentLayout> scan(int fd, const std::filesystem::path& path, std::int64_t file_size,
                           std::int64_t base_offset, bool is_last, std::int64_t limit_offset,
                           std::int64_t* truncated_bytes) {
  SegmentLayout layout{.next_offset = base_offset};
  ByteBuffer buffer;
  FrameScanner scanner(fd, path, 0, file_size, kOpenScanChunkBytes, buffer);
  for (;;) {
    auto step = scanner.next();
    if (!step) return error(step.error());
    if (*step == FrameScanner::Step::kEnd) break;
    const std::int64_t position = scanner.frame_position();
    if (*step == FrameScanner::Step::kFrame) {
      const RecordView& record = scanner.record();
      if (record.offset < layout.next_offset) {
        return error(corrupt_at(path, position,
                                "offset " + std::to_string(record.offset) + " is below " +
                                    std::to_string(layout.next_offset) +
                                    " (offsets must increase from the base offset)"));
      }
      if (record.offset >= limit_offset) {
        return error(corrupt_at(path, position,
                                "offset " + std::to_string(record.offset) +
                                    " is not below the next segment's base offset " +
                                    std::to_string(limit_offset)));
      }
      layout.add_record(record.offset, record.timestamp, position,
                        static_cast<std::int64_t>(scanner.frame_data().size()));
      continue;
    }
    // Damaged. A torn tail only in the last segment, and only with nothing intact after it.
    bool torn = false;
    if (is_last) {
      switch (scanner.damage()) {
        case FrameScanner::Damage::kIncomplete: torn = true; break;
        case FrameScanner::Damage::kBadHeader:
        case FrameScanner::Damage::kBadBody: {
          const std::int64_t resume =
              scanner.damage() == FrameScanner::Damage::kBadHeader
                  ? position + 1
                  : position + static_cast<std::int64_t>(scanner.damaged_frame_bytes());
          auto intact = intact_frame_in(fd, path, resume, file_size);
          if (!intact) return error(intact.error());
          torn = !*intact;
          break;
        }
        case FrameScanner::Damage::kMalformed:
        case FrameScanner::Damage::kNone: break;
      }
    }
    if (!torn) {
      std::string reason = scanner.damage_reason();
      if (scanner.damage() == FrameScanner::Damage::kBadHeader ||
          scanner.damage() == FrameScanner::Damage::kBadBody) {
        reason += is_last ? " (intact records follow, so this is not a torn write)"
                          : " (not the last segment, so this is not a torn write)";
      }
      return error(corrupt_at(path, position, reason));
    }
    if (::ftruncate(fd, position) != 0) return error(errno_status("truncate", path));
    *truncated_bytes = file_size - position;
    log(LogLevel::kWarn, "{}: truncated a torn tail of {} bytes at byte {} ({})", path.string(),
        *truncated_bytes, position, scanner.damage_reason());
    break;
  }
  return layout;
}

}  // namespace

void SegmentLayout::add_record(std::int64_t offset, std::int64_t timestamp, std::int64_t position,
                               std::int64_t frame_bytes) {
  if (index_entry_due(position, last_indexed_position())) {
    index.push_back({.offset = offset, .position = position});
  }
  size = position + frame_bytes;
  next_offset = offset + 1;
  max_timestamp = std::max(max_timestamp, timestamp);
  ++record_count;
}

Segment::Segment(std::filesystem::path path, std::int64_t base_offset, UniqueFd fd,
                 SegmentLayout layout)
    : path_(std::move(path)),
      base_offset_(base_offset),
      fd_(std::move(fd)),
      layout_(std::move(layout)) {}

std::string Segment::file_name(std::int64_t base_offset) {
  return offset_name(base_offset, kSegmentSuffix);
}

std::optional<std::int64_t> Segment::parse_file_name(std::string_view name) {
  if (name.size() != kOffsetDigits + kSegmentSuffix.size() || !name.ends_with(kSegmentSuffix)) {
    return std::nullopt;
  }
  const std::string_view digits = name.substr(0, kOffsetDigits);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return parse_number<std::int64_t>(digits);
}

std::string Segment::index_file_name(std::int64_t base_offset) {
  return offset_name(base_offset, kIndexSuffix);
}

std::filesystem::path Segment::index_path() const {
  return path_.parent_path() / index_file_name(base_offset_);
}

void Segment::write_index() const {
  if (Status s = write_segment_index(index_path(), base_offset_, layout_); !s.ok()) {
    log(LogLevel::kWarn, "{}: could not write its index, the next open will scan it: {}",
        path_.string(), s.message());
  }
}

std::string Segment::swap_file_name(std::int64_t base_offset, std::int64_t end_offset) {
  return file_name(base_offset) + "." + offset_name(end_offset, kSwapSuffix);
}

std::optional<std::pair<std::int64_t, std::int64_t>> Segment::parse_swap_file_name(
    std::string_view name) {
  const std::size_t segment_name = kOffsetDigits + kSegmentSuffix.size();
  if (name.size() != segment_name + 1 + kOffsetDigits + kSwapSuffix.size() ||
      name[segment_name] != '.' || !name.ends_with(kSwapSuffix)) {
    return std::nullopt;
  }
  auto base = parse_file_name(name.substr(0, segment_name));
  auto end = parse_file_name(std::string(name.substr(segment_name + 1, kOffsetDigits)) +
                             std::string(kSegmentSuffix));
  if (!base || !end) return std::nullopt;
  return std::pair{*base, *end};
}

Result<std::shared_ptr<Segment>> Segment::create(const std::filesystem::path& dir,
                                                 std::int64_t base_offset) {
  std::filesystem::path path = dir / file_name(base_offset);
  auto fd = open_file(path, O_RDWR | O_CREAT | O_EXCL);
  if (!fd) return error(fd.error());
  return std::make_shared<Segment>(std::move(path), base_offset, std::move(*fd),
                                   SegmentLayout{.next_offset = base_offset});
}

Result<std::shared_ptr<Segment>> Segment::open(const std::filesystem::path& path,
                                               std::int64_t base_offset, bool is_last,
                                               std::int64_t limit_offset,
                                               std::int64_t* truncated_bytes) {
  *truncated_bytes = 0;
  auto fd = open_file(path, is_last ? O_RDWR : O_RDONLY);
  if (!fd) return error(fd.error());
  struct stat st;
  if (::fstat(fd->get(), &st) != 0) return error(errno_status("stat", path));
  const std::int64_t file_size = st.st_size;
  const std::filesystem::path index = path.parent_path() / index_file_name(base_offset);
  if (is_last) {
    if (::unlink(index.c_str()) != 0 && errno != ENOENT)
      return error(errno_status("remove", index));
  } else {
    auto layout = read_segment_index(index, base_offset, file_size, limit_offset);
    if (layout) {
      return std::make_shared<Segment>(path, base_offset, std::move(*fd), std::move(*layout));
    }
    log(layout.error().code() == StatusCode::kNotFound ? LogLevel::kInfo : LogLevel::kWarn,
        "{}: scanning the segment to index it ({})", path.string(), layout.error().message());
  }
  auto layout =
      scan(fd->get(), path, file_size, base_offset, is_last, limit_offset, truncated_bytes);
  if (!layout) return error(layout.error());
  auto segment = std::make_shared<Segment>(path, base_offset, std::move(*fd), std::move(*layout));
  if (!is_last) segment->write_index();
  return segment;
}

std::int64_t Segment::scan_start(std::int64_t offset) const {
  const auto& index = layout_.index;
  auto it = std::upper_bound(index.begin(), index.end(), offset,
                             [](std::int64_t o, const IndexEntry& e) { return o < e.offset; });
  return it == index.begin() ? 0 : std::prev(it)->position;
}

void Segment::publish(std::int64_t bytes, std::int64_t record_count, std::int64_t next_offset,
                      std::int64_t max_timestamp, std::span<const IndexEntry> index) {
  layout_.size += bytes;
  layout_.record_count += record_count;
  layout_.next_offset = next_offset;
  layout_.max_timestamp = std::max(layout_.max_timestamp, max_timestamp);
  layout_.index.insert(layout_.index.end(), index.begin(), index.end());
}

}  // namespace brook::internal
