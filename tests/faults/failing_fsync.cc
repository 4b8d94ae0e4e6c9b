// A disk fault no real disk can be asked for: fsync() and fdatasync() failing with EIO.
// Preloaded into a process (LD_PRELOAD), it fails them for files whose path contains
// $BROOK_FAIL_FSYNC_PATH once $BROOK_FAIL_FSYNC_AFTER such calls (default 0) have succeeded;
// every other call goes to the C library.
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

using SyncFunction = int (*)(int);

// Whether `fd` is a file the fault is for.
bool faulty(int fd) {
  const char* pattern = std::getenv("BROOK_FAIL_FSYNC_PATH");
  if (pattern == nullptr || *pattern == '\0') return false;
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  char path[4096];
  const ssize_t n = ::readlink(link, path, sizeof path - 1);
  if (n < 0) return false;
  path[n] = '\0';
  return std::strstr(path, pattern) != nullptr;
}

std::atomic<long> faulty_calls{0};

int sync_or_fail(int fd, const char* name) {
  if (faulty(fd)) {
    const char* after = std::getenv("BROOK_FAIL_FSYNC_AFTER");
    if (faulty_calls.fetch_add(1) >= (after != nullptr ? std::atol(after) : 0)) {
      errno = EIO;
      return -1;
    }
  }
  const auto real = reinterpret_cast<SyncFunction>(::dlsym(RTLD_NEXT, name));
  return real(fd);
}

}  // namespace

extern "C" int fsync(int fd) { return sync_or_fail(fd, "fsync"); }
extern "C" int fdatasync(int fd) { return sync_or_fail(fd, "fdatasync"); }
