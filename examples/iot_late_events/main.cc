// Hourly temperature statistics per device from the readings in topic `sensor-readings`, by
// the time each reading was taken: every update to the compacted topic sensor-hourly, final
// results to sensor-hourly-final. Runs as a Streams app on the embedded log or Kafka (flags:
// see examples/common); prints how many readings came too late to count when it stops.
#include <cstdio>

#include "app_runner.h"
#include "iot_late_events.h"

int main(int argc, char** argv) {
  return examples::run_app(
      iot_late_events::build_topology, "iot-late-events", argc, argv,
      {.after_run = [](const brook::Streams& app) {
        std::printf(
            "iot_late_events: %lld readings dropped, too late for their "
            "hour (dropped-records-total)\n",
            static_cast<long long>(app.metrics().total("dropped-records-total")));
      }});
}
