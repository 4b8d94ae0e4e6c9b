#include "brook/metrics.h"

namespace brook {

Metrics::Counter& Metrics::counter(const MetricName& name) {
  std::lock_guard lock(mutex_);
  auto& slot = counters_[name];
  if (!slot) slot = std::make_unique<Counter>(0);
  return *slot;
}

std::vector<MetricValue> Metrics::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<MetricValue> values;
  values.reserve(counters_.size());
  for (const auto& [name, counter] : counters_) values.push_back({name, counter->load()});
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
