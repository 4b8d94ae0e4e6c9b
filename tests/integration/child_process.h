// A child process for tests that run an application as a separate OS process: started with
// arguments, stopped by a signal, waited for with a deadline. The destructor SIGKILLs a child
// still running, so a failing test leaves nothing behind, and first prints the stacks of its
// threads, so that a child that hung can be diagnosed from the test's output.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace brook::testing {

class ChildProcess {
 public:
  // Runs `program` with `args`; its stdout and stderr are the test's, or go to the file
  // `output` (created or truncated) if given.
  ChildProcess(const std::string& program, const std::vector<std::string>& args,
               const std::string& output = "") {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      if (!output.empty()) {
        const int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) ::_exit(126);
        ::dup2(fd, STDOUT_FILENO);
        ::dup2(fd, STDERR_FILENO);
        ::close(fd);
      }
      ::execv(program.c_str(), argv.data());
      ::_exit(127);
    }
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() {
    if (!wait(std::chrono::milliseconds(0))) {
      print_stacks();
      signal(SIGKILL);
      (void)wait(std::chrono::seconds(30));
    }
  }

  pid_t pid() const { return pid_; }
  void signal(int number) const { ::kill(pid_, number); }

  // The exit code (or -signal if a signal ended it); nullopt if still running at `timeout`.
  std::optional<int> wait(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!exit_code_) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exit_code_ = WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
      } else if (std::chrono::steady_clock::now() >= deadline) {
        break;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // waitpid has no timeout
      }
    }
    return exit_code_;
  }

 private:
  // Prints the stacks of the child's threads to stderr (gdb attaches to it for a moment).
  void print_stacks() const {
    std::fprintf(stderr, "child process %d still running; its threads' stacks:\n", pid_);
    std::fflush(stderr);
    const std::string gdb = "gdb -p " + std::to_string(pid_) +
                            " -batch -nx -ex 'thread apply all bt' </dev/null 1>&2 2>/dev/null";
    if (std::system(gdb.c_str()) != 0) std::fprintf(stderr, "(gdb could not attach to it)\n");
  }

  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

}  // namespace brook::testing
