#include "brook/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace brook {

namespace {

constexpr auto kSampleWindow = std::chrono::seconds(30);
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

void Sensor::record(double value, std::int64_t count, Clock::time_point now) {
  if (count <= 0) return;
  std::lock_guard lock(mutex_);
  Sample* sample = &samples_[current_];
  if (sample->count == 0 || now - sample->start >= kSampleWindow) {
    if (sample->count != 0) {
      current_ ^= 1;
      sample = &samples_[current_];
    }
    *sample = {.start = now, .count = 0, .sum = 0, .max = value};
  }
  sample->count += count;
  sample->sum += value * static_cast<double>(count);
  sample->max = std::max(sample->max, value);
  total_ += count;
}

Sensor::Reading Sensor::read(Clock::time_point now) const {
  std::lock_guard lock(mutex_);
  std::int64_t count = 0;
  double sum = 0, max = kNaN;
  auto oldest = now;
  for (const Sample& sample : samples_) {
    if (sample.count == 0 || now - sample.start >= 2 * kSampleWindow) continue;
    count += sample.count;
    sum += sample.sum;
    max = std::isnan(max) ? sample.max : std::max(max, sample.max);
    oldest = std::min(oldest, sample.start);
  }
  // Over the time since the oldest live sample began, at least one second.
  const double seconds = std::max(std::chrono::duration<double>(now - oldest).count(), 1.0);
  return {.avg = count == 0 ? kNaN : sum / static_cast<double>(count),
          .max = max,
          .rate = static_cast<double>(count) / seconds,
          .total = total_};
}

void Stopwatch::record(Sensor& sensor, std::int64_t count) const {
  if (count <= 0) return;
  const std::chrono::duration<double, std::milli> elapsed = Sensor::Clock::now() - start_;
  sensor.record(elapsed.count() / static_cast<double>(count), count);
}

Metrics::Counter& Metrics::counter(const MetricName& name) {
  std::lock_guard lock(mutex_);
  auto& slot = counters_[name];
  if (!slot) slot = std::make_unique<Counter>(0);
  return *slot;
}

Sensor& Metrics::sensor(const MetricName& name, SensorKind kind) {
  std::lock_guard lock(mutex_);
  auto& slot = sensors_[name];
  if (!slot) slot = std::make_unique<NamedSensor>(kind);
  return slot->sensor;
}

void Metrics::gauge(const MetricName& name, std::function<double()> read) {
  std::lock_guard lock(mutex_);
  gauges_[name] = std::move(read);
}

std::vector<MetricValue> Metrics::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<MetricValue> values;
  values.reserve(counters_.size() + 4 * sensors_.size() + gauges_.size());
  for (const auto& [name, counter] : counters_) {
    values.push_back({name, static_cast<double>(counter->load())});
  }
  const auto now = Sensor::Clock::now();
  for (const auto& [name, named] : sensors_) {
    const auto reading = named->sensor.read(now);
    auto add = [&](std::string suffix, double value) {
      MetricName full = name;
      full.name += suffix;
      values.push_back({std::move(full), value});
    };
    if (named->kind == SensorKind::kLatency) {
      add("-latency-avg", reading.avg);
      add("-latency-max", reading.max);
      add("-rate", reading.rate);
      add("-total", static_cast<double>(reading.total));
    } else {
      add("-avg", reading.avg);
    }
  }
  for (const auto& [name, read] : gauges_) values.push_back({name, read()});
  std::sort(values.begin(), values.end(),
            [](const MetricValue& a, const MetricValue& b) { return a.name < b.name; });
  return values;
}

std::int64_t Metrics::total(const std::string& name) const {
  std::lock_guard lock(mutex_);
  std::int64_t sum = 0;
  for (const auto& [key, counter] : counters_)
    if (key.name == name) sum += counter->load();
  return sum;
}

}  // namespace brook
