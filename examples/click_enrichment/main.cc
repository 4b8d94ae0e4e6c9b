// Enriches the clicks in topic `user-clicks` with the user profiles of topic `user-profiles`
// into user-clicks-enriched, as a Streams app on the embedded log or Kafka. Flags: see
// examples/common.
#include "app_runner.h"
#include "click_enrichment.h"

int main(int argc, char** argv) {
  return examples::run_app(click_enrichment::build_topology, "click-enrichment", argc, argv);
}
