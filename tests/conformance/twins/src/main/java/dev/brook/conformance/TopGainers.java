// The twin of examples/top_gainers: stock_stats' day statistics (StockStats.dayStats(), in the
// store "symbol-day-stats"), each update's gain re-keyed to its day through the repartition
// topic gains-by-day and aggregated, with an adder and a subtractor, into the latest gain of
// every symbol of the day (the store "day-gains"); its top 10 to top-gainers, key = day, value =
// [{"symbol": ..., "gain": ...}, ...] best first, equal gains in symbol order.
//
// Brook's example gives gains-by-day one partition; Kafka Streams' Grouped has no partition
// count (a KTable's groupBy repartition topic takes the partitions of its source), so here it
// has as many as trades. Every day still lands in one partition, and the results are the same.
package dev.brook.conformance;

import java.util.ArrayList;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

final class TopGainers {
  static final String OUTPUT_TOPIC = "top-gainers";
  static final int TOP = 10;

  private TopGainers() {}

  // A symbol's gain in percent on some day.
  record Gain(String symbol, double gain) {}

  // The latest gain of every symbol that traded on one day, by symbol.
  static final class DayGains extends TreeMap<String, Double> {
    private static final long serialVersionUID = 1L;
  }

  // The best gains of a day, best first.
  static final class Top extends ArrayList<Gain> {
    private static final long serialVersionUID = 1L;
  }

  static final Serde<Gain> GAIN = Json.serde(Gain.class);
  static final Serde<DayGains> DAY_GAINS = Json.serde(DayGains.class);
  static final Serde<Top> TOP_GAINS = Json.serde(Top.class);

  // The `n` largest gains, largest first; equal gains in symbol order (a stable sort of the
  // gains in symbol order).
  static Top top(DayGains gains, int n) {
    Top ranked = new Top();
    for (Map.Entry<String, Double> e : gains.entrySet()) {
      ranked.add(new Gain(e.getKey(), e.getValue()));
    }
    ranked.sort((a, b) -> a.gain() > b.gain() ? -1 : (b.gain() > a.gain() ? 1 : 0));
    while (ranked.size() > n) ranked.remove(ranked.size() - 1);
    return ranked;
  }

  static Topology build(Properties props) {
    StreamsBuilder builder = new StreamsBuilder();
    StockStats.dayStats(builder, "symbol-day-stats")
        .groupBy((key, stats) -> {
          int at = key.lastIndexOf('@');
          String symbol = at < 0 ? key : key.substring(0, at);
          String day = at < 0 ? "" : key.substring(at + 1);
          return KeyValue.pair(day, new Gain(symbol, stats.gainPercent()));
        }, Grouped.with("gains-by-day", Serdes.String(), GAIN))
        .aggregate(DayGains::new,
            (day, gain, gains) -> {
              gains.put(gain.symbol(), gain.gain());
              return gains;
            },
            (day, gain, gains) -> {
              gains.remove(gain.symbol());
              return gains;
            },
            Materialized.<String, DayGains, KeyValueStore<Bytes, byte[]>>as("day-gains")
                .withKeySerde(Serdes.String())
                .withValueSerde(DAY_GAINS))
        .mapValues(gains -> top(gains, TOP), Named.as("top-10"))
        .toStream(Named.as("top-10-updates"))
        .to(OUTPUT_TOPIC, Produced.with(Serdes.String(), TOP_GAINS).withName("write-top-gainers"));
    return builder.build(props);
  }
}
