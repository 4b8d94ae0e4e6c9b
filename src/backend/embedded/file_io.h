// Small POSIX file helpers for the embedded log: an owning file descriptor, positioned reads and
// writes that handle short counts and EINTR, fsync of a directory, atomic small-file replacement.
// Every failure is a kIoError naming the file and the OS error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "brook/status.h"

namespace brook::internal {

// Owns a file descriptor; closes it on destruction. Movable, not copyable.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// "<what> <path>: <strerror(errno)>" as a kIoError. Call right after the failing syscall.
Status errno_status(std::string_view what, const std::filesystem::path& path);

// open(2) with O_CLOEXEC added.
Result<UniqueFd> open_file(const std::filesystem::path& path, int flags, int mode = 0644);

// Writes all `n` bytes at `position` (pwrite, retrying short writes and EINTR).
Status write_at(int fd, const std::filesystem::path& path, const char* data, std::size_t n,
                std::int64_t position);

// Reads up to `n` bytes at `position` (pread, retrying short reads and EINTR); returns how many
// were read, fewer than `n` only at end of file.
Result<std::size_t> read_at(int fd, const std::filesystem::path& path, char* data, std::size_t n,
                            std::int64_t position);

// fsync of a file descriptor, and of a directory (making created, renamed or removed entries
// durable).
Status sync_fd(int fd, const std::filesystem::path& path);
Status sync_dir(const std::filesystem::path& dir);

// Replaces `path` with `contents` atomically: writes `<path>.tmp`, fsyncs it, renames it over
// `path` and fsyncs the directory. A crash leaves either the old or the new contents.
Status write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// Replaces `path` with `contents` by writing `<path>.tmp` and renaming it over `path`, without
// fsync: a killed process leaves the old or the new contents, a power failure may also leave
// no file or a damaged one. For files that can be rebuilt from others.
Status replace_file(const std::filesystem::path& path, std::string_view contents);

// The whole contents of a small file.
Result<std::string> read_small_file(const std::filesystem::path& path);

}  // namespace brook::internal
