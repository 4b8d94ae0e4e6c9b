// What a test application run as a child process reports to its parent through files in a
// directory: restored.txt gets each store restoration's record count appended; phase holds the
// phase the app is in, one word rewritten in place at each change (a killed process leaves the
// last one): opening (until it first runs), restoring (a store), processing (RUNNING),
// rebalancing (REBALANCING after it ran) or closing; standbys holds "<partitions> <lag>": how
// many store partitions the app keeps as standby replicas and how far behind their changelogs
// they are in all. Restorations run on several threads.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>

#include "brook/streams.h"

// The standby replicas an app reported last into `dir` (none: 0 partitions, lag 0).
struct StandbyReport {
  int partitions = 0;
  std::int64_t lag = 0;
};
inline StandbyReport read_standbys(const std::filesystem::path& dir) {
  StandbyReport report;
  std::ifstream(dir / "standbys") >> report.partitions >> report.lag;
  return report;
}

// The phase an app wrote last into `dir`; "starting" if it has written none (killed before).
inline std::string read_phase(const std::filesystem::path& dir) {
  std::ifstream file(dir / "phase");
  std::string word;
  file >> word;
  return word.empty() ? "starting" : word;
}

class ProgressFiles final : public brook::StateRestoreListener {
 public:
  explicit ProgressFiles(const std::filesystem::path& dir)
      : restored_(dir / "restored.txt"),
        standbys_(dir / "standbys"),
        phase_fd_(::open((dir / "phase").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) {
    update([] {});
  }
  ~ProgressFiles() override {
    if (phase_fd_ >= 0) ::close(phase_fd_);
  }
  ProgressFiles(const ProgressFiles&) = delete;
  ProgressFiles& operator=(const ProgressFiles&) = delete;

  // The application's state listener calls this with each new state.
  void state(brook::Streams::State to) {
    update([&] {
      running_ = to == brook::Streams::State::kRunning;
      ran_ = ran_ || running_;
    });
  }
  // Replaces the standby report, whole (written aside, then renamed over it).
  void standbys(StandbyReport report) {
    const std::lock_guard lock(mu_);
    std::ofstream(standbys_.string() + ".new") << report.partitions << " " << report.lag << "\n";
    std::filesystem::rename(standbys_.string() + ".new", standbys_);
  }
  void closing() {
    update([&] { closing_ = true; });
  }
  void on_restore_start(const std::string&, brook::TaskId, brook::Offset, brook::Offset) override {
    update([&] { ++restoring_; });
  }
  void on_restore_end(const std::string&, brook::TaskId, std::int64_t restored) override {
    update([&] {
      --restoring_;
      std::ofstream(restored_, std::ios::app) << restored << "\n";
    });
  }

 private:
  // Applies `change` and writes the phase it leaves the app in, as one step.
  template <class Change>
  void update(Change change) {
    const std::lock_guard lock(mu_);
    change();
    const char* phase = closing_         ? "closing"
                        : restoring_ > 0 ? "restoring"
                        : running_       ? "processing"
                        : ran_           ? "rebalancing"
                                         : "opening";
    char word[16];
    std::snprintf(word, sizeof word, "%-15s", phase);
    (void)::pwrite(phase_fd_, word, sizeof word - 1, 0);
  }

  const std::filesystem::path restored_;
  const std::filesystem::path standbys_;
  const int phase_fd_;
  std::mutex mu_;  // guards what follows, and the files
  int restoring_ = 0;
  bool running_ = false;
  bool ran_ = false;
  bool closing_ = false;
};
