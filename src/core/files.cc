#include "core/files.h"

#include <fmt/format.h>

#include <fstream>

namespace brook::internal {

Status write_file_atomically(const std::filesystem::path& path, const std::string& content) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out.flush()) return Status::io_error("cannot write " + tmp.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    return Status::io_error(fmt::format("cannot rename {} to {}: {}", tmp.string(), path.string(),
                                        ec.message()));
  }
  return {};
}

}  // namespace brook::internal
