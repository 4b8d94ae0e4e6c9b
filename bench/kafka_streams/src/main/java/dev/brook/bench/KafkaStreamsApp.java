// The Kafka Streams side of bench/kafka_streams_bench.cc, the same applications as
// bench/kafka_streams_brook_app.cc, with the same flags and the same lines on stdout:
//
//   KafkaStreamsApp --app stateless|count|hopping --bootstrap H:P --application-id ID --input TOPIC
//                   --output TOPIC --state-dir DIR --guarantee at_least_once|exactly_once_v2
//                   --commit-interval-ms N --cache-max-bytes N --records N
//
//   stateless: stream(input).filter(value does not start with "DEBUG")
//              .mapValues(value in upper case).to(output)            (String keys and values)
//   count:     stream(input).groupByKey().count(Materialized.as("counts"))  (RocksDB, changelog)
//              .toStream().to(output)                                (String keys, Long counts)
//   hopping:   the same count per window: .windowedBy(TimeWindows of 60 s every 10 s, 10 s
//              grace) before .count (windowed keys: [key][8-byte window start])
//
// One stream thread. Prints "running <CLOCK_MONOTONIC ns>" when the application first reaches
// RUNNING, waits until its stream thread has processed --records records (the thread's
// process-total metric), prints "processed <CLOCK_MONOTONIC ns>", closes it (which commits: offsets, and under exactly_once_v2 the
// transaction), prints "done <records processed> <peak RSS in KiB>" (VmHWM of /proc/self/status)
// and exits 0; exits 1 on any error.
package dev.brook.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.WindowedSerdes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;

public final class KafkaStreamsApp {
  private static final String[] FLAGS = {
    "app", "bootstrap", "application-id", "input", "output", "state-dir", "guarantee",
    "commit-interval-ms", "cache-max-bytes", "records"
  };
  private static final long POLL_MS = 10;

  private KafkaStreamsApp() {}

  public static void main(String[] args) throws InterruptedException {
    Map<String, String> flags = parse(args);
    if (flags == null) {
      System.err.println("usage: KafkaStreamsApp --" + String.join(" V --", FLAGS) + " V");
      System.exit(2);
    }
    StreamsBuilder builder = new StreamsBuilder();
    KStream<String, String> input =
        builder.stream(flags.get("input"), Consumed.with(Serdes.String(), Serdes.String()));
    switch (flags.get("app")) {
      case "stateless" ->
          input
              .filter((key, value) -> !value.startsWith("DEBUG"))
              .mapValues(value -> value.toUpperCase(Locale.ROOT))
              .to(flags.get("output"), Produced.with(Serdes.String(), Serdes.String()));
      case "count" ->
          input
              .groupByKey()
              .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts"))
              .toStream()
              .to(flags.get("output"), Produced.with(Serdes.String(), Serdes.Long()));
      case "hopping" ->
          input
              .groupByKey()
              .windowedBy(
                  TimeWindows.ofSizeAndGrace(Duration.ofSeconds(60), Duration.ofSeconds(10))
                      .advanceBy(Duration.ofSeconds(10)))
              .count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("counts"))
              .toStream()
              .to(
                  flags.get("output"),
                  Produced.with(
                      WindowedSerdes.timeWindowedSerdeFrom(String.class, 60_000L), Serdes.Long()));
      default -> {
        System.err.println(
            "--app: '" + flags.get("app") + "' is not stateless, count or hopping");
        System.exit(2);
      }
    }

    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, flags.get("application-id"));
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, flags.get("bootstrap"));
    props.put(StreamsConfig.STATE_DIR_CONFIG, flags.get("state-dir"));
    props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1");
    props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, flags.get("guarantee"));
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, flags.get("commit-interval-ms"));
    props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, flags.get("cache-max-bytes"));
    final long records = Long.parseLong(flags.get("records"));

    KafkaStreams streams = new KafkaStreams(builder.build(), props);
    AtomicBoolean running = new AtomicBoolean(false);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    streams.setStateListener(
        (to, from) -> {
          if (to == KafkaStreams.State.RUNNING && running.compareAndSet(false, true)) {
            System.out.println("running " + System.nanoTime());
            System.out.flush();
          }
        });
    streams.setUncaughtExceptionHandler(
        exception -> {
          failure.compareAndSet(null, exception);
          return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
    streams.start();

    long processed = 0;
    Metric processTotal = null;
    while (processed < records) {
      KafkaStreams.State state = streams.state();
      if (failure.get() != null || state == KafkaStreams.State.ERROR
          || state == KafkaStreams.State.PENDING_ERROR
          || state == KafkaStreams.State.NOT_RUNNING) {
        System.err.println("the application stopped in " + state + " after " + processed
            + " records" + (failure.get() != null ? ": " + failure.get() : ""));
        streams.close(Duration.ofSeconds(30));
        System.exit(1);
      }
      if (processTotal == null) processTotal = threadProcessTotal(streams);
      if (processTotal != null) {
        processed = (long) ((Number) processTotal.metricValue()).doubleValue();
      }
      if (processed < records) Thread.sleep(POLL_MS);
    }
    System.out.println("processed " + System.nanoTime());
    System.out.flush();
    if (!streams.close(Duration.ofSeconds(60))) {
      System.err.println("the application did not close within 60 s");
      System.exit(1);
    }
    if (failure.get() != null) {
      System.err.println("the application failed: " + failure.get());
      System.exit(1);
    }
    System.out.println("done " + processed + " " + peakRssKib());
    System.out.flush();
    System.exit(0);
  }

  // The stream thread's process-total (records processed), once the thread registered it.
  private static Metric threadProcessTotal(KafkaStreams streams) {
    for (Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
      MetricName name = e.getKey();
      if (name.name().equals("process-total") && name.group().equals("stream-thread-metrics")) {
        return e.getValue();
      }
    }
    return null;
  }

  // The peak resident set size of this process (VmHWM), in KiB; -1 if /proc does not say.
  private static long peakRssKib() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.substring(6).replace("kB", "").trim());
        }
      }
    } catch (IOException | NumberFormatException e) {
      System.err.println("reading /proc/self/status: " + e);
    }
    return -1;
  }

  // --name value pairs of FLAGS, all required; null if one is missing or unknown.
  private static Map<String, String> parse(String[] args) {
    Map<String, String> flags = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) return null;
      flags.put(args[i].substring(2), args[i + 1]);
    }
    if (args.length % 2 != 0 || flags.size() != FLAGS.length) return null;
    for (String flag : FLAGS) {
      if (!flags.containsKey(flag)) return null;
    }
    return flags;
  }
}
