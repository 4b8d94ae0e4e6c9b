// run_app: the main() of every example. Runs a topology as a real Streams application on the
// embedded log or on a Kafka cluster, with a few command-line flags:
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
// Without --until-idle it runs until SIGINT/SIGTERM. Returns the process exit code: 2 for an
// unknown or incomplete flag. `after_run`, if given, is called with the application once it
// has stopped (closed, or failed to start or run), e.g. to read its metrics; not for a bad
// flag.
#pragma once

#include <brook/brook.h>
#include <brook/streams.h>

#include <functional>
#include <map>
#include <string>

namespace examples {

int run_app(const brook::Topology& topology, const std::string& application_id, int argc,
            char** argv, std::map<std::string, std::string> extra_config = {},
            const std::function<void(const brook::Streams&)>& after_run = {});

}  // namespace examples
