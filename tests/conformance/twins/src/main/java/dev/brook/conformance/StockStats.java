// The twin of examples/stock_stats: daily statistics per "SYMBOL@YYYY-MM-DD" (the trade's UTC
// day), through the repartition topic trades-by-symbol-day, in the store "day-stats", every
// update to stock-stats; and a moving average per symbol (trades keyed by their symbol) over
// hopping windows of 1 hour every 10 minutes with 1 hour of grace, in the window store
// "moving-average", every update to stock-moving-average, keyed [symbol][8-byte window start].
// Trades, day statistics and averages are JSON (Json.java), as examples/stock_stats writes them;
// the arithmetic on prices is Brook's, in the same order, so the doubles come out the same.
// dayStats() is also top_gainers' first phase (TopGainers.java).
package dev.brook.conformance;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.WindowedSerdes;
import org.apache.kafka.streams.processor.api.ContextualProcessor;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;

final class StockStats {
  static final String INPUT_TOPIC = "trades";
  static final String OUTPUT_TOPIC = "stock-stats";
  static final String STORE = "day-stats";
  static final String MOVING_AVERAGE_TOPIC = "stock-moving-average";
  static final String MOVING_AVERAGE_STORE = "moving-average";
  static final int MOVING_AVERAGE_TRADES = 5;
  static final Duration AVERAGE_WINDOW = Duration.ofHours(1);
  static final Duration AVERAGE_ADVANCE = Duration.ofMinutes(10);
  static final Duration AVERAGE_GRACE = Duration.ofHours(1);

  private StockStats() {}

  // {"symbol": "ACME", "price": 12.5, "volume": 100}; other fields (like "side") are ignored.
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Trade(String symbol, double price, long volume) {}

  // A trade with its record timestamp: the trade's fields and "timestamp".
  record TimedTrade(String symbol, double price, long volume, long timestamp) {}

  record PricePoint(long timestamp, double price) {}

  // One symbol's statistics for one day, as stock_stats::DayStats.
  static final class DayStats {
    public double min;
    public double max;
    public double open;
    public double close;
    @JsonProperty("open_time") public long openTime;
    @JsonProperty("close_time") public long closeTime;
    public long trades;
    public long volume;
    @JsonProperty("moving_average") public double movingAverage;
    public List<PricePoint> window = new ArrayList<>();

    DayStats add(TimedTrade t) {
      double price = t.price();
      if (trades == 0) {
        min = max = open = close = price;
        openTime = closeTime = t.timestamp();
      } else {
        min = Math.min(min, price);
        max = Math.max(max, price);
        if (t.timestamp() < openTime) {
          open = price;
          openTime = t.timestamp();
        }
        if (t.timestamp() >= closeTime) {
          close = price;
          closeTime = t.timestamp();
        }
      }
      ++trades;
      volume += t.volume();
      // After the trades with the same timestamp: those arrived earlier.
      int at = 0;
      while (at < window.size() && window.get(at).timestamp() <= t.timestamp()) ++at;
      window.add(at, new PricePoint(t.timestamp(), price));
      if (window.size() > MOVING_AVERAGE_TRADES) window.remove(0);
      double sum = 0.0;
      for (PricePoint p : window) sum += p.price();
      movingAverage = sum / window.size();
      return this;
    }

    // (close - open) * 100 / open; 0 before the first trade.
    double gainPercent() {
      return trades == 0 ? 0 : (close - open) * 100 / open;
    }
  }

  // The mean price of a symbol's trades in one window.
  static final class PriceAverage {
    public long trades;
    public double sum;
    public double average;

    PriceAverage add(double price) {
      ++trades;
      sum += price;
      average = sum / trades;
      return this;
    }
  }

  static final Serde<Trade> TRADE = Json.serde(Trade.class);
  static final Serde<TimedTrade> TIMED_TRADE = Json.serde(TimedTrade.class);
  static final Serde<DayStats> DAY_STATS = Json.serde(DayStats.class);
  static final Serde<PriceAverage> PRICE_AVERAGE = Json.serde(PriceAverage.class);

  // "SYMBOL@YYYY-MM-DD": the symbol and the UTC day of `timestamp`.
  static String dayKey(String symbol, long timestamp) {
    return symbol + "@" + Instant.ofEpochMilli(timestamp).atZone(ZoneOffset.UTC).toLocalDate();
  }

  // Copies each trade's record timestamp into its value.
  static final class StampTime extends ContextualProcessor<String, Trade, String, TimedTrade> {
    @Override
    public void process(Record<String, Trade> r) {
      Trade t = r.value();
      context().forward(
          r.withValue(new TimedTrade(t.symbol(), t.price(), t.volume(), r.timestamp())));
    }
  }

  // The trades with a positive price (a tombstone has none).
  static KStream<String, Trade> pricedTrades(StreamsBuilder builder) {
    return builder
        .stream(INPUT_TOPIC, Consumed.with(Serdes.String(), TRADE).withName("read-trades"))
        .filter((key, trade) -> trade != null && trade.price() > 0, Named.as("priced-trades"));
  }

  // The DayStats per dayKey() of `trades`, in the store `store`.
  static KTable<String, DayStats> dayStats(KStream<String, Trade> trades, String store) {
    return trades.process(StampTime::new, Named.as("stamp-time"))
        .groupBy((key, t) -> dayKey(t.symbol(), t.timestamp()),
            Grouped.with("trades-by-symbol-day", Serdes.String(), TIMED_TRADE))
        .aggregate(DayStats::new, (key, trade, stats) -> stats.add(trade),
            Materialized.<String, DayStats, KeyValueStore<Bytes, byte[]>>as(store)
                .withKeySerde(Serdes.String())
                .withValueSerde(DAY_STATS));
  }

  static KTable<String, DayStats> dayStats(StreamsBuilder builder, String store) {
    return dayStats(pricedTrades(builder), store);
  }

  static Topology build(Properties props) {
    StreamsBuilder builder = new StreamsBuilder();
    KStream<String, Trade> trades = pricedTrades(builder);
    dayStats(trades, STORE)
        .toStream(Named.as("stats-updates"))
        .to(OUTPUT_TOPIC, Produced.with(Serdes.String(), DAY_STATS).withName("write-stats"));
    trades.filter((key, trade) -> trade.symbol().equals(key), Named.as("keyed-by-symbol"))
        .groupByKey(Grouped.with(Serdes.String(), TRADE))
        .windowedBy(TimeWindows.ofSizeAndGrace(AVERAGE_WINDOW, AVERAGE_GRACE)
            .advanceBy(AVERAGE_ADVANCE))
        .aggregate(PriceAverage::new, (symbol, trade, average) -> average.add(trade.price()),
            Materialized.<String, PriceAverage, WindowStore<Bytes, byte[]>>as(MOVING_AVERAGE_STORE)
                .withKeySerde(Serdes.String())
                .withValueSerde(PRICE_AVERAGE))
        .toStream(Named.as("moving-average-updates"))
        .to(MOVING_AVERAGE_TOPIC,
            Produced.with(
                    WindowedSerdes.timeWindowedSerdeFrom(String.class, AVERAGE_WINDOW.toMillis()),
                    PRICE_AVERAGE)
                .withName("write-moving-average"));
    return builder.build(props);
  }
}
