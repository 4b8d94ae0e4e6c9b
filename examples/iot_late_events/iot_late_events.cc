#include "iot_late_events.h"

#include <algorithm>
#include <cstdio>

namespace iot_late_events {

void to_json(nlohmann::json& json, const Reading& reading) {
  json = {{"device", reading.device},
          {"taken_at", reading.taken_at},
          {"temperature", reading.temperature}};
}

void from_json(const nlohmann::json& json, Reading& reading) {
  json.at("device").get_to(reading.device);
  json.at("taken_at").get_to(reading.taken_at);
  json.at("temperature").get_to(reading.temperature);
}

void HourlyStats::add(double temperature) {
  if (count == 0) {
    min = max = temperature;
  } else {
    min = std::min(min, temperature);
    max = std::max(max, temperature);
  }
  ++count;
  sum += temperature;
  mean = sum / static_cast<double>(count);
}

void to_json(nlohmann::json& json, const HourlyStats& s) {
  json = {{"count", s.count}, {"min", s.min}, {"max", s.max}, {"sum", s.sum}, {"mean", s.mean}};
}

void from_json(const nlohmann::json& json, HourlyStats& s) {
  json.at("count").get_to(s.count);
  json.at("min").get_to(s.min);
  json.at("max").get_to(s.max);
  json.at("sum").get_to(s.sum);
  json.at("mean").get_to(s.mean);
}

brook::TimeWindows hourly_windows() {
  return brook::TimeWindows::of_size_and_grace(kWindowSize, kGrace);
}

brook::SerdePtr<brook::Windowed<std::string>> windowed_key_serde() {
  return std::make_shared<const brook::TimeWindowedSerde<std::string>>(
      std::make_shared<const brook::StringSerde>(), kWindowSize);
}

std::string label(const brook::Windowed<std::string>& key) {
  using namespace std::chrono;
  const sys_time<milliseconds> start{milliseconds(key.window.start.value())};
  const auto day = floor<days>(start);
  const year_month_day date{day};
  const hh_mm_ss time{floor<minutes>(start - day)};
  char text[32];
  std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02d:%02dZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()));
  return key.key + " " + text;
}

brook::Result<brook::Topology> build_topology(const std::map<std::string, std::string>& config) {
  brook::StreamsBuilder builder;
  auto hourly = builder
                    .stream<std::string, Reading>(
                        kInputTopic,
                        {.name = "read-readings",
                         // The time the reading was taken, not when it arrived (the log timestamp).
                         .timestamp_extractor =
                             [](const brook::Record<std::string, Reading>& r, brook::Timestamp) {
                               return brook::Timestamp(r.value.taken_at);
                             },
                         .on_invalid_timestamp = brook::InvalidTimestamp::kSkip})
                    .group_by_key()
                    .windowed_by(hourly_windows())
                    .aggregate([] { return HourlyStats{}; },
                               [](const std::string&, const Reading& reading, HourlyStats stats) {
                                 stats.add(reading.temperature);
                                 return stats;
                               },
                               {.name = kStoreName, .caching = false});
  hourly.to_stream({.name = "hourly-updates"})
      .to(kHourlyTopic, {.key_serde = windowed_key_serde(), .name = "write-hourly"});
  hourly.suppress(brook::Suppressed::until_window_closes().with_name(kFinalName))
      .to_stream({.name = "hourly-final-results"})
      .to(kFinalTopic, {.key_serde = windowed_key_serde(), .name = "write-hourly-final"});
  return builder.build(config);
}

}  // namespace iot_late_events
