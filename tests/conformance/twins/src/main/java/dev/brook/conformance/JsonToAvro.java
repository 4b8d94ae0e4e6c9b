// The twin of examples/json_to_avro: stock trades as JSON in "trades-json" become Avro generic
// records in the Confluent wire format (magic byte 0, schema id 1 as 4 bytes big-endian, the Avro
// binary body; no schema registry) in "trades-avro". A record that is not valid JSON, or not a
// trade, or a trade the schema refuses, goes to "trades-dead-letter" as it was read (key, value,
// timestamp, headers) with the reason appended in Brook's dead-letter headers
// (docs/error_handling.md).
//
// Kafka Streams 3.9 has no dead-letter queue (its exception handlers can only continue or fail,
// and are configured in the application's properties, not in the topology), so the twin does
// what a Kafka Streams program does instead: it reads the values as bytes and converts them in
// a processor, "to-generic", which forwards each record to one of two sinks by name:
// "write-avro" (the generic record, with an Avro serializer) or "write-dead-letter" (the input's
// bytes, with the headers). Brook's example has the same source, processor and Avro sink; its
// runtime writes the dead letters, outside the topology, for the source ("read-json": the JSON
// serde cannot read a Trade) and for the sink ("write-avro": the Avro serde refuses the value),
// and the twin names the node at fault as Brook does. The processor reads a trade as Brook's
// JsonSerde<Trade> does (from_json, then every number must be read exactly, brook/json_serde.h)
// and checks what Brook's Avro serde would refuse at the sink (a side that is not a symbol).
package dev.brook.conformance;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.function.Function;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.RecordMetadata;

final class JsonToAvro {
  static final String INPUT_TOPIC = "trades-json";
  static final String OUTPUT_TOPIC = "trades-avro";
  static final String DEAD_LETTER_TOPIC = "trades-dead-letter";
  static final int SCHEMA_ID = 1;

  // The text of json_to_avro::kTradeSchema.
  static final String TRADE_SCHEMA = """
      {
        "type": "record", "name": "Trade", "namespace": "brook.examples",
        "fields": [
          {"name": "symbol", "type": "string"},
          {"name": "side", "type": {"type": "enum", "name": "Side", "symbols": ["BUY", "SELL"]}},
          {"name": "price", "type": "double"},
          {"name": "volume", "type": "long"},
          {"name": "ts", "type": "long"},
          {"name": "venue", "type": ["null", "string"], "default": null}
        ]
      }""";
  static final Schema SCHEMA = new Schema.Parser().parse(TRADE_SCHEMA);
  private static final Schema SIDE = SCHEMA.getField("side").schema();

  // The names of Brook's dead-letter headers (brook/error_handling.h).
  static final String KIND_HEADER = "__brook.errors.kind";
  static final String MESSAGE_HEADER = "__brook.errors.message";
  static final String NODE_HEADER = "__brook.errors.node";
  static final String TOPIC_HEADER = "__brook.errors.topic";
  static final String PARTITION_HEADER = "__brook.errors.partition";
  static final String OFFSET_HEADER = "__brook.errors.offset";

  // JSON as nlohmann's parser reads it: one value and nothing after it but whitespace.
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private JsonToAvro() {}

  static Topology build(Properties props) {
    StreamsBuilder builder = new StreamsBuilder();
    KStream<String, Object> converted = builder
        .stream(INPUT_TOPIC,
            Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("read-json"))
        .processValues(ToGeneric::new, Named.as("to-generic"));
    converted.to(OUTPUT_TOPIC,
        Produced.with(Serdes.String(), sinkSerde(JsonToAvro::confluentAvro))
            .withName("write-avro"));
    converted.to(DEAD_LETTER_TOPIC,
        Produced.with(Serdes.String(), sinkSerde(value -> (byte[]) value))
            .withName("write-dead-letter"));
    return builder.build(props);
  }

