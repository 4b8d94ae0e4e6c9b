// Ranks the day's top 10 gainers among the stocks traded in topic `trades` into the compacted
// topic top-gainers, as a Streams app on the embedded log or Kafka. Flags: see examples/common.
#include "app_runner.h"
#include "top_gainers.h"

int main(int argc, char** argv) {
  return examples::run_app(top_gainers::build_topology, "top-gainers", argc, argv);
}
