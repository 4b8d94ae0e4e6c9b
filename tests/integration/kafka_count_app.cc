// A stateful Streams application on Kafka for the scale-out and failover tests, run as a
// child process until SIGTERM:
//   kafka_count_app BOOTSTRAP APPLICATION_ID INPUT OUTPUT STATE_DIR GUARANTEE PROGRESS_DIR
//                   [WINDOW_OUTPUT JOIN_INPUT JOIN_OUTPUT] [KEY=VALUE...]
// Counts the records per key of INPUT in the RocksDB store "counts" (no record cache) and
// writes every new count to OUTPUT. With the three more topics it also counts them per key and
// 10 s tumbling window (store "window-counts", 1 h grace), writing each new count to
// WINDOW_OUTPUT keyed "<key>@<window start>", and joins INPUT with JOIN_INPUT within 100 ms
// (1 h grace), writing "<left>+<right>" to JOIN_OUTPUT. One stream thread; short session and
// transaction timeouts so that a killed instance's partitions move within seconds, and a cluster
// out of reach for two minutes (not 5, Kafka Streams' default) stops it. KEY=VALUE arguments
// are more configuration. Reports its phase, restorations and standby replicas in PROGRESS_DIR
// (progress_files.h).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "brook/stream_stream_join.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "brook/windowed_kstream.h"
#include "progress_files.h"

int main(int argc, char** argv) {
  std::map<std::string, std::string> more_config;
  while (argc > 8 && std::strchr(argv[argc - 1], '=') != nullptr) {
    const std::string setting = argv[--argc];
    const auto eq = setting.find('=');
    more_config[setting.substr(0, eq)] = setting.substr(eq + 1);
  }
  if (argc != 8 && argc != 11) {
    std::fprintf(stderr,
                 "usage: %s BOOTSTRAP APPLICATION_ID INPUT OUTPUT STATE_DIR GUARANTEE "
                 "PROGRESS_DIR [WINDOW_OUTPUT JOIN_INPUT JOIN_OUTPUT] [KEY=VALUE...]\n",
                 argv[0]);
    return 2;
  }
  using namespace std::chrono_literals;
  brook::StreamsBuilder builder;
  auto input = builder.stream<std::string, std::string>(argv[3]);
  input.group_by_key().count({.name = "counts", .caching = false}).to_stream().to(argv[4]);
  if (argc == 11) {
    input.group_by_key()
        .windowed_by(brook::TimeWindows::of_size_and_grace(10s, 1h))
        .count({.name = "window-counts", .caching = false})
        .to_stream()
        .map([](const brook::Windowed<std::string>& w, const std::optional<std::int64_t>& n) {
          return brook::KeyValue<std::string, std::int64_t>{
              w.key + "@" + std::to_string(w.window.start.value()), n.value_or(0)};
        })
        .to(argv[8]);
    input
        .join(
            builder.stream<std::string, std::string>(argv[9]),
            [](const std::string& left, const std::string& right) { return left + "+" + right; },
            brook::JoinWindows::of_time_difference_and_grace(100ms, 1h))
        .to(argv[10]);
  }
  std::map<std::string, std::string> config{{"bootstrap.servers", argv[1]},
                                            {"application.id", argv[2]},
                                            {"state.dir", argv[5]},
                                            {"processing.guarantee", argv[6]},
                                            {"commit.interval.ms", "100"},
                                            {"consumer.session.timeout.ms", "6000"},
                                            {"consumer.heartbeat.interval.ms", "1000"},
                                            {"producer.transaction.timeout.ms", "6000"},
                                            {"task.timeout.ms", "120000"}};
  for (auto& [key, value] : more_config) config[key] = value;
  brook::Streams app(*builder.build(), config);
  auto progress = std::make_shared<ProgressFiles>(argv[7]);
  // Reports the standby replicas every 100 ms until the app begins to close.
  std::atomic<bool> done = false;
  std::thread standby_reporter;
  app.set_restore_listener(progress);
  app.set_state_listener([&](brook::Streams::State to, brook::Streams::State) {
    if (to == brook::Streams::State::kPendingShutdown) {
      progress->closing();
      done.store(true);
      if (standby_reporter.joinable()) standby_reporter.join();
    }
    progress->state(to);
  });
  standby_reporter = std::thread([&] {
    while (!done.load()) {
      if (auto lags = app.local_store_lags()) {
        StandbyReport report;
        for (const auto& [store, partitions] : *lags) {
          for (const auto& [partition, info] : partitions) {
            if (!info.standby) continue;
            ++report.partitions;
            report.lag += info.lag;
          }
        }
        progress->standbys(report);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a report, not a wait
    }
  });
  const int status = app.run_until_signal();
  done.store(true);
  if (standby_reporter.joinable()) standby_reporter.join();
  return status;
}
