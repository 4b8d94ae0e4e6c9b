// The sensor readings `brook-demo` feeds to the example iot_late_events, and the results it
// must end with, recomputed straight from the readings: the demo compares them with what the
// application wrote.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "iot_late_events.h"

namespace brook::demo {

// The device that goes offline for 2 hours and then sends what it buffered, and the one that
// replays readings three weeks old.
inline constexpr const char* kPhone = "phone-17";
inline constexpr const char* kSwitch = "switch-3";
inline constexpr int kReplayedReadings = 12;

struct DemoReading {
  enum class Kind {
    kOnTime,    // arrives a second or two after it was taken
    kBuffered,  // the phone's, taken while it was offline: arrives when it reconnects
    kReplayed,  // the switch's, taken three weeks ago: far beyond the grace period
  };
  iot_late_events::Reading reading;
  std::int64_t arrival = 0;  // when it reached the topic: the record's log timestamp
  Kind kind = Kind::kOnTime;
};

// Readings of six devices over the 24 hours before `end` (ms since the Unix epoch), in arrival
// order, the same for the same seed and end: four sensors every 5 minutes and the switch
// every 5 minutes, the phone every 10 minutes, offline for 2 hours starting 25 minutes past
// the hour about 9 hours before `end` (kBuffered readings), and kReplayedReadings readings of
// the switch from three weeks before `end`, arriving about 5 hours before it (kReplayed).
std::vector<DemoReading> generate_readings(std::uint32_t seed, std::int64_t end);

// A device's hour: device id and window start (ms).
using DeviceHour = std::pair<std::string, std::int64_t>;

// The final sensor-hourly table: the HourlyStats of each device's readings per hour, every
// reading but the kReplayed ones, added in arrival order (the order the application sees
// them).
std::map<DeviceHour, iot_late_events::HourlyStats> recompute_hourly(
    const std::vector<DemoReading>& readings);

// The hours of `hourly` that have closed: end + grace <= the largest event time of the
// readings in the device's partition of the input topic (`partitions` partitions, keys
// partitioned by murmur2 like any Kafka producer): its task's stream time at the end.
std::map<DeviceHour, iot_late_events::HourlyStats> closed_hours(
    const std::vector<DemoReading>& readings,
    const std::map<DeviceHour, iot_late_events::HourlyStats>& hourly, int partitions);

}  // namespace brook::demo
