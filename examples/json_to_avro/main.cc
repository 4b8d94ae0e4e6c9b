// Converts the JSON trades in topic trades-json to Avro in trades-avro, as a Streams app on the
// embedded log or Kafka; malformed trades go to trades-dead-letter. Flags: see examples/common.
#include "app_runner.h"
#include "json_to_avro.h"

int main(int argc, char** argv) {
  const auto errors = json_to_avro::error_handling();
  return examples::run_app(
      json_to_avro::build_topology, "json-to-avro", argc, argv,
      {.config = {{"default.deserialization.exception.handler", "dead-letter"},
                  {"processing.exception.handler", "dead-letter"},
                  {"errors.dead.letter.queue.topic.name", errors.dead_letter_topic}}});
}
