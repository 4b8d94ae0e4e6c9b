// The twin of examples/log_router: ERROR lines to "logs-high-priority", every other line to
// "logs-low-priority"; keys (hosts, or null) and lines are strings.
package dev.brook.conformance;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;

final class LogRouter {
  private LogRouter() {}

  // The level of a line "<timestamp> <LEVEL> <message>", e.g. "ERROR"; empty if there is none.
  static String levelOf(String line) {
    int start = line.indexOf(' ');
    if (start < 0) return "";
    int end = line.indexOf(' ', start + 1);
    return end < 0 ? line.substring(start + 1) : line.substring(start + 1, end);
  }

  static Topology build(Properties props) {
    StreamsBuilder builder = new StreamsBuilder();
    Map<String, KStream<String, String>> byPriority = builder
        .stream("logs", Consumed.with(Serdes.String(), Serdes.String()).withName("read-logs"))
        .split(Named.as("priority-"))
        .branch((host, line) -> levelOf(line).equals("ERROR"), Branched.as("high"))
        .defaultBranch(Branched.as("low"));
    byPriority.get("priority-high").to("logs-high-priority",
        Produced.with(Serdes.String(), Serdes.String()).withName("write-high"));
    byPriority.get("priority-low").to("logs-low-priority",
        Produced.with(Serdes.String(), Serdes.String()).withName("write-low"));
    return builder.build(props);
  }
}
