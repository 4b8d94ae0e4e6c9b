// A child process for tests that run an application as a separate OS process: started with
// arguments, stopped by a signal, waited for with a deadline. The destructor SIGKILLs a child
// still running, so a failing test leaves nothing behind.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace brook::testing {

class ChildProcess {
 public:
  // Runs `program` with `args`; its stdout and stderr are the test's.
  ChildProcess(const std::string& program, const std::vector<std::string>& args) {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execv(program.c_str(), argv.data());
      ::_exit(127);
    }
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() {
    if (!exit_code_) {
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
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

}  // namespace brook::testing
