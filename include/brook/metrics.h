// Metrics: named counters of an application, read as a snapshot.
//
// Counters are registered once and then incremented lock-free from any thread.
// Task-level counters (group "stream-task-metrics", tag "task-id"):
//   process-total, deserialization-errors-total, processing-errors-total,
//   dropped-records-total (skipped by an error handler or InvalidTimestamp::kSkip, or dropped
//   by an operator: a record too late for its window, a null key where a key is needed),
//   dead-letter-records-total
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace brook {

struct MetricName {
  std::string group;
  std::string name;
  std::map<std::string, std::string> tags;
  friend auto operator<=>(const MetricName&, const MetricName&) = default;
};

struct MetricValue {
  MetricName name;
  std::int64_t value = 0;
};

class Metrics {
 public:
  using Counter = std::atomic<std::int64_t>;

  // The counter with this name, created at 0 on first use. The reference stays valid for the
  // lifetime of this Metrics object. Thread-safe.
  Counter& counter(const MetricName& name);

  // Every counter and its current value, sorted by name. Thread-safe.
  std::vector<MetricValue> snapshot() const;
  // The sum of every counter called `name`, whatever its group and tags.
  std::int64_t total(const std::string& name) const;

 private:
  mutable std::mutex mutex_;
  std::map<MetricName, std::unique_ptr<Counter>> counters_;
};

}  // namespace brook
