#include "demo_readings.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "backend/log_backend.h"
#include "demo_time.h"

namespace brook::demo {
namespace {

using iot_late_events::HourlyStats;

std::int64_t hour_of(std::int64_t t) { return t - t % kHour; }

}  // namespace

std::vector<DemoReading> generate_readings(std::uint32_t seed, std::int64_t end) {
  struct Device {
    const char* id;
    double base;  // mean temperature
    std::int64_t interval;
  };
  const Device devices[] = {
      {"thermo-office", 21.5, 5 * kMinute}, {"thermo-lab", 19.0, 5 * kMinute},
      {"freezer-2", -18.5, 5 * kMinute},    {"greenhouse-1", 24.0, 5 * kMinute},
      {kPhone, 31.0, 10 * kMinute},         {kSwitch, 42.0, 5 * kMinute}};
  std::mt19937 random(seed);
  const std::int64_t start = end - kDay;
  const std::int64_t offline_from = hour_of(end - 9 * kHour) + 25 * kMinute;
  const std::int64_t offline_to = offline_from + 2 * kHour;
  // A daily cycle of ±1.5 degrees, noise of ±0.3, to a tenth of a degree.
  auto temperature = [&](const Device& device, std::int64_t t) {
    const double cycle = 1.5 * std::sin(2 * std::numbers::pi * static_cast<double>(t % kDay) /
                                        static_cast<double>(kDay));
    const double noise = (static_cast<int>(random() % 61) - 30) / 100.0;
    return std::round((device.base + cycle + noise) * 10) / 10;
  };

  std::vector<DemoReading> out;
  for (const auto& device : devices) {
    const std::int64_t phase = static_cast<std::int64_t>(random() % device.interval);
    std::int64_t buffered = 0;
    for (std::int64_t t = start + phase; t <= end; t += device.interval) {
      const std::int64_t taken =
          std::min(end, t + static_cast<std::int64_t>(random() % 20) * kSecond);
      DemoReading r{{device.id, taken, temperature(device, taken)},
                    taken + 50 + static_cast<std::int64_t>(random() % 2'000)};
      if (device.id == std::string_view(kPhone) && taken >= offline_from && taken < offline_to) {
        r.kind = DemoReading::Kind::kBuffered;
        r.arrival = offline_to + 200 * buffered++;  // uploaded in order on reconnecting
      }
      out.push_back(std::move(r));
    }
  }
  // The switch, repaired, uploads readings from its memory of three weeks ago.
  const std::int64_t replay_from = end - 21 * kDay - 2 * kHour;
  const std::int64_t uploaded = hour_of(end - 5 * kHour) + 15 * kMinute;
  for (int i = 0; i < kReplayedReadings; ++i) {
    const std::int64_t taken = replay_from + i * 10 * kMinute;
    out.push_back({{kSwitch, taken, temperature(devices[5], taken)},
                   uploaded + i * 100,
                   DemoReading::Kind::kReplayed});
  }
  std::stable_sort(out.begin(), out.end(), [](const DemoReading& a, const DemoReading& b) {
    return a.arrival < b.arrival;
  });
  return out;
}

std::map<DeviceHour, HourlyStats> recompute_hourly(const std::vector<DemoReading>& readings) {
  std::map<DeviceHour, HourlyStats> out;
  for (const auto& r : readings) {
    if (r.kind == DemoReading::Kind::kReplayed) continue;
    out[{r.reading.device, hour_of(r.reading.taken_at)}].add(r.reading.temperature);
  }
  return out;
}

std::map<DeviceHour, HourlyStats> closed_hours(const std::vector<DemoReading>& readings,
                                               const std::map<DeviceHour, HourlyStats>& hourly,
                                               int partitions) {
  std::map<std::int32_t, std::int64_t> stream_time;  // per partition
  auto partition_of = [&](const std::string& device) {
    return internal::partition_for_key(device, partitions).value();
  };
  for (const auto& r : readings) {
    auto& time = stream_time.try_emplace(partition_of(r.reading.device), 0).first->second;
    time = std::max(time, r.reading.taken_at);
  }
  const std::int64_t close_delay = (iot_late_events::kWindowSize + iot_late_events::kGrace).count();
  std::map<DeviceHour, HourlyStats> out;
  for (const auto& [key, stats] : hourly) {
    if (key.second + close_delay <= stream_time[partition_of(key.first)]) out.emplace(key, stats);
  }
  return out;
}

}  // namespace brook::demo
