#include "backend/embedded/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

#include "backend/embedded/file_io.h"

namespace brook::internal {

Result<DirLock> DirLock::acquire(const std::filesystem::path& data_dir, std::string_view role) {
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  if (ec)
    return error(Status::io_error("create directory " + data_dir.string() + ": " + ec.message()));
  const std::filesystem::path path = data_dir / ".lock";
  auto fd = open_file(path, O_RDWR | O_CREAT);
  if (!fd) return error(fd.error());
  int rc;
  do {
    rc = ::flock(fd->get(), LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    if (errno != EWOULDBLOCK) return error(errno_status("lock", path));
    // The holder writes its pid right after locking; it may not be there yet.
    std::string holder = "unknown";
    char buf[32];
    auto got = read_at(fd->get(), path, buf, sizeof buf - 1, 0);
    if (got && *got > 0) {
      std::string text(buf, *got);
      while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
      if (!text.empty()) holder = text;
    }
    return error(Status::failed_precondition(std::string(role) + " " + data_dir.string() +
                                             " is locked by another process (pid " + holder + ")"));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd->get(), 0) != 0) return error(errno_status("truncate", path));
  if (Status s = write_at(fd->get(), path, pid.data(), pid.size(), 0); !s.ok()) {
    return error(std::move(s));
  }
  return DirLock(data_dir, fd->release());
}

DirLock::DirLock(DirLock&& other) noexcept
    : dir_(std::move(other.dir_)), fd_(std::exchange(other.fd_, -1)) {}

DirLock& DirLock::operator=(DirLock&& other) noexcept {
  if (this != &other) {
    release();
    dir_ = std::move(other.dir_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

DirLock::~DirLock() { release(); }

void DirLock::release() {
  // Closing the only descriptor of the open file description releases the flock. The file
  // stays: removing it would race with a process that has just opened it.
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace brook::internal
