// Finds the most-clicked result per search query: searches in topic `searches` joined with the
// same user's clicks in topic `clicks` within 5 s, counted per query into the compacted topic
// top-clicked-results, as a Streams app on the embedded log or Kafka. Flags: see
// examples/common.
#include "app_runner.h"
#include "search_clicks.h"

int main(int argc, char** argv) {
  return examples::run_app(search_clicks::build_topology, "search-clicks", argc, argv);
}
