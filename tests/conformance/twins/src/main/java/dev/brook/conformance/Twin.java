// Runs the Kafka Streams twin of one of Brook's examples as the example's program runs itself
// (examples/common/app_runner.h), with the flags the conformance tests give both:
//
//   Twin EXAMPLE --bootstrap-servers H:P --application-id ID --state-dir DIR
//                [--config KEY=VALUE]... [--until-idle | --describe]
//
//   --until-idle  stop once every input record is processed and committed: every partition of
//                 every topic the topology reads (its repartition and subscription topics under
//                 the application id's prefix, not global tables' topics) has a committed offset
//                 of the group at its end. Commits every 100 ms, as Brook's --until-idle.
//   --describe    print Topology.describe() and exit, without running
//
// Exits 0 when done, 1 on any error, 2 for a bad flag or an unknown example.
package dev.brook.conformance;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;

public final class Twin {

  private static final long POLL_MS = 50;

  private Twin() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || twinClass(args[0]) == null) {
      usage("the first argument names an example with a twin (snake_case, e.g. log_router)");
    }
    Properties props = new Properties();
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100");
    // Leave the group on close, as Brook does (Kafka Streams stays by default, for a restart
    // within the session timeout): a test's next run of the same application id then gets its
    // tasks at once instead of after the 45 s session timeout.
    props.put(StreamsConfig.consumerPrefix("internal.leave.group.on.close"), "true");
    boolean untilIdle = false;
    boolean describe = false;
    Map<String, String> named = Map.of(
        "--bootstrap-servers", StreamsConfig.BOOTSTRAP_SERVERS_CONFIG,
        "--application-id", StreamsConfig.APPLICATION_ID_CONFIG,
        "--state-dir", StreamsConfig.STATE_DIR_CONFIG);
    for (int i = 1; i < args.length; ++i) {
      String arg = args[i];
      if (arg.equals("--until-idle")) {
        untilIdle = true;
      } else if (arg.equals("--describe")) {
        describe = true;
      } else if (arg.equals("--config") && i + 1 < args.length && args[i + 1].indexOf('=') > 0) {
        String setting = args[++i];
        props.put(setting.substring(0, setting.indexOf('=')),
            setting.substring(setting.indexOf('=') + 1));
      } else if (named.containsKey(arg) && i + 1 < args.length) {
        props.put(named.get(arg), args[++i]);
      } else {
        usage("unknown or incomplete argument '" + arg + "'");
      }
    }
    // Built with the configuration, as Brook's examples are: topology.optimization applies.
    Topology topology = (Topology) twinClass(args[0])
        .getDeclaredMethod("build", Properties.class).invoke(null, props);
    if (describe) {
      System.out.print(topology.describe());
      System.out.flush();
      System.exit(0);
    }
    for (String required : named.values()) {
      if (!props.containsKey(required)) usage("missing " + required);
    }
    System.exit(run(topology, props, untilIdle));
  }

  // The twin of `example`: the class named as the example in CamelCase (log_router: LogRouter),
  // with a `static Topology build(Properties)`; null if there is none.
  private static Class<?> twinClass(String example) {
    StringBuilder name = new StringBuilder(Twin.class.getPackageName()).append('.');
    for (String word : example.split("_")) {
      if (word.isEmpty()) return null;
      name.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
    }
    try {
      return Class.forName(name.toString());
    } catch (ClassNotFoundException e) {
      return null;
    }
  }

  private static void usage(String problem) {
    System.err.println("Twin: " + problem + "\nusage: Twin EXAMPLE --bootstrap-servers H:P "
        + "--application-id ID --state-dir DIR [--config KEY=VALUE]... [--until-idle | --describe]");
    System.exit(2);
  }

  // Runs until idle (or, without untilIdle, until killed); the exit code.
  private static int run(Topology topology, Properties props, boolean untilIdle) throws Exception {
    KafkaStreams streams = new KafkaStreams(topology, props);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    streams.setUncaughtExceptionHandler(exception -> {
      failure.compareAndSet(null, exception);
      return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    Runtime.getRuntime().addShutdownHook(new Thread(() -> streams.close(Duration.ofSeconds(30))));
    streams.start();
    String applicationId = props.getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers",
        props.getProperty(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG)))) {
      Set<String> topics = sourceTopics(topology, applicationId);
      while (true) {
        KafkaStreams.State state = streams.state();
        if (failure.get() != null || state == KafkaStreams.State.ERROR
            || state == KafkaStreams.State.PENDING_ERROR
            || state == KafkaStreams.State.NOT_RUNNING) {
          System.err.println("Twin: the application stopped in " + state
              + (failure.get() != null ? ": " + failure.get() : ""));
          streams.close(Duration.ofSeconds(30));
          return 1;
        }
        if (untilIdle && state == KafkaStreams.State.RUNNING && idle(admin, applicationId, topics)) {
          System.out.println("dropped-records-total: " + droppedRecords(streams));
          break;
        }
        Thread.sleep(POLL_MS);
      }
    }
    if (!streams.close(Duration.ofSeconds(60))) {
      System.err.println("Twin: the application did not close within 60 s");
      return 1;
    }
    return 0;
  }

  // The records the application's tasks dropped so far (each task's dropped-records-total; they
  // go with the tasks when the application closes).
  static long droppedRecords(KafkaStreams streams) {
    double total = 0;
    for (Metric metric : streams.metrics().values()) {
      if (metric.metricName().name().equals("dropped-records-total")
          && metric.metricName().group().equals("stream-task-metrics")) {
        total += (Double) metric.metricValue();
      }
    }
    return Math.round(total);
  }

  // The topics the topology's sub-topologies read (not its global stores'): internal ones
  // (repartition and foreign-key subscription topics) under the application id's prefix.
  static Set<String> sourceTopics(Topology topology, String applicationId) {
    Set<String> topics = new HashSet<>();
    for (TopologyDescription.Subtopology sub : topology.describe().subtopologies()) {
      for (TopologyDescription.Node node : sub.nodes()) {
        if (!(node instanceof TopologyDescription.Source source)) continue;
        for (String topic : source.topicSet()) {
          boolean internal = topic.endsWith("-repartition")
              || topic.endsWith("-subscription-registration-topic")
              || topic.endsWith("-subscription-response-topic");
          topics.add(internal ? applicationId + "-" + topic : topic);
        }
      }
    }
    return topics;
  }

  // Whether the group's committed offset of every partition of `topics` is that partition's
  // end (read_committed). The offsets are read before the ends: a commit comes after the
  // writes of what it commits, so equal ends mean those writes were read too.
  private static boolean idle(Admin admin, String group, Set<String> topics) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (TopicDescription topic : admin.describeTopics(topics).allTopicNames().get().values()) {
      topic.partitions().forEach(
          p -> latest.put(new TopicPartition(topic.name(), p.partition()), OffsetSpec.latest()));
    }
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(
        latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get();
    for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end : ends.entrySet()) {
      OffsetAndMetadata offset = committed.get(end.getKey());
      long position = offset == null ? 0 : offset.offset();
      if (position < end.getValue().offset()) return false;
    }
    return true;
  }
}
