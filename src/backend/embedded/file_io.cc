#include "backend/embedded/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace brook::internal {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

Status errno_status(std::string_view what, const std::filesystem::path& path) {
  const int err = errno;
  std::string message(what);
  message += ' ';
  message += path.string();
  message += ": ";
  message += std::strerror(err);
  return Status::io_error(std::move(message));
}

Result<UniqueFd> open_file(const std::filesystem::path& path, int flags, int mode) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return error(errno_status("open", path));
  return UniqueFd(fd);
}

Status write_at(int fd, const std::filesystem::path& path, const char* data, std::size_t n,
                std::int64_t position) {
  while (n > 0) {
    const ssize_t written = ::pwrite(fd, data, n, position);
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno_status("write", path);
    }
    data += written;
    n -= static_cast<std::size_t>(written);
    position += written;
  }
  return Status::ok_status();
}

Result<std::size_t> read_at(int fd, const std::filesystem::path& path, char* data, std::size_t n,
                            std::int64_t position) {
  std::size_t total = 0;
  while (total < n) {
    const ssize_t got = ::pread(fd, data + total, n - total, position + total);
    if (got < 0) {
      if (errno == EINTR) continue;
      return error(errno_status("read", path));
    }
    if (got == 0) break;
    total += static_cast<std::size_t>(got);
  }
  return total;
}

Status sync_fd(int fd, const std::filesystem::path& path) {
  if (::fsync(fd) != 0) return errno_status("fsync", path);
  return Status::ok_status();
}

Status sync_dir(const std::filesystem::path& dir) {
  auto fd = open_file(dir, O_RDONLY | O_DIRECTORY);
  if (!fd) return fd.error();
  return sync_fd(fd->get(), dir);
}

namespace {

// `<path>.tmp` with `contents`, renamed over `path`; with `durable`, fsynced before and the
// directory after.
Status write_and_rename(const std::filesystem::path& path, std::string_view contents,
                        bool durable) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    auto fd = open_file(tmp, O_WRONLY | O_CREAT | O_TRUNC);
    if (!fd) return fd.error();
    if (Status s = write_at(fd->get(), tmp, contents.data(), contents.size(), 0); !s.ok()) return s;
    if (durable) {
      if (Status s = sync_fd(fd->get(), tmp); !s.ok()) return s;
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return errno_status("rename", tmp);
  return durable ? sync_dir(path.parent_path()) : Status::ok_status();
}

}  // namespace

Status write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  return write_and_rename(path, contents, true);
}

Status replace_file(const std::filesystem::path& path, std::string_view contents) {
  return write_and_rename(path, contents, false);
}

Result<std::string> read_small_file(const std::filesystem::path& path) {
  auto fd = open_file(path, O_RDONLY);
  if (!fd) return error(fd.error());
  std::string contents;
  char buf[4096];
  for (std::int64_t position = 0;;) {
    auto got = read_at(fd->get(), path, buf, sizeof buf, position);
    if (!got) return error(got.error());
    contents.append(buf, *got);
    position += static_cast<std::int64_t>(*got);
    if (*got < sizeof buf) return contents;
  }
}

}  // namespace brook::internal
