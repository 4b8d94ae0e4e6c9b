// iot_late_events: hourly temperature statistics per device from sensor readings that arrive
// late and out of order (DESIGN.md pattern 7, out-of-sequence events).
//
// Each reading carries the time it was taken; the record's log timestamp is only when it
// arrived. The source's timestamp extractor makes the reading's own time the event time, so
// a reading lands in the hour it was taken in, however late it arrives. Readings are grouped
// by their key (the device id: the topic is keyed by device, so no repartition topic) into
// hourly tumbling windows with a 3-hour reconciliation period (grace):
//   - a reading up to 3 h late (by the stream time of its task) updates its hour, and the
//     hour's new statistics are written again to the compacted topic sensor-hourly, whose
//     newest record per device and hour is the corrected result;
//   - a reading for an hour that closed more than 3 h ago is dropped and counted in the
//     task's dropped-records-total metric;
//   - sensor-hourly-final gets each hour's statistics once, when the hour closes (end + 3 h
//     of stream time): suppress(until_window_closes()).
// Both output topics are keyed by Windowed<device>: [device bytes][8-byte big-endian window
// start], brook::TimeWindowedSerde (windowed_key_serde() reads the end back too).
#pragma once

#include <brook/brook.h>
#include <brook/json_serde.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace iot_late_events {

inline constexpr const char* kInputTopic = "sensor-readings";
inline constexpr const char* kHourlyTopic = "sensor-hourly";       // every update (compacted)
inline constexpr const char* kFinalTopic = "sensor-hourly-final";  // final results (compacted)
// The window store, and the name of the suppression node, whose buffer is the store
// "<kFinalName>-store". Named, so that they keep their names (and changelogs) when the
// topology changes.
inline constexpr const char* kStoreName = "hourly-temperatures";
inline constexpr const char* kFinalName = "hourly-final";
inline constexpr std::chrono::milliseconds kWindowSize = std::chrono::hours(1);
inline constexpr std::chrono::milliseconds kGrace = std::chrono::hours(3);

// A reading as JSON {"device": "freezer-2", "taken_at": 1780000000000, "temperature": -18.4}:
// taken_at is when it was taken, in ms since the Unix epoch (the event time), temperature in
// degrees Celsius.
struct Reading {
  std::string device;
  std::int64_t taken_at = 0;
  double temperature = 0;
  friend bool operator==(const Reading&, const Reading&) = default;
};
void to_json(nlohmann::json& json, const Reading& reading);
void from_json(const nlohmann::json& json, Reading& reading);

// One device's readings in one hour. Starts empty (count == 0, every other field 0).
// JSON {"count": 12, "min": 20.1, "max": 22.4, "sum": 255.3, "mean": 21.275}.
struct HourlyStats {
  std::int64_t count = 0;
  double min = 0;
  double max = 0;
  double sum = 0;   // of the temperatures, in the order the readings were added
  double mean = 0;  // sum / count

  // Adds one reading's temperature.
  void add(double temperature);
  friend bool operator==(const HourlyStats&, const HourlyStats&) = default;
};
void to_json(nlohmann::json& json, const HourlyStats& stats);
void from_json(const nlohmann::json& json, HourlyStats& stats);

// Hourly tumbling windows, kGrace of grace.
brook::TimeWindows hourly_windows();
// The serde of both output topics' keys: device id (string) and window start; reads the end
// back as start + 1 h.
brook::SerdePtr<brook::Windowed<std::string>> windowed_key_serde();
// "freezer-2 2026-11-29T10:00Z": a windowed key for people (UTC, to the minute).
std::string label(const brook::Windowed<std::string>& key);

// Readings of kInputTopic (keyed by device id) -> HourlyStats per device and hour in the
// RocksDB window store kStoreName (not cached: every reading's update goes downstream) ->
// every update to kHourlyTopic, final results through the suppression kFinalName to
// kFinalTopic. Readings with a negative taken_at are dropped and counted
// (InvalidTimestamp::kSkip).
// Built with `config` (StreamsBuilder::build: its topology.optimization).
brook::Result<brook::Topology> build_topology(
    const std::map<std::string, std::string>& config = {});

}  // namespace iot_late_events
