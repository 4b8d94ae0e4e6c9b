// Small file helpers shared by the on-disk parts of Brook.
#pragma once

#include <filesystem>
#include <string>

#include "brook/status.h"

namespace brook::internal {

// Replaces `path` with `content` so that a crash leaves either the old or the new file:
// writes `<path>.tmp`, then renames it over `path`.
Status write_file_atomically(const std::filesystem::path& path, const std::string& content);

}  // namespace brook::internal
