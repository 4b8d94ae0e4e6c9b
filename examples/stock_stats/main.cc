// Computes daily statistics per stock symbol from the trades in topic `trades` into the
// compacted topic stock-stats, and a moving average per symbol over hopping windows into the
// compacted topic stock-moving-average, as a Streams app on the embedded log or Kafka. Flags:
// see examples/common.
#include "app_runner.h"
#include "stock_stats.h"

int main(int argc, char** argv) {
  auto topology = stock_stats::build_topology();
  if (!topology) return brook::report(topology.error());
  return examples::run_app(*topology, "stock-stats", argc, argv);
}
