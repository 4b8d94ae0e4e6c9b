// Shared by the fuzz targets (tests/fuzz/*.cc; docs/testing.md, "Fuzzing"): reading a fuzzer's
// input piece by piece, a property check that stops the run, and a scratch directory for the
// decoders that read files.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "core/log.h"

// Stops the run (a finding) when `condition` is false: what a decoder must never do, such as
// reading back other bytes than it was given.
#define FUZZ_CHECK(condition)                                                                 \
  do {                                                                                        \
    if (!(condition)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                           \
    }                                                                                         \
  } while (false)

namespace brook::fuzz {

// Takes pieces off the front of the input; once it is used up, pieces are empty and bytes 0.
class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size)
      : rest_(reinterpret_cast<const char*>(data), size) {}

  std::uint8_t byte() {
    if (rest_.empty()) return 0;
    const auto b = static_cast<std::uint8_t>(rest_.front());
    rest_.remove_prefix(1);
    return b;
  }
  // A piece of at most `n` bytes.
  std::string_view bytes(std::size_t n) {
    const std::string_view piece = rest_.substr(0, n);
    rest_.remove_prefix(piece.size());
    return piece;
  }
  // A piece whose length is the next byte (0 to 255).
  std::string_view short_bytes() { return bytes(byte()); }
  std::string_view rest() { return bytes(rest_.size()); }
  bool empty() const { return rest_.empty(); }

 private:
  std::string_view rest_;
};

// An empty directory of this process's own (in /dev/shm when there is one: fast), emptied
// again on every call.
inline const std::filesystem::path& fresh_scratch_dir() {
  static const std::filesystem::path dir = [] {
    const std::filesystem::path shm = "/dev/shm";
    const auto root =
        std::filesystem::is_directory(shm) ? shm : std::filesystem::temp_directory_path();
    return root / ("brook-fuzz-" + std::to_string(::getpid()));
  }();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Drops Brook's log lines (a damaged input is logged about on every run).
inline void silence_logs() {
  static const bool silenced = [] {
    internal::set_log_sink([](internal::LogLevel, std::string_view) {});
    return true;
  }();
  (void)silenced;
}

inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  FUZZ_CHECK(out.good());
}

}  // namespace brook::fuzz
