// Routes the log lines of topic `logs` as a Streams app on the embedded log or Kafka: ERROR lines
// to logs-high-priority, the rest to logs-low-priority. Flags: see examples/common.
#include "app_runner.h"
#include "log_router.h"

int main(int argc, char** argv) {
  return examples::run_app(log_router::build_topology, "log-router", argc, argv);
}
