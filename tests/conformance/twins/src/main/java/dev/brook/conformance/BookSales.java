// The twin of examples/book_sales: every book's total copies, revenue and sale records, per title
// (the key of "book-sales"), in the store "book-totals", each update to the topic "book-totals";
// and the copies per title per UTC day in the window store "daily-copies" (tumbling windows of
// one day, no grace). Sales and totals are JSON, as book_sales.h writes them; the daily copies
// are 8-byte big-endian longs (Brook's std::int64_t serde). A tombstone, which Kafka Streams'
// windowed aggregation passes to the aggregator as null, adds no copies (Brook reads it as a
// sale of none).
package dev.brook.conformance;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;

final class BookSales {
  private BookSales() {}

  // {"copies": 2, "price": 12.5}.
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Sale(long copies, double price) {}

  // {"copies": 7, "revenue": 80.5, "sales": 3}; computed as Brook's BookTotals::add.
  @JsonIgnoreProperties(ignoreUnknown = true)
  record BookTotals(long copies, double revenue, long sales) {
    BookTotals add(Sale sale) {
      return new BookTotals(copies + sale.copies(), revenue + (double) sale.copies() * sale.price(),
          sales + 1);
    }
  }

  static Topology build(Properties props) {
    Serde<Sale> sales = Json.serde(Sale.class);
    Serde<BookTotals> totals = Json.serde(BookTotals.class);
    StreamsBuilder builder = new StreamsBuilder();
    KGroupedStream<String, Sale> byBook =
        builder.stream("book-sales", Consumed.with(Serdes.String(), sales)).groupByKey();
    byBook
        .aggregate(() -> new BookTotals(0, 0, 0), (title, sale, current) -> current.add(sale),
            Materialized.<String, BookTotals, KeyValueStore<Bytes, byte[]>>as("book-totals")
                .withKeySerde(Serdes.String())
                .withValueSerde(totals))
        .toStream()
        .to("book-totals", Produced.with(Serdes.String(), totals));
    byBook.windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofDays(1)))
        .aggregate(() -> 0L, (title, sale, copies) -> sale == null ? copies : copies + sale.copies(),
            Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("daily-copies")
                .withKeySerde(Serdes.String())
                .withValueSerde(Serdes.Long()));
    return builder.build(props);
  }
}
