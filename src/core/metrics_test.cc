#include "brook/metrics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace brook {
namespace {

using std::chrono::seconds;

TEST(SensorTest, ReadsAverageMaximumAndRateOverTheLastWindowAndTheTotalEver) {
  Sensor sensor;
  const auto start = Sensor::Clock::now();
  auto reading = sensor.read(start);
  EXPECT_TRUE(std::isnan(reading.avg));
  EXPECT_TRUE(std::isnan(reading.max));
  EXPECT_EQ(reading.rate, 0);

  sensor.record(2, 1, start);
  sensor.record(4, 3, start + seconds(10));  // three values of 4: a batch measured as one
  reading = sensor.read(start + seconds(20));
  EXPECT_DOUBLE_EQ(reading.avg, (2 + 3 * 4) / 4.0);
  EXPECT_EQ(reading.max, 4);
  EXPECT_DOUBLE_EQ(reading.rate, 4 / 20.0);
  EXPECT_EQ(reading.total, 4);

  // A second sample starts 30 s after the first; the first expires 60 s after it began.
  sensor.record(10, 1, start + seconds(40));
  reading = sensor.read(start + seconds(50));
  EXPECT_EQ(reading.max, 10);
  EXPECT_EQ(reading.total, 5);
  reading = sensor.read(start + seconds(61));
  EXPECT_EQ(reading.avg, 10);
  EXPECT_DOUBLE_EQ(reading.rate, 1 / 21.0);
  EXPECT_EQ(reading.total, 5);
  reading = sensor.read(start + seconds(101));
  EXPECT_TRUE(std::isnan(reading.avg));
  EXPECT_EQ(reading.rate, 0);
  EXPECT_EQ(reading.total, 5);
}

TEST(MetricsTest, SnapshotNamesSensorReadingsAndReadsGauges) {
  Metrics metrics;
  metrics.sensor({.group = "g", .name = "commit"}, Metrics::SensorKind::kLatency).record(3);
  metrics.sensor({.group = "g", .name = "hit-ratio"}, Metrics::SensorKind::kRatio).record(1);
  int reads = 0;
  metrics.gauge({.group = "g", .name = "size"}, [&] { return ++reads * 1.5; });
  metrics.counter({.group = "g", .name = "things-total"}) += 7;
  std::map<std::string, double> values;
  for (const auto& v : metrics.snapshot()) values[v.name.name] = v.value;
  EXPECT_EQ(values, (std::map<std::string, double>{{"commit-latency-avg", 3},
                                                   {"commit-latency-max", 3},
                                                   {"commit-rate", 1},
                                                   {"commit-total", 1},
                                                   {"hit-ratio-avg", 1},
                                                   {"size", 1.5},
                                                   {"things-total", 7}}));
  EXPECT_EQ(metrics.total("things-total"), 7);
  EXPECT_EQ(metrics.total("commit-total"), 0) << "total() sums counters only";
}

}  // namespace
}  // namespace brook
