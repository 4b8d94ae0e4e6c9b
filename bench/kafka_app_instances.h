// Instances of a Streams application run as child processes for the Kafka benchmarks
// (kafka_failover_app), each printing its timeline to a log file, one line per event, each
// starting with the time in microseconds of std::chrono::steady_clock (comparable across
// processes); and what the benchmarks wait for. Throws std::runtime_error on failures.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "rdkafka_baseline.h"

namespace brook::bench {

inline long long now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now().time_since_epoch())
      .count();
}

// The program `path` as a child process, its stdout and stderr in `log`; killed with SIGKILL
// on destruction if still running.
class AppInstance {
 public:
  AppInstance(const char* path, const std::vector<std::string>& args,
              const std::filesystem::path& log)
      : log_(log) {
    std::vector<char*> argv{const_cast<char*>(path)};
    for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
      ::execv(path, argv.data());
      ::_exit(127);
    }
    if (pid_ < 0) throw std::runtime_error("fork failed");
  }
  ~AppInstance() { stop(SIGKILL); }
  AppInstance(const AppInstance&) = delete;
  AppInstance& operator=(const AppInstance&) = delete;

  // Sends `signal` and waits for the process to end.
  void stop(int signal) {
    if (pid_ <= 0) return;
    ::kill(pid_, signal);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  // The lines of its log, split into words.
  std::vector<std::vector<std::string>> events() const {
    std::vector<std::vector<std::string>> out;
    std::ifstream in(log_);
    for (std::string line; std::getline(in, line);) {
      std::istringstream words(line);
      out.emplace_back(std::istream_iterator<std::string>(words),
                       std::istream_iterator<std::string>());
    }
    return out;
  }
  // Whether its last state is RUNNING; throws if the process ended.
  bool running() const {
    if (int status = 0; ::waitpid(pid_, &status, WNOHANG) == pid_) {
      std::ifstream in(log_);
      std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      throw std::runtime_error("an instance ended; its log:\n" + log);
    }
    std::string state;
    for (const auto& e : events()) {
      if (e.size() == 3 && e[1] == "state") state = e[2];
    }
    return state == "RUNNING";
  }

 private:
  std::filesystem::path log_;
  pid_t pid_ = -1;
};

// Waits (polling) until `done()`; throws naming `what` after `limit`.
template <class Done>
void wait_until(Done done, const std::string& what, std::chrono::seconds limit) {
  for (const auto deadline = Clock::now() + limit; !done();) {
    if (Clock::now() > deadline) throw std::runtime_error("timed out waiting for " + what);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // polls a group or a log
  }
}

// The input records whose offsets `group` committed, over partitions 0 .. `partitions` - 1 of
// `topic`.
inline std::int64_t committed(const std::string& group, const std::string& topic, int partitions) {
  auto consumer = make_client(RD_KAFKA_CONSUMER, {{"group.id", group}});
  PartitionList list(rd_kafka_topic_partition_list_new(partitions));
  for (int p = 0; p < partitions; ++p) {
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p);
  }
  check(rd_kafka_committed(consumer.get(), list.get(), 30'000), "committed");
  std::int64_t total = 0;
  for (int i = 0; i < list->cnt; ++i) total += std::max<std::int64_t>(list->elems[i].offset, 0);
  return total;
}

}  // namespace brook::bench
