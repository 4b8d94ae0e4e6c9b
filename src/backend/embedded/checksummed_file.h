// Small metadata files of the embedded log (a topic's metadata, a consumer group's committed
// offsets, a partition's start offset): text followed by a line with its CRC-32C, replaced
// atomically. Reading one verifies the checksum, so a file that was edited, truncated or
// written without a checksum is reported as kCorruption naming it, never used as it is.
//
// Format (docs/log_format.md): `<text>\ncrc32c <8 lowercase hex digits>\n`, the digits being
// the CRC-32C (unmasked) of every byte before "crc32c", `<text>\n`.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "brook/status.h"

namespace brook::internal {

// Writes `text` and its checksum line to `path` with write_file_atomically (file_io.h).
Status write_checksummed_file(const std::filesystem::path& path, std::string_view text);

// The text of a file written by write_checksummed_file. kCorruption naming the file if it
// does not end with a checksum line or the checksum does not match; kIoError if unreadable.
Result<std::string> read_checksummed_file(const std::filesystem::path& path);

}  // namespace brook::internal
