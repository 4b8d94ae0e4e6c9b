// Kafka's own Java client writing and reading records for the conformance tests, so that what
// both applications read and wrote passes through a client independent of Brook's (librdkafka):
//
//   Records produce --bootstrap-servers H:P --topic T   JSON lines on stdin -> records of T
//   Records consume --bootstrap-servers H:P --topic T   every record of T -> JSON lines on stdout
//
// The lines are those of `brook produce|consume --format jsonl` (src/cli/json_record.h):
//   {"partition": 0, "offset": 7, "timestamp": 1700000000000, "key": "k", "value": "v",
//    "headers": [{"key": "h", "value": "x"}]}
// with a key, value or header value that is not UTF-8 text in "key_base64", "value_base64" or a
// header's "value_base64"; null for none. produce needs "partition" and "timestamp" (the records
// are written as they are, nothing chosen by the client) and ignores "offset". consume reads
// read_committed, from each partition's start to the end it has when the read starts, and prints
// the records partition by partition in offset order. Exits 0 when done, 1 on an error, 2 for a
// bad flag.
package dev.brook.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class Records {
  private Records() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 5 || !args[1].equals("--bootstrap-servers") || !args[3].equals("--topic")
        || !(args[0].equals("produce") || args[0].equals("consume"))) {
      System.err.println("usage: Records produce|consume --bootstrap-servers H:P --topic T");
      System.exit(2);
    }
    if (args[0].equals("produce")) {
      produce(args[2], args[4]);
    } else {
      consume(args[2], args[4]);
    }
  }

  private static void produce(String bootstrap, String topic) throws Exception {
    Map<String, Object> config = Map.of("bootstrap.servers", bootstrap, "acks", "all",
        "enable.idempotence", "true");
    try (KafkaProducer<byte[], byte[]> producer =
             new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
         BufferedReader in =
             new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      List<Future<?>> sent = new ArrayList<>();
      int lineNumber = 0;
      for (String line; (line = in.readLine()) != null;) {
        ++lineNumber;
        JsonNode json = Json.MAPPER.readTree(line);
        if (!json.path("partition").canConvertToInt() || !json.path("timestamp").canConvertToLong()) {
          throw new IllegalArgumentException(
              "line " + lineNumber + " needs an integer partition and timestamp: " + line);
        }
        List<Header> headers = new ArrayList<>();
        for (JsonNode header : json.path("headers")) {
          headers.add(new RecordHeader(header.get("key").asText(), bytes(header, "value")));
        }
        sent.add(producer.send(new ProducerRecord<>(topic, json.get("partition").asInt(),
            json.get("timestamp").asLong(), bytes(json, "key"), bytes(json, "value"), headers)));
      }
      producer.flush();
      for (Future<?> result : sent) result.get();  // throws the first failure
    }
  }

  private static void consume(String bootstrap, String topic) {
    Map<String, Object> config = Map.of("bootstrap.servers", bootstrap,
        "isolation.level", "read_committed", "enable.auto.commit", "false");
    try (KafkaConsumer<byte[], byte[]> consumer =
             new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo p : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
        partitions.add(new TopicPartition(topic, p.partition()));
      }
      partitions.sort(Comparator.comparingInt(TopicPartition::partition));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(topic + " was not read to its end within a minute");
        }
        consumer.poll(Duration.ofMillis(100)).forEach(records::add);
      }
      records.sort(Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(ConsumerRecord::partition)
          .thenComparingLong(ConsumerRecord::offset));
      StringBuilder out = new StringBuilder();
      for (ConsumerRecord<byte[], byte[]> r : records) {
        ObjectNode json = Json.MAPPER.createObjectNode();
        json.put("partition", r.partition()).put("offset", r.offset()).put("timestamp", r.timestamp());
        put(json, "key", r.key());
        put(json, "value", r.value());
        ArrayNode headers = json.putArray("headers");
        for (Header h : r.headers()) put(headers.addObject().put("key", h.key()), "value", h.value());
        out.append(json).append('\n');
      }
      System.out.print(out);
      System.out.flush();
    }
  }

  // The bytes of `name` (text as UTF-8) or of `name`_base64; null if neither is there or null.
  private static byte[] bytes(JsonNode json, String name) {
    JsonNode text = json.get(name);
    if (text != null && !text.isNull()) return text.asText().getBytes(StandardCharsets.UTF_8);
    JsonNode encoded = json.get(name + "_base64");
    if (encoded != null && !encoded.isNull()) return Base64.getDecoder().decode(encoded.asText());
    return null;
  }

  // Sets `name` to the UTF-8 text of `bytes`, or `name`_base64 to their base64 if they are not
  // UTF-8; `name` to null if there are none.
  private static void put(ObjectNode json, String name, byte[] bytes) {
    if (bytes == null) {
      json.putNull(name);
      return;
    }
    try {
      json.put(name, StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes)).toString());
    } catch (CharacterCodingException e) {
      json.put(name + "_base64", Base64.getEncoder().encodeToString(bytes));
    }
  }
}
