// Runs a program to its end with given stdin and captures its stdout and stderr: the
// `brook` command, the example programs, kcat, java.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace brook::testing {

struct ProcessResult {
  int exit_code = -1;  // 128 + the signal if a signal ended it
  std::string out;
  std::string err;
};

inline std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

// Runs `argv` (argv[0] looked up in PATH unless it contains a '/') with `input` on stdin and
// waits for it to exit. stdin, stdout and stderr go through files in `io_dir`, which must
// exist. Fails the test (exit code -1) if the program cannot be started.
inline ProcessResult run_process(const std::vector<std::string>& argv, const std::string& input,
                                 const std::filesystem::path& io_dir) {
  ProcessResult result;
  const std::string in = io_dir / "stdin", out = io_dir / "stdout", err = io_dir / "stderr";
  std::ofstream(in, std::ios::binary) << input;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> strings = argv;
  std::vector<char*> c_argv;
  for (auto& s : strings) c_argv.push_back(s.data());
  c_argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, c_argv[0], &actions, nullptr, c_argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(rc, 0) << "cannot run " << argv[0] << ": " << std::strerror(rc);
  if (rc != 0) return result;
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_text_file(out);
  result.err = read_text_file(err);
  return result;
}

}  // namespace brook::testing