  // The serde of a sink of "to-generic", which forwards a GenericRecord to "write-avro" and the
  // input's bytes (or null) to "write-dead-letter": `write` makes the bytes of a value.
  private static Serde<Object> sinkSerde(Function<Object, byte[]> write) {
    Serializer<Object> serializer = (topic, value) -> value == null ? null : write.apply(value);
    Deserializer<Object> deserializer = (topic, bytes) -> {
      throw new UnsupportedOperationException("the twin only writes " + topic);
    };
    return Serdes.serdeFrom(serializer, deserializer);
  }

  // The trade in the Confluent wire format: magic byte 0, the schema id (big-endian), Avro binary.
  static byte[] confluentAvro(Object trade) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(new byte[] {0, (byte) (SCHEMA_ID >>> 24), (byte) (SCHEMA_ID >>> 16),
        (byte) (SCHEMA_ID >>> 8), (byte) SCHEMA_ID});
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    try {
      new GenericDatumWriter<GenericRecord>(SCHEMA).write((GenericRecord) trade, encoder);
      encoder.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  // A record that cannot be converted: which node of Brook's topology refuses it, and why (the
  // message's bytes: UTF-8 text, with the start of the value as it is).
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1;
    final String kind;  // "deserialization" or "processing"
    final String node;
    final byte[] message;

    Refused(String kind, String node, byte[]... message) {
      super(kind + " error in " + node, null, false, false);
      this.kind = kind;
      this.node = node;
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      for (byte[] part : message) out.writeBytes(part);
      this.message = out.toByteArray();
    }
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  // The Avro record of a trade given as JSON (`value`, null for a tombstone), or why Brook would
  // refuse it. `where` is "<topic>-<partition>@<offset>" of the record, for the messages.
  static GenericRecord convert(byte[] value, String where) throws Refused {
    GenericRecord trade = new GenericData.Record(SCHEMA);
    if (value == null) {
      // Brook reads a null value as a value-initialised json_to_avro::Trade (Trade is not an
      // optional: brook/serde.h), empty strings and zeros, which fails at the sink for its side.
      trade.put("symbol", "");
      trade.put("side", "");
      trade.put("price", 0.0);
      trade.put("volume", 0L);
      trade.put("ts", 0L);
      trade.put("venue", null);
    } else {
      String source = "source read-json: cannot deserialize value of " + where + ": json serde: ";
      JsonNode json;
      try {
        json = JSON.readTree(value);
      } catch (IOException e) {
        json = null;
      }
      if (json == null || json.isMissingNode() || !finite(json)) {
        throw new Refused("deserialization", "read-json", utf8(source + "not valid JSON: "),
            excerpt(value));
      }
      try {
        readTrade(json, trade);
      } catch (IllegalArgumentException e) {
        throw new Refused("deserialization", "read-json",
            utf8(source + "cannot read json_to_avro::Trade from "), excerpt(value),
            utf8(": " + e.getMessage()));
      }
    }
    String side = (String) trade.get("side");
    if (!SIDE.hasEnumSymbol(side)) {
      throw new Refused("processing", "write-avro", utf8("sink write-avro: cannot serialize value: "
          + "avro serde: field 'side': '" + side + "' is not a symbol of enum " + SIDE.getName()
          + " (" + String.join(", ", SIDE.getEnumSymbols()) + ")"));
    }
    trade.put("side", new GenericData.EnumSymbol(SIDE, side));
    return trade;
  }

  // The start of `value` as Brook quotes it in messages: its first 64 bytes, "..." if there are
  // more, in single quotes. (Bytes, not characters: a cut may split a UTF-8 sequence.)
  static byte[] excerpt(byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write('\'');
    out.write(value, 0, Math.min(value.length, 64));
    out.writeBytes(utf8(value.length > 64 ? "...'" : "'"));
    return out.toByteArray();
  }

  // Whether every number in `json` is a finite double: nlohmann's parser refuses a number that
  // overflows one (1e400), which Jackson reads as infinity.
  private static boolean finite(JsonNode json) {
    if (json.isNumber()) return Double.isFinite(json.doubleValue());
    for (JsonNode child : json) {
      if (!finite(child)) return false;
    }
    return true;
  }

  // Reads json_to_avro::Trade's fields (its from_json) into `trade`: symbol, side, price, volume
  // and ts are required, venue may be absent or null, other members are ignored. Throws
  // IllegalArgumentException with the reason if `json` is not such an object.
  private static void readTrade(JsonNode json, GenericRecord trade) {
    if (!json.isObject()) {
      throw new IllegalArgumentException("not an object: " + json.getNodeType());
    }
    trade.put("symbol", string(json, "symbol"));
    trade.put("side", string(json, "side"));
    trade.put("price", real(json, "price"));
    trade.put("volume", integer(json, "volume"));
    trade.put("ts", integer(json, "ts"));
    JsonNode venue = json.get("venue");
    trade.put("venue", venue == null || venue.isNull() ? null : string(json, "venue"));
  }

  private static JsonNode field(JsonNode json, String name) {
    JsonNode field = json.get(name);
    if (field == null) throw new IllegalArgumentException("missing field '" + name + "'");
    return field;
  }

  private static String string(JsonNode json, String name) {
    JsonNode field = field(json, name);
    if (!field.isTextual()) {
      throw new IllegalArgumentException(
          "field '" + name + "': expected a string, got " + field.getNodeType());
    }
    return field.textValue();
  }

  private static final BigInteger MIN_LONG = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

  // A JSON number as Brook's parser (nlohmann's) holds it: an integer if it is one in
  // [-2^63, 2^64), else the nearest double (docs/serdes.md).
  private static Number number(JsonNode json, String name) {
    JsonNode field = field(json, name);
    if (!field.isNumber()) {
      throw new IllegalArgumentException(
          "field '" + name + "': expected a number, got " + field.getNodeType());
    }
    if (field.isIntegralNumber()) {
      BigInteger n = field.bigIntegerValue();
      if (n.compareTo(MIN_LONG) >= 0 && n.compareTo(TWO_64) < 0) return n;
    }
    return field.doubleValue();
  }

  // A number that a double holds: any finite one, rounded, except an integer that is not exactly
  // a double (2^53 + 1).
  private static double real(JsonNode json, String name) {
    Number n = number(json, name);
    double d = n.doubleValue();
    if (n instanceof BigInteger i && new BigDecimal(d).compareTo(new BigDecimal(i)) != 0) {
      throw new IllegalArgumentException("field '" + name + "': " + i + " is not exactly a double");
    }
    return d;
  }

  // A number that a long (int64_t) holds exactly.
  private static long integer(JsonNode json, String name) {
    Number n = number(json, name);
    if (n instanceof BigInteger i) {
      if (i.bitLength() < 64) return i.longValue();
    } else {
      double d = n.doubleValue();
      if (d == Math.rint(d) && d >= -0x1p63 && d < 0x1p63) return (long) d;
    }
    throw new IllegalArgumentException("field '" + name + "': " + n + " does not fit a long");
  }

  // Converts each trade, forwarding it to "write-avro", or the record as it was read, with the
  // dead-letter headers, to "write-dead-letter".
  static final class ToGeneric implements FixedKeyProcessor<String, byte[], Object> {
    private FixedKeyProcessorContext<String, Object> context;

    @Override
    public void init(FixedKeyProcessorContext<String, Object> context) {
      this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, byte[]> record) {
      RecordMetadata input = context.recordMetadata().orElseThrow();
      try {
        GenericRecord trade = convert(record.value(),
            input.topic() + "-" + input.partition() + "@" + input.offset());
        context.forward(record.withValue(trade), "write-avro");
      } catch (Refused e) {
        Headers headers = new RecordHeaders(record.headers().toArray());
        add(headers, KIND_HEADER, e.kind);
        headers.add(MESSAGE_HEADER, e.message);
        add(headers, NODE_HEADER, e.node);
        add(headers, TOPIC_HEADER, input.topic());
        add(headers, PARTITION_HEADER, Integer.toString(input.partition()));
        add(headers, OFFSET_HEADER, Long.toString(input.offset()));
        context.forward(record.<Object>withValue(record.value()).withHeaders(headers),
            "write-dead-letter");
      }
    }

    private static void add(Headers headers, String key, String value) {
      headers.add(key, utf8(value));
    }
  }
}
