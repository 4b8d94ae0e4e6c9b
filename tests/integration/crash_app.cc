// A Streams application for the crash tests, run as a child process:
//   crash_app DATA_DIR at_least_once|exactly_once_v2 SIGNAL_FD SIGNAL_AFTER
//             [copy|count [STATE_DIR] [KEY=VALUE...]]
// Copies topic "in" to topic "out" (value + "!") with 2 threads; with "count", counts the
// records per key instead in the RocksDB store "counts" and writes each new count to "out".
// The stores live in STATE_DIR if given (default DATA_DIR/state); each KEY=VALUE sets (or
// overrides) a configuration key.
// After SIGNAL_AFTER records it writes one byte to SIGNAL_FD (the parent then kills it); it
// exits 0 once everything in "in" is processed and committed. Each store restoration appends
// the number of records it restored to DATA_DIR/restored.txt.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "brook/streams.h"
#include "brook/streams_builder.h"

// Appends each store restoration's record count to a file.
class RestoreLog final : public brook::StateRestoreListener {
 public:
  explicit RestoreLog(std::filesystem::path file) : file_(std::move(file)) {}
  void on_restore_end(const std::string&, brook::TaskId, std::int64_t restored) override {
    std::ofstream(file_, std::ios::app) << restored << "\n";
  }

 private:
  std::filesystem::path file_;
};

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: %s DATA_DIR GUARANTEE SIGNAL_FD SIGNAL_AFTER "
                 "[copy|count [STATE_DIR] [KEY=VALUE...]]\n",
                 argv[0]);
    return 2;
  }
  const bool count = argc >= 6 && std::string(argv[5]) == "count";
  const int signal_fd = std::stoi(argv[3]);
  const long signal_after = std::stol(argv[4]);
  std::atomic<long> processed = 0;

  brook::StreamsBuilder builder;
  auto input = builder.stream<std::string, std::string>("in").peek(
      [&](const std::string&, const std::string&) {
        if (++processed == signal_after && signal_fd >= 0) {
          const char byte = 1;
          (void)::write(signal_fd, &byte, 1);
        }
      });
  if (count) {
    input.group_by_key().count({.name = "counts"}).to_stream().to("out");
  } else {
    input.map_values([](const std::string& v) { return v + "!"; }).to("out");
  }
  std::map<std::string, std::string> config{{"application.id", "crash-app"},
                                            {"data.dir", argv[1]},
                                            {"processing.guarantee", argv[2]},
                                            {"num.stream.threads", "2"},
                                            {"commit.interval.ms", "20"},
                                            {"max.poll.records", "500"},
                                            {"poll.ms", "10"}};
  for (int i = 6; i < argc; ++i) {
    const std::string arg = argv[i];
    if (const auto eq = arg.find('='); eq != std::string::npos) {
      config.insert_or_assign(arg.substr(0, eq), arg.substr(eq + 1));
    } else if (i == 6) {
      config.emplace("state.dir", arg);
    } else {
      std::fprintf(stderr, "%s: '%s' is not KEY=VALUE\n", argv[0], arg.c_str());
      return 2;
    }
  }
  brook::Streams app(*builder.build(), config);
  app.set_restore_listener(
      std::make_shared<RestoreLog>(std::filesystem::path(argv[1]) / "restored.txt"));
  if (auto s = app.start(); !s.ok()) return brook::report(s);
  while (app.state() != brook::Streams::State::kError) {
    auto lag = app.lag();
    if (!lag) return brook::report(lag.error());
    if (*lag == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  auto status = app.close();
  return status.ok() ? 0 : brook::report(status);
}
