// The twin of examples/search_clicks: each search of "searches" (key: user) inner-joined with the
// same user's clicks of "clicks" that come 0 to 5 s after it (JoinWindows: before 0, after 5 s,
// 2 s of grace; the join "search-clicks" with its window stores search-clicks-this-join-store and
// search-clicks-other-join-store). Clicks on results the search showed are re-keyed by query
// (repartition "hits-by-query") and counted per result in the store "result-clicks"; every
// update of a query's counts goes to "top-clicked-results" as its most-clicked result (ties: the
// smallest result name). Searches, clicks, hits, counts and top results are JSON, as
// search_clicks.h writes them.
package dev.brook.conformance;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.state.KeyValueStore;

final class SearchClicks {
  static final String SEARCH_TOPIC = "searches";
  static final String CLICK_TOPIC = "clicks";
  static final String OUTPUT_TOPIC = "top-clicked-results";
  static final String JOIN_NAME = "search-clicks";
  static final String COUNTS_STORE = "result-clicks";
  static final Duration CLICK_WINDOW = Duration.ofSeconds(5);
  static final Duration GRACE = Duration.ofSeconds(2);

  private SearchClicks() {}

  // {"query": "boots", "results": ["r1", "r2"]}; other members are ignored, as Brook's from_json.
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Search(String query, List<String> results) {}

  // {"result": "r2"}.
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Click(String result) {}

  // {"query": "boots", "result": "r2", "shown": true}: a click joined with its search.
  record Hit(String query, String result, boolean shown) {}

  // {"clicks": {"r1": 3, "r2": 7}}: the clicks per result of one query, by result name.
  @JsonIgnoreProperties(ignoreUnknown = true)
  record ResultClicks(TreeMap<String, Long> clicks) {
    ResultClicks add(String result) {
      TreeMap<String, Long> more = new TreeMap<>(clicks);
      more.merge(result, 1L, Long::sum);
      return new ResultClicks(more);
    }
  }

  // {"result": "r2", "clicks": 7}.
  record TopResult(String result, long clicks) {}

  static final Serde<Search> SEARCH = Json.serde(Search.class);
  static final Serde<Click> CLICK = Json.serde(Click.class);
  static final Serde<Hit> HIT = Json.serde(Hit.class);
  static final Serde<ResultClicks> RESULT_CLICKS = Json.serde(ResultClicks.class);
  static final Serde<TopResult> TOP_RESULT = Json.serde(TopResult.class);

  // The most-clicked result; of equal counts the smallest name (the first in name order), as
  // search_clicks::top_result.
  static TopResult topResult(ResultClicks counts) {
    TopResult top = new TopResult("", 0);
    for (Map.Entry<String, Long> entry : counts.clicks().entrySet()) {
      if (entry.getValue() > top.clicks()) top = new TopResult(entry.getKey(), entry.getValue());
    }
    return top;
  }

  static Topology build(Properties props) {
    StreamsBuilder builder = new StreamsBuilder();
    KStream<String, Search> searches = builder.stream(SEARCH_TOPIC,
        Consumed.with(Serdes.String(), SEARCH).withName("read-searches"));
    KStream<String, Click> clicks = builder.stream(CLICK_TOPIC,
        Consumed.with(Serdes.String(), CLICK).withName("read-clicks"));
    searches
        .join(clicks,
            (search, click) -> new Hit(search.query(), click.result(),
                search.results().contains(click.result())),
            // A click 0 to 5 s after the search (both inclusive), 2 s of grace.
            JoinWindows.ofTimeDifferenceAndGrace(Duration.ZERO, GRACE).after(CLICK_WINDOW),
            StreamJoined.<String, Search, Click>with(Serdes.String(), SEARCH, CLICK)
                .withName(JOIN_NAME)
                .withStoreName(JOIN_NAME))
        .filter((user, hit) -> hit.shown(), Named.as("shown-hits"))
        .groupBy((user, hit) -> hit.query(), Grouped.with("hits-by-query", Serdes.String(), HIT))
        .aggregate(() -> new ResultClicks(new TreeMap<>()),
            (query, hit, counts) -> counts.add(hit.result()),
            Materialized.<String, ResultClicks, KeyValueStore<Bytes, byte[]>>as(COUNTS_STORE)
                .withKeySerde(Serdes.String())
                .withValueSerde(RESULT_CLICKS))
        .toStream(Named.as("click-count-updates"))
        .mapValues(counts -> counts == null ? null : topResult(counts), Named.as("top-result"))
        .to(OUTPUT_TOPIC, Produced.with(Serdes.String(), TOP_RESULT).withName("write-top-results"));
    return builder.build(props);
  }
}
