// The twin of examples/click_enrichment: each click of user-clicks (key: user id) left-joined
// with its user's profile from the table user-profiles (the store "profiles") in the join
// "enrich-clicks", to user-clicks-enriched with the profile's age and gender, or age -1 and
// gender "unknown" without a profile. Clicks, profiles and enriched clicks are JSON, as
// click_enrichment.h writes them. The profiles store restores from user-profiles itself
// (topology.optimization reuse.ktable.source.topics), as the example builds its topology.
package dev.brook.conformance;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

final class ClickEnrichment {
  static final String CLICKS_TOPIC = "user-clicks";
  static final String PROFILES_TOPIC = "user-profiles";
  static final String OUTPUT_TOPIC = "user-clicks-enriched";

  private ClickEnrichment() {}

  // {"page": "/cart"}; other members are ignored, as Brook's from_json does.
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Click(String page) {}

  // {"age": 34, "gender": "f"}.
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Profile(int age, String gender) {}

  // {"page": "/cart", "age": 34, "gender": "f"}.
  record EnrichedClick(String page, int age, String gender) {}

  static final Serde<Click> CLICK = Json.serde(Click.class);
  static final Serde<Profile> PROFILE = Json.serde(Profile.class);
  static final Serde<EnrichedClick> ENRICHED_CLICK = Json.serde(EnrichedClick.class);

  // The click with the profile's age and gender, or the unknowns without a profile.
  static EnrichedClick enrich(Click click, Profile profile) {
    if (profile == null) return new EnrichedClick(click.page(), -1, "unknown");
    return new EnrichedClick(click.page(), profile.age(), profile.gender());
  }

  static Topology build(Properties props) {
    StreamsBuilder builder = new StreamsBuilder();
    KTable<String, Profile> profiles = builder.table(PROFILES_TOPIC,
        Consumed.with(Serdes.String(), PROFILE),
        Materialized.<String, Profile, KeyValueStore<Bytes, byte[]>>as("profiles"));
    builder.stream(CLICKS_TOPIC, Consumed.with(Serdes.String(), CLICK))
        .leftJoin(profiles, ClickEnrichment::enrich,
            Joined.<String, Click, Profile>as("enrich-clicks")
                .withKeySerde(Serdes.String())
                .withValueSerde(CLICK)
                .withOtherValueSerde(PROFILE))
        .to(OUTPUT_TOPIC, Produced.with(Serdes.String(), ENRICHED_CLICK));
    // The profiles topic is the profiles store's changelog (no second copy of it), unless
    // `props` asks for other optimisations.
    Properties withReuse = new Properties();
    withReuse.putAll(props);
    withReuse.putIfAbsent(StreamsConfig.TOPOLOGY_OPTIMIZATION_CONFIG,
        StreamsConfig.REUSE_KTABLE_SOURCE_TOPICS);
    return builder.build(withReuse);
  }
}
