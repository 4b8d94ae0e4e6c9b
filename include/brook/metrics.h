// Metrics: named counters, sensors and gauges of an application, read as a snapshot.
//
// Task-level counters (group "stream-task-metrics", tag "task-id"):
//   process-total, deserialization-errors-total, processing-errors-total,
//   dropped-records-total (skipped by an error handler or InvalidTimestamp::kSkip, or dropped
//   by an operator: a record too late for its window, a null key where a key is needed),
//   dead-letter-records-total
// Thread-level sensors (group "stream-thread-metrics", tag "thread-id"): poll, process,
// punctuate, commit (each read as <name>-latency-avg/-max, <name>-rate, <name>-total).
// docs/metrics.md lists them all.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
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
  double value = 0;  // NaN: nothing recorded lately (a sensor's average or maximum)
};

// Values recorded over a sliding window, as Kafka Streams' sensors with their default
// metrics.sample.window.ms (30 s) and metrics.num.samples (2): what was recorded in the last
// 30 to 60 seconds, read as its average, maximum and rate per second, plus how many
// values were recorded ever. Thread-safe (a mutex, uncontended while one thread records).
class Sensor {
 public:
  using Clock = std::chrono::steady_clock;
  struct Reading {
    double avg = 0, max = 0;  // NaN when nothing was recorded in the window
    double rate = 0;          // values per second
    std::int64_t total = 0;   // values recorded ever
  };

  // Records `count` values of `value` each (a batch of records measured as one: each counts,
  // the average and extremes see the batch's value per record).
  void record(double value, std::int64_t count = 1, Clock::time_point now = Clock::now());
  Reading read(Clock::time_point now = Clock::now()) const;

 private:
  struct Sample {
    Clock::time_point start;
    std::int64_t count = 0;
    double sum = 0, max = 0;
  };

  mutable std::mutex mutex_;
  Sample samples_[2];
  int current_ = 0;
  std::int64_t total_ = 0;
};

class Metrics {
 public:
  using Counter = std::atomic<std::int64_t>;
  // How a sensor's reading is named in the snapshot, for a sensor called `name`:
  //   kLatency (milliseconds): <name>-latency-avg, <name>-latency-max, <name>-rate, <name>-total;
  //   kRatio (values 0 or 1):  <name>-avg, the share of ones.
  enum class SensorKind { kLatency, kRatio };

  // The counter with this name, created at 0 on first use. The reference stays valid for the
  // lifetime of this Metrics object. Thread-safe.
  Counter& counter(const MetricName& name);
  // The sensor with this name, created on first use (the kind of its first use counts). The
  // reference stays valid for the lifetime of this Metrics object. Thread-safe.
  Sensor& sensor(const MetricName& name, SensorKind kind);
  // A gauge: `read` is called at each snapshot, from the thread taking it, for the lifetime of
  // this Metrics object (a second gauge of the same name replaces the first). Thread-safe.
  void gauge(const MetricName& name, std::function<double()> read);

  // Every counter's value, sensor's readings and gauge's value, sorted by name. Thread-safe.
  std::vector<MetricValue> snapshot() const;
  // The sum of every counter called `name`, whatever its group and tags.
  std::int64_t total(const std::string& name) const;

 private:
  struct NamedSensor {
    SensorKind kind;
    Sensor sensor;
  };

  mutable std::mutex mutex_;
  std::map<MetricName, std::unique_ptr<Counter>> counters_;
  std::map<MetricName, std::unique_ptr<NamedSensor>> sensors_;
  std::map<MetricName, std::function<double()>> gauges_;
};

// Measures the time from its construction to record(), in milliseconds.
class Stopwatch {
 public:
  Stopwatch() : start_(Sensor::Clock::now()) {}
  // Records the elapsed time as `count` values of elapsed / count each (nothing if count is 0).
  void record(Sensor& sensor, std::int64_t count = 1) const;

 private:
  Sensor::Clock::time_point start_;
};

}  // namespace brook
