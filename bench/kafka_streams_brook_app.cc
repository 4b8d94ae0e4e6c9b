// The Brook side of kafka_streams_bench: the same applications as
// bench/kafka_streams/src/main/java/dev/brook/bench/KafkaStreamsApp.java, with the same flags
// and the same lines on stdout:
//
//   kafka_streams_brook_app --app stateless|count|hopping --bootstrap H:P --application-id ID
//       --input TOPIC --output TOPIC --state-dir DIR --guarantee at_least_once|exactly_once_v2
//       --commit-interval-ms N --cache-max-bytes N --records N
//
//   stateless: stream(input).filter(value does not start with "DEBUG")
//              .map_values(value in upper case).to(output)          (string keys and values)
//   count:     stream(input).group_by_key().count({.name = "counts"})  (RocksDB, changelog)
//              .to_stream().to(output)                              (string keys, int64 counts)
//   hopping:   the same count per window: .windowed_by(TimeWindows of 60 s every 10 s, 10 s
//              grace) before .count (windowed keys: [key][8-byte window start])
//
// One stream thread. Prints "running <CLOCK_MONOTONIC ns>" when the application first reaches
// RUNNING, waits until its tasks have processed --records records (the process-total metric),
// prints "processed <CLOCK_MONOTONIC ns>", closes it (which commits: offsets, and under
// exactly_once_v2 the transaction), prints "done <records processed> <peak RSS in KiB>" (VmHWM of
// /proc/self/status) and exits 0; exits 1 on any error, 2 on a bad flag.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <thread>

#include "brook/kgrouped_stream.h"
#include "brook/kstream.h"
#include "brook/ktable.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "brook/windowed_kstream.h"
#include "brook/windows.h"

namespace {

constexpr std::string_view kFlags[] = {
    "app",       "bootstrap",          "application-id",  "input",   "output",
    "state-dir", "commit-interval-ms", "cache-max-bytes", "records", "guarantee"};
constexpr auto kPoll = std::chrono::milliseconds(10);

long long monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The peak resident set size of this process (VmHWM), in KiB; -1 if /proc does not say.
long long peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("VmHWM:")) return std::atoll(line.c_str() + 6);
  }
  std::fprintf(stderr, "no VmHWM in /proc/self/status\n");
  return -1;
}

bool keep(const std::string&, const std::string& line) { return !line.starts_with("DEBUG"); }

std::string shout(std::string line) {
  std::ranges::transform(line, line.begin(), [](unsigned char c) { return std::toupper(c); });
  return line;
}

// The --name value pairs of kFlags, all required; empty if one is missing or unknown.
std::map<std::string, std::string> parse(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view name = argv[i];
    if (!name.starts_with("--") || std::ranges::find(kFlags, name.substr(2)) == std::end(kFlags)) {
      return {};
    }
    flags[std::string(name.substr(2))] = argv[i + 1];
  }
  if (argc % 2 == 0 || flags.size() != std::size(kFlags)) return {};
  return flags;
}

int usage(const char* program) {
  std::fprintf(stderr, "usage: %s", program);
  for (auto flag : kFlags)
    std::fprintf(stderr, " --%.*s V", static_cast<int>(flag.size()), flag.data());
  std::fprintf(stderr, "\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  auto flags = parse(argc, argv);
  if (flags.empty()) return usage(argv[0]);
  brook::StreamsBuilder builder;
  auto input = builder.stream<std::string, std::string>(flags["input"]);
  if (flags["app"] == "stateless") {
    input.filter(keep).map_values(shout).to(flags["output"]);
  } else if (flags["app"] == "count") {
    input.group_by_key()
        .count({.name = "counts", .type = brook::StoreType::kRocksDb})
        .to_stream()
        .to(flags["output"]);
  } else if (flags["app"] == "hopping") {
    using std::chrono::seconds;
    input.group_by_key()
        .windowed_by(
            brook::TimeWindows::of_size_and_grace(seconds(60), seconds(10)).advance_by(seconds(10)))
        .count({.name = "counts", .type = brook::StoreType::kRocksDb})
        .to_stream()
        .to(flags["output"]);
  } else {
    std::fprintf(stderr, "--app: '%s' is not stateless, count or hopping\n", flags["app"].c_str());
    return 2;
  }
  auto topology = builder.build();
  if (!topology) return brook::report(topology.error());
  const std::int64_t records = std::stoll(flags["records"]);

  std::atomic<bool> running = false;  // outlives the application, whose listener sets it
  brook::Streams app(*topology, {{"bootstrap.servers", flags["bootstrap"]},
                                 {"application.id", flags["application-id"]},
                                 {"state.dir", flags["state-dir"]},
                                 {"num.stream.threads", "1"},
                                 {"processing.guarantee", flags["guarantee"]},
                                 {"commit.interval.ms", flags["commit-interval-ms"]},
                                 {"statestore.cache.max.bytes", flags["cache-max-bytes"]}});
  app.set_state_listener([&](brook::Streams::State to, brook::Streams::State) {
    if (to == brook::Streams::State::kRunning && !running.exchange(true)) {
      std::printf("running %lld\n", monotonic_ns());
      std::fflush(stdout);
    }
  });
  if (auto s = app.start(); !s.ok()) return brook::report(s);

  std::int64_t processed = 0;
  while ((processed = app.metrics().total("process-total")) < records) {
    const auto state = app.state();
    if (state == brook::Streams::State::kError || state == brook::Streams::State::kNotRunning) {
      std::fprintf(stderr, "the application stopped in %s after %lld records\n",
                   std::string(brook::to_string(state)).c_str(), static_cast<long long>(processed));
      if (auto s = app.close(); !s.ok()) brook::report(s);
      return 1;
    }
    std::this_thread::sleep_for(kPoll);
  }
  std::printf("processed %lld\n", monotonic_ns());
  std::fflush(stdout);
  if (auto s = app.close(); !s.ok()) return brook::report(s);
  std::printf("done %lld %lld\n", static_cast<long long>(processed), peak_rss_kib());
  std::fflush(stdout);
  return 0;
}
