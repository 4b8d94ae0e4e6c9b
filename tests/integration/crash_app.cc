// A Streams application for the crash tests, run as a child process:
//   crash_app DATA_DIR at_least_once|exactly_once_v2 SIGNAL_FD SIGNAL_AFTER
//             [copy|count|windowed-count|join [STATE_DIR] [KEY=VALUE...]]
// Copies topic "in" to topic "out" (value + "!") with 2 threads; with "count", counts the
// records per key instead in the RocksDB store "counts" and writes each new count to "out";
// with "windowed-count", counts them per key in 10 s tumbling windows (store "window-counts",
// 1 h grace) and writes each new count to "out" keyed "<key>@<window start>"; with "join",
// joins "in" with "in2" within 100 ms (1 h grace) and writes "<left>+<right>" to "out".
// The stores live in STATE_DIR if given (default DATA_DIR/state); each KEY=VALUE sets (or
// overrides) a configuration key.
// After SIGNAL_AFTER records it writes one byte to SIGNAL_FD (the parent then kills it); it
// exits 0 once everything in "in" is processed and committed. Each store restoration appends
// the number of records it restored to DATA_DIR/restored.txt. DATA_DIR/phase always holds the
// phase it is in, one word (progress_files.h).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "brook/kstream.h"
#include "brook/stream_stream_join.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "brook/windowed_kstream.h"
#include "brook/windows.h"
#include "progress_files.h"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: %s DATA_DIR GUARANTEE SIGNAL_FD SIGNAL_AFTER "
                 "[copy|count [STATE_DIR] [KEY=VALUE...]]\n",
                 argv[0]);
    return 2;
  }
  const std::string mode = argc >= 6 ? argv[5] : "copy";
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
  using namespace std::chrono_literals;
  if (mode == "count") {
    input.group_by_key().count({.name = "counts"}).to_stream().to("out");
  } else if (mode == "windowed-count") {
    input.group_by_key()
        .windowed_by(brook::TimeWindows::of_size_and_grace(10s, 1h))
        .count({.name = "window-counts"})
        .to_stream()
        .map([](const brook::Windowed<std::string>& w, const std::optional<std::int64_t>& n) {
          return brook::KeyValue<std::string, std::int64_t>{
              w.key + "@" + std::to_string(w.window.start.value()), n.value_or(0)};
        })
        .to("out");
  } else if (mode == "join") {
    input
        .join(
            builder.stream<std::string, std::string>("in2"),
            [](const std::string& left, const std::string& right) { return left + "+" + right; },
            brook::JoinWindows::of_time_difference_and_grace(100ms, 1h))
        .to("out");
  } else if (mode == "copy") {
    input.map_values([](const std::string& v) { return v + "!"; }).to("out");
  } else {
    std::fprintf(stderr, "%s: unknown mode '%s'\n", argv[0], mode.c_str());
    return 2;
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
  auto progress = std::make_shared<ProgressFiles>(argv[1]);
  brook::Streams app(*builder.build(), config);
  app.set_restore_listener(progress);
  app.set_state_listener(
      [&](brook::Streams::State to, brook::Streams::State) { progress->state(to); });
  if (auto s = app.start(); !s.ok()) return brook::report(s);
  while (app.state() != brook::Streams::State::kError) {
    auto lag = app.lag();
    if (!lag) return brook::report(lag.error());
    if (*lag == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  progress->closing();
  app.set_state_listener(nullptr);
  auto status = app.close();
  return status.ok() ? 0 : brook::report(status);
}
