// Reading, rewriting and damaging small files in tests of what Brook does with damaged data.
// Shared by Brook's own tests (not installed).
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace brook::testing {

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const std::filesystem::path& path, std::string_view contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
}

// `contents` with its first `from` replaced by `to`; throws if `from` is not there, so a
// test cannot pass by damaging nothing.
inline std::string replace_first(std::string contents, std::string_view from, std::string_view to) {
  const auto at = contents.find(from);
  if (at == std::string::npos) throw std::invalid_argument("no '" + std::string(from) + "'");
  return contents.replace(at, from.size(), to);
}

// The damage done to a checksummed metadata file (`<text>\ncrc32c <hex>\n`) in the tests, by
// name: a digit of its text changed (`from` -> `to`), the file cut short, its checksum line
// removed (the file as a Brook that wrote no checksums would have left it).
inline std::vector<std::pair<std::string, std::string>> damaged_versions(
    const std::string& contents, std::string_view from, std::string_view to) {
  return {{"a digit changed", replace_first(contents, from, to)},
          {"truncated", contents.substr(0, contents.size() - 3)},
          {"truncated to half", contents.substr(0, contents.size() / 2)},
          {"without its checksum line", contents.substr(0, contents.rfind("crc32c "))}};
}

}  // namespace brook::testing
