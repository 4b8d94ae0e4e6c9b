// The twin of examples/iot_late_events: hourly temperature statistics per device, by the time
// each reading was taken (the timestamp extractor), in hourly tumbling windows with 3 h of grace.
// Every update of the window store "hourly-temperatures" (not cached) goes to "sensor-hourly";
// each hour's final statistics, once the hour has closed (suppress until the window closes), to
// "sensor-hourly-final". Readings and statistics are JSON; both outputs are keyed by the windowed
// device id, [UTF-8 device id][8-byte big-endian window start] (Kafka Streams' time-windowed
// serde, as Brook's TimeWindowedSerde). Readings too late for their hour, and readings with a
// negative taken_at, are dropped and counted in the task's dropped-records-total metric.
package dev.brook.conformance;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.WindowedSerdes;
import org.apache.kafka.streams.state.WindowStore;

final class IotLateEvents {
  static final Duration WINDOW_SIZE = Duration.ofHours(1);
  static final Duration GRACE = Duration.ofHours(3);

  private IotLateEvents() {}

  // {"device": "freezer-2", "taken_at": 1780000000000, "temperature": -18.4}: taken_at is when
  // the reading was taken (ms since the epoch), the event time.
  record Reading(String device, @JsonProperty("taken_at") long takenAt, double temperature) {}

  // One device's readings in one hour; starts with every field 0.
  // {"count": 12, "min": 20.1, "max": 22.4, "sum": 255.3, "mean": 21.275}
  record HourlyStats(long count, double min, double max, double sum, double mean) {
    static final HourlyStats EMPTY = new HourlyStats(0, 0, 0, 0, 0);

    // With one more temperature, computed as Brook's HourlyStats::add (std::min, std::max).
    HourlyStats add(double temperature) {
      double newMin = temperature;
      double newMax = temperature;
      if (count != 0) {
        newMin = temperature < min ? temperature : min;
        newMax = max < temperature ? temperature : max;
      }
      double newSum = sum + temperature;
      return new HourlyStats(count + 1, newMin, newMax, newSum, newSum / (double) (count + 1));
    }
  }

  static Topology build(Properties props) {
    Serde<Reading> readings = Json.serde(Reading.class);
    Serde<HourlyStats> stats = Json.serde(HourlyStats.class);
    Serde<Windowed<String>> windowedKeys =
        WindowedSerdes.timeWindowedSerdeFrom(String.class, WINDOW_SIZE.toMillis());
    StreamsBuilder builder = new StreamsBuilder();
    KTable<Windowed<String>, HourlyStats> hourly = builder
        .stream("sensor-readings", Consumed.with(Serdes.String(), readings)
            // The time the reading was taken, not when it arrived (the log timestamp).
            .withTimestampExtractor(
                (record, partitionTime) -> ((Reading) record.value()).takenAt())
            .withName("read-readings"))
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeAndGrace(WINDOW_SIZE, GRACE))
        .aggregate(() -> HourlyStats.EMPTY,
            (device, reading, current) -> current.add(reading.temperature()),
            Materialized.<String, HourlyStats, WindowStore<Bytes, byte[]>>as("hourly-temperatures")
                .withKeySerde(Serdes.String())
                .withValueSerde(stats)
                .withCachingDisabled());
    hourly.toStream(Named.as("hourly-updates"))
        .to("sensor-hourly", Produced.with(windowedKeys, stats).withName("write-hourly"));
    hourly.suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded())
            .withName("hourly-final"))
        .toStream(Named.as("hourly-final-results"))
        .to("sensor-hourly-final",
            Produced.with(windowedKeys, stats).withName("write-hourly-final"));
    return builder.build(props);
  }
}
