// The stateful application of kafka_failover_bench and kafka_rebalance_bench, run as a child
// process until SIGTERM:
//   kafka_failover_app BOOTSTRAP APPLICATION_ID INPUT OUTPUT STATE_DIR [KEY=VALUE...]
// Counts the records per key of INPUT in the RocksDB store "counts" (no record cache: every
// record is one changelog record) and writes every new count to OUTPUT. One stream thread,
// at_least_once, a 6 s session timeout so that a killed instance's partitions move within
// seconds; KEY=VALUE arguments are more configuration. Prints its timeline to stdout, one line
// per event, each starting with the time in microseconds of std::chrono::steady_clock
// (CLOCK_MONOTONIC: comparable across processes):
//   <us> state <STATE>                               a change of the application's state
//   <us> restore-start <task> <start> <end>          a store partition's restoration begins
//   <us> restore-end <task> <restored>               and ends
//   <us> processed <records>                         records processed so far, every 100 ms
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>

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
  if (argc < 6) {
    std::fprintf(stderr,
                 "usage: %s BOOTSTRAP APPLICATION_ID INPUT OUTPUT STATE_DIR [KEY=VALUE...]\n",
                 argv[0]);
    return 2;
  }
  brook::StreamsBuilder builder;
  builder.stream<std::string, std::string>(argv[3])
      .group_by_key()
      .count({.name = "counts", .type = brook::StoreType::kRocksDb, .caching = false})
      .to_stream()
      .to(argv[4]);
  std::map<std::string, std::string> config{{"bootstrap.servers", argv[1]},
                                            {"application.id", argv[2]},
                                            {"state.dir", argv[5]},
                                            {"num.stream.threads", "1"},
                                            {"commit.interval.ms", "100"},
                                            {"consumer.session.timeout.ms", "6000"},
                                            {"consumer.heartbeat.interval.ms", "1000"}};
  for (int i = 6; i < argc; ++i) {
    const char* eq = std::strchr(argv[i], '=');
    if (eq == nullptr) {
      std::fprintf(stderr, "%s: '%s' is not KEY=VALUE\n", argv[0], argv[i]);
      return 2;
    }
    config[std::string(argv[i], static_cast<std::size_t>(eq - argv[i]))] = eq + 1;
  }
  brook::Streams app(*builder.build(), config);
  // Prints the records processed every 100 ms until the app begins to close.
  std::atomic<bool> closing = false;
  std::thread reporter;
  app.set_state_listener([&](brook::Streams::State to, brook::Streams::State) {
    std::printf("%lld state %s\n", now_us(), std::string(brook::to_string(to)).c_str());
    std::fflush(stdout);
    if (to == brook::Streams::State::kPendingShutdown) {
      closing.store(true);
      if (reporter.joinable()) reporter.join();
    }
  });
  app.set_restore_listener(std::make_shared<PrintRestores>());
  reporter = std::thread([&] {
    while (!closing.load()) {
      std::printf("%lld processed %lld\n", now_us(),
                  static_cast<long long>(app.metrics().total("process-total")));
      std::fflush(stdout);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a report, not a wait
    }
  });
  const int status = app.run_until_signal();
  closing.store(true);
  if (reporter.joinable()) reporter.join();
  return status;
}
