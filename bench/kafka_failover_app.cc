// The stateful application of kafka_failover_bench, run as a child process until SIGTERM:
//   kafka_failover_app BOOTSTRAP APPLICATION_ID INPUT OUTPUT STATE_DIR STANDBY_REPLICAS
// Counts the records per key of INPUT in the RocksDB store "counts" (no record cache: every
// record is one changelog record) and writes every new count to OUTPUT. One stream thread,
// at_least_once, a 6 s session timeout so that a killed instance's partitions move within
// seconds, num.standby.replicas=STANDBY_REPLICAS. Prints its timeline to stdout, one line per
// event, each starting with the time in microseconds of std::chrono::steady_clock (CLOCK_MONOTONIC:
// comparable across processes):
//   <us> state <STATE>                               a change of the application's state
//   <us> restore-start <task> <start> <end>          a store partition's restoration begins
//   <us> restore-end <task> <restored>               and ends
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "brook/streams.h"
#include "brook/streams_builder.h"

namespace {

long long now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class PrintRestores : public brook::StateRestoreListener {
 public:
  void on_restore_start(const std::string&, brook::TaskId task, brook::Offset start,
                        brook::Offset end) override {
    std::printf("%lld restore-start %s %lld %lld\n", now_us(), task.to_string().c_str(),
                static_cast<long long>(start.value()), static_cast<long long>(end.value()));
    std::fflush(stdout);
  }
  void on_restore_end(const std::string&, brook::TaskId task, std::int64_t restored) override {
    std::printf("%lld restore-end %s %lld\n", now_us(), task.to_string().c_str(),
                static_cast<long long>(restored));
    std::fflush(stdout);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr,
                 "usage: %s BOOTSTRAP APPLICATION_ID INPUT OUTPUT STATE_DIR STANDBY_REPLICAS\n",
                 argv[0]);
    return 2;
  }
  brook::StreamsBuilder builder;
  builder.stream<std::string, std::string>(argv[3])
      .group_by_key()
      .count({.name = "counts", .type = brook::StoreType::kRocksDb, .caching = false})
      .to_stream()
      .to(argv[4]);
  brook::Streams app(*builder.build(), {{"bootstrap.servers", argv[1]},
                                        {"application.id", argv[2]},
                                        {"state.dir", argv[5]},
                                        {"num.stream.threads", "1"},
                                        {"num.standby.replicas", argv[6]},
                                        {"commit.interval.ms", "100"},
                                        {"consumer.session.timeout.ms", "6000"},
                                        {"consumer.heartbeat.interval.ms", "1000"}});
  app.set_state_listener([](brook::Streams::State to, brook::Streams::State) {
    std::printf("%lld state %s\n", now_us(), std::string(brook::to_string(to)).c_str());
    std::fflush(stdout);
  });
  app.set_restore_listener(std::make_shared<PrintRestores>());
  return app.run_until_signal();
}
