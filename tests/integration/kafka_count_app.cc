// A stateful Streams application on Kafka for the scale-out and failover tests, run as a
// child process until SIGTERM:
//   kafka_count_app BOOTSTRAP APPLICATION_ID INPUT OUTPUT STATE_DIR GUARANTEE PROGRESS_DIR
// Counts the records per key of INPUT in the RocksDB store "counts" (no record cache) and
// writes every new count to OUTPUT. One stream thread; short session and transaction timeouts so
// that a killed instance's partitions move within seconds, and a cluster out of reach for two
// minutes (not 5, Kafka Streams' default) stops it. Reports its phase and restorations
// in PROGRESS_DIR (progress_files.h).
#include <cstdio>
#include <memory>

#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "progress_files.h"

int main(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr,
                 "usage: %s BOOTSTRAP APPLICATION_ID INPUT OUTPUT STATE_DIR GUARANTEE "
                 "PROGRESS_DIR\n",
                 argv[0]);
    return 2;
  }
  brook::StreamsBuilder builder;
  builder.stream<std::string, std::string>(argv[3])
      .group_by_key()
      .count({.name = "counts", .caching = false})
      .to_stream()
      .to(argv[4]);
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
