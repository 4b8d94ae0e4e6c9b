// A stateful Streams application on Kafka for the scale-out and failover tests, run as a
// child process until SIGTERM:
//   kafka_count_app BOOTSTRAP APPLICATION_ID INPUT OUTPUT STATE_DIR GUARANTEE PROGRESS_DIR
//                   [WINDOW_OUTPUT JOIN_INPUT JOIN_OUTPUT]
// Counts the records per key of INPUT in the RocksDB store "counts" (no record cache) and
// writes every new count to OUTPUT. With the three more topics it also counts them per key and
// 10 s tumbling window (store "window-counts", 1 h grace), writing each new count to
// WINDOW_OUTPUT keyed "<key>@<window start>", and joins INPUT with JOIN_INPUT within 100 ms
// (1 h grace), writing "<left>+<right>" to JOIN_OUTPUT. One stream thread; short session and
// transaction timeouts so that a killed instance's partitions move within seconds, and a cluster
// out of reach for two minutes (not 5, Kafka Streams' default) stops it. Reports its phase and
// restorations in PROGRESS_DIR (progress_files.h).
#include <chrono>
#include <cstdio>
#include <memory>

#include "brook/stream_stream_join.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "brook/windowed_kstream.h"
#include "progress_files.h"

int main(int argc, char** argv) {
  if (argc != 8 && argc != 11) {
    std::fprintf(stderr,
                 "usage: %s BOOTSTRAP APPLICATION_ID INPUT OUTPUT STATE_DIR GUARANTEE "
                 "PROGRESS_DIR [WINDOW_OUTPUT JOIN_INPUT JOIN_OUTPUT]\n",
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
  brook::Streams app(*builder.build(), {{"bootstrap.servers", argv[1]},
                                        {"application.id", argv[2]},
                                        {"state.dir", argv[5]},
                                        {"processing.guarantee", argv[6]},
                                        {"commit.interval.ms", "100"},
                                        {"consumer.session.timeout.ms", "6000"},
                                        {"consumer.heartbeat.interval.ms", "1000"},
                                        {"producer.transaction.timeout.ms", "6000"},
                                        {"task.timeout.ms", "120000"}});
  auto progress = std::make_shared<ProgressFiles>(argv[7]);
  app.set_restore_listener(progress);
  app.set_state_listener([&](brook::Streams::State to, brook::Streams::State) {
    if (to == brook::Streams::State::kPendingShutdown) progress->closing();
    progress->state(to);
  });
  return app.run_until_signal();
}
