// run_app: the main() of every example. Builds its topology with the configuration the flags
// give (so --config topology.optimization=... applies) and runs it as a real Streams application
// on the embedded log or on a Kafka cluster, with a few command-line flags:
//   --data-dir DIR              the embedded log's directory (default ./brook-data)
//   --bootstrap-servers H:P,..  run on this Kafka cluster instead (bootstrap.servers)
//   --state-dir DIR             where the stores live (default <data dir>/state)
//   --group-instance-id ID      Kafka: static membership (group.instance.id), unique per
//                               instance
//   --application-id ID         application.id instead of the example's own: its consumer
//                               group and the prefix of its internal topics (side-by-side
//                               runs, tests on a shared cluster)
//   --threads N                 stream threads (default 2)
//   --exactly-once              processing.guarantee=exactly_once_v2
//   --serve HOST:PORT           application.server: answer queries over HTTP (brook/serve.h),
//                               listening on 127.0.0.1:PORT unless serve.listen says otherwise
//   --config KEY=VALUE          any other configuration key (repeatable)
//   --until-idle                stop once every input record is processed and committed
//                               (demos, tests); commits every 100 ms unless configured
//                               otherwise
//   --describe                  print the topology's description (Topology::describe()) and
//                               exit without running
// Without --until-idle it runs until SIGINT/SIGTERM. Returns the process exit code: 2 for an
// unknown or incomplete flag.
#pragma once

#include <brook/brook.h>
#include <brook/streams.h>

#include <functional>
#include <map>
#include <stop_token>
#include <string>

namespace examples {

struct AppOptions {
  // Configuration of the example's own, under the flags.
  std::map<std::string, std::string> config;
  // Called with the application once it has stopped (closed, or failed to start or run), e.g.
  // to read its metrics; not for a bad flag.
  std::function<void(const brook::Streams&)> after_run;
  // Runs on a thread of its own from the application's start until it stops (then `stop` is
  // requested), e.g. a source writing into its log. An error it returns is reported and stops
  // the application, which then exits 1.
  std::function<brook::Status(const brook::Streams&, std::stop_token stop)> beside;
};

// Builds the example's topology with the configuration the flags give.
using BuildTopology =
    std::function<brook::Result<brook::Topology>(const std::map<std::string, std::string>&)>;

int run_app(const BuildTopology& build, const std::string& application_id, int argc, char** argv,
            AppOptions options = {});

}  // namespace examples
