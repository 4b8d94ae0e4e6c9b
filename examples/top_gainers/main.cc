// Ranks the day's top 10 gainers among the stocks traded in topic `trades` into the compacted
// topic top-gainers, as a Streams app on the embedded log or Kafka. Flags: see examples/common.
#include "app_runner.h"
#include "top_gainers.h"

int main(int argc, char** argv) {
  auto topology = top_gainers::build_topology();
  if (!topology) return brook::report(topology.error());
  return examples::run_app(*topology, "top-gainers", argc, argv);
}
