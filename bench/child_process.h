// A benchmarked program run as a child process: its stdout read line by line through a pipe,
// its stderr appended to a log file, its CPU time read from /proc while it runs, and the CPU
// seconds of all its threads taken by wait4 when it exits. (Not wait4's max RSS: the kernel
// counts in it the memory image the child had before exec, which is its parent's.)
// Throws std::runtime_error when it cannot be started or waited for.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace brook::bench {

struct ChildExit {
  std::chrono::steady_clock::time_point at;  // when wait4 saw it exit
  int exit_code = -1;                        // -1 if killed by a signal
  int signal = 0;
  double cpu_seconds = 0;  // user + system, all threads, whole life
};

class ChildProcess {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts `argv` (argv[0] looked up in PATH) with stdout to a pipe and stderr appended to
  // `stderr_log`.
  ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& stderr_log) {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) fail("pipe2");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_log.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    const int spawned = ::posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    if (spawned != 0) {
      ::close(out[0]);
      errno = spawned;
      fail("starting " + argv[0]);
    }
    stdout_ = out[0];
    pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));  // glibc 2.36: no C linkage
    if (pidfd_ < 0) fail("pidfd_open");
  }
  ~ChildProcess() {
    if (!exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (stdout_ >= 0) ::close(stdout_);
    if (pidfd_ >= 0) ::close(pidfd_);
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }

  // The next line of its stdout, without the newline; nullopt at the end of its stdout or
  // once `deadline` has passed.
  std::optional<std::string> read_line(Clock::time_point deadline) {
    while (true) {
      if (auto end = buffer_.find('\n'); end != std::string::npos) {
        std::string line = buffer_.substr(0, end);
        buffer_.erase(0, end + 1);
        return line;
      }
      if (eof_ || !wait_readable(stdout_, deadline)) return std::nullopt;
      char chunk[4096];
      const ssize_t n = ::read(stdout_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail("reading the child's stdout");
      if (n == 0) eof_ = true;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  // User + system CPU seconds of all its threads so far (/proc/<pid>/stat, clock ticks).
  double cpu_seconds() const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto name_end = stat.rfind(')');  // the command name may hold spaces
    if (name_end == std::string::npos) fail("reading /proc/" + std::to_string(pid_) + "/stat");
    std::istringstream fields(stat.substr(name_end + 2));
    std::string field;
    long long utime = 0, stime = 0;
    // After the name: state (3) ... utime (14), stime (15).
    for (int i = 3; i <= 15 && fields >> field; ++i) {
      if (i == 14) utime = std::stoll(field);
      if (i == 15) stime = std::stoll(field);
    }
    return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }

  // Waits for it to exit, killing it (SIGKILL) at `deadline`.
  ChildExit wait(Clock::time_point deadline) {
    if (!wait_readable(pidfd_, deadline)) ::kill(pid_, SIGKILL);
    int status = 0;
    rusage usage{};
    while (::wait4(pid_, &status, 0, &usage) < 0) {
      if (errno != EINTR) fail("wait4");
    }
    exited_ = true;
    ChildExit exit{.at = Clock::now()};
    exit.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    exit.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    exit.cpu_seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    return exit;
  }

 private:
  [[noreturn]] static void fail(const std::string& what) {
    throw std::runtime_error(what + ": " + std::strerror(errno));
  }
  // Whether `fd` became readable before `deadline`.
  static bool wait_readable(int fd, Clock::time_point deadline) {
    while (true) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return false;
      pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
      const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1'000'000)));
      if (n > 0) return true;
      if (n < 0 && errno != EINTR) fail("poll");
    }
  }

  pid_t pid_ = -1;
  int stdout_ = -1;
  int pidfd_ = -1;
  std::string buffer_;
  bool eof_ = false;
  bool exited_ = false;
};

}  // namespace brook::bench
