// DirLock: exclusive ownership of a data directory by one process, so two Brook applications
// never write the same embedded log files.
//
// acquire() takes a flock(LOCK_EX) on `<dir>/.lock` and writes the holder's pid into it. flock
// locks belong to an open file description, so a second acquire() conflicts whether it comes
// from another process or from this one. The lock is released when the DirLock is destroyed,
// or by the kernel when the process exits, however it exits (kill -9 included): a stale .lock
// file is never a problem. A child created with fork() inherits the descriptor and thereby the
// lock, until it exits or execs (the descriptor is close-on-exec).
//
// Thread safety: a DirLock is a value; distinct objects may be used from distinct threads.
#pragma once

#include <filesystem>
#include <string_view>

#include "brook/status.h"

namespace brook::internal {

class DirLock {
 public:
  // Creates `data_dir` if needed and locks it. kFailedPrecondition "<role> <path> is locked by
  // another process (pid N)" if another holder has it; kIoError if the directory or the lock
  // file cannot be created.
  static Result<DirLock> acquire(const std::filesystem::path& data_dir,
                                 std::string_view role = "data dir");

  DirLock(DirLock&& other) noexcept;
  DirLock& operator=(DirLock&& other) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock();

  const std::filesystem::path& dir() const { return dir_; }

 private:
  DirLock(std::filesystem::path dir, int fd) : dir_(std::move(dir)), fd_(fd) {}
  void release();

  std::filesystem::path dir_;
  int fd_ = -1;
};

}  // namespace brook::internal
