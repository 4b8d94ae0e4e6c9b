#include "backend/embedded/checksummed_file.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>

#include "backend/embedded/crc32c.h"
#include "backend/embedded/file_io.h"

namespace brook::internal {
namespace {

constexpr std::string_view kChecksumPrefix = "crc32c ";
constexpr std::size_t kHexDigits = 8;
// "\ncrc32c " + 8 digits + "\n": the newline ending the text, then the checksum line.
constexpr std::size_t kTrailerBytes = 1 + kChecksumPrefix.size() + kHexDigits + 1;

// Whether `all` ends with "\ncrc32c <8 lowercase hex digits>\n".
bool has_checksum_line(std::string_view all) {
  if (all.size() < kTrailerBytes) return false;
  const std::string_view trailer = all.substr(all.size() - kTrailerBytes);
  const std::string_view digits = trailer.substr(1 + kChecksumPrefix.size(), kHexDigits);
  return trailer.front() == '\n' && trailer.substr(1).starts_with(kChecksumPrefix) &&
         trailer.back() == '\n' &&
         digits.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace

Status write_checksummed_file(const std::filesystem::path& path, std::string_view text) {
  std::string contents(text);
  contents += '\n';
  contents += fmt::format("{}{:08x}\n", kChecksumPrefix, crc32c(contents));
  return write_file_atomically(path, contents);
}

Result<std::string> read_checksummed_file(const std::filesystem::path& path) {
  auto contents = read_small_file(path);
  if (!contents) return error(contents.error());
  const std::string_view all = *contents;
  if (!has_checksum_line(all)) {
    return error(Status::corruption(
        fmt::format("{} does not end with its checksum line (\"crc32c <8 hex digits>\"): it was "
                    "truncated or edited, or written by a Brook that wrote none",
                    path.string())));
  }
  const std::size_t line = all.size() - kTrailerBytes + 1;  // where the checksum line starts
  const std::string_view digits = all.substr(line + kChecksumPrefix.size(), kHexDigits);
  std::uint32_t stored = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), stored, 16);
  const std::uint32_t actual = crc32c(all.substr(0, line));
  if (stored != actual) {
    return error(Status::corruption(
        fmt::format("{}: checksum mismatch (the file says {:08x}, its contents have {:08x}): it "
                    "was damaged or edited",
                    path.string(), stored, actual)));
  }
  return std::string(all.substr(0, line - 1));
}

}  // namespace brook::internal
