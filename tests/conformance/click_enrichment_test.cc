// click_enrichment against its Kafka Streams twin (ClickEnrichment.java): describe(), and
// user-clicks-enriched as a stream (per partition, each user's enriched clicks in the same order,
// with timestamps and headers), JSON values compared as JSON. The profiles store has no changelog
// of its own (it restores from user-profiles: reuse.ktable.source.topics), so there is none to
// compare.
//
// A stream-table join's result depends on the order in which its task takes clicks and profile
// updates: user-clicks and user-profiles are co-partitioned (4 partitions each), a user's clicks
// and profile meet in one task, which takes the head records of its two partitions in timestamp
// order. So no click has the timestamp of a profile record (the order of equal timestamps of two
// partitions is not defined), and the profile records are in timestamp order in each partition
// (a null-keyed one, which both drop, then cannot change the order of the others).
//
// The input (over 10 000 records): the demo's phases (tools/demo: profiles, clicks, profile
// updates, more clicks), then 10 000 events of 60 users: clicks (also of users who never have a
// profile, some out of order, some at the timestamp of the click before), profile updates and
// deletions (tombstones) between them, profiles without a key; headers on some clicks (the
// enriched click keeps them) and on some profiles (which no output carries).
#include "click_enrichment.h"

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "brook/internal/partitioner.h"
#include "conformance.h"
#include "demo_joins.h"

namespace brook::testing {
namespace {

constexpr std::int32_t kClickPartitions = 4;        // both inputs: co-partitioned
constexpr std::int64_t kStart = 1'767'225'600'000;  // 2026-01-01T00:00Z

const ExampleTopics kClickEnrichment{
    .name = "click_enrichment",
    .inputs = {{.name = click_enrichment::kClicksTopic, .partitions = kClickPartitions},
               {.name = click_enrichment::kProfilesTopic, .partitions = kClickPartitions}},
    .outputs = {{.name = click_enrichment::kOutputTopic, .partitions = kClickPartitions}},
};

// The records described at the top of this file, each on its key's partition.
std::vector<ProducerRecord> clicks_and_profiles() {
  std::vector<ProducerRecord> records;
  for (int phase = 0; phase < demo::kClickPhases; ++phase) {
    for (auto& r : demo::click_phase(phase, kStart)) records.push_back(std::move(r));
  }
  // Users user-00..user-59: user-50 and above never have a profile.
  constexpr int kUsers = 60;
  constexpr int kUsersWithProfiles = 50;
  const char* genders[] = {"f", "m", "x"};
  std::mt19937 random(23);
  // Event i has the 10 ms from kStart + 100 s + 10 ms * i: a profile record at +5, clicks at +1
  // to +4 (or earlier events' +1 to +4, out of order), so no click has a profile's timestamp.
  std::optional<std::int64_t> last_click;
  for (int i = 0; i < 10'000; ++i) {
    const std::int64_t slot = kStart + 100'000 + std::int64_t{i} * 10;
    const auto roll = random() % 100;
    const std::string user = fmt::format("user-{:02}", random() % kUsers);
    const std::string owner = fmt::format("user-{:02}", random() % kUsersWithProfiles);
    if (roll < 12) {  // a new profile, or an update
      ProducerRecord r{
          .topic = click_enrichment::kProfilesTopic,
          .timestamp = Timestamp(slot + 5),
          .key = owner,
          .value = nlohmann::json(click_enrichment::Profile{static_cast<int>(16 + random() % 70),
                                                            genders[random() % 3]})
                       .dump()};
      if (random() % 5 == 0) r.headers.add("source", fmt::format("profile-{}", i));
      records.push_back(std::move(r));
    } else if (roll < 15) {  // a deletion, of a profile that may not exist
      records.push_back({.topic = click_enrichment::kProfilesTopic,
                         .timestamp = Timestamp(slot + 5),
                         .key = owner,
                         .value = std::nullopt});
    } else if (roll < 16) {  // no key: dropped by the table's source
      records.push_back(
          {.topic = click_enrichment::kProfilesTopic,
           .partition = Partition(static_cast<std::int32_t>(random() % kClickPartitions)),
           .timestamp = Timestamp(slot + 5),
           .value = nlohmann::json(click_enrichment::Profile{99, "f"}).dump()});
    } else {
      std::int64_t ts = slot + 1 + static_cast<std::int64_t>(random() % 4);
      const auto when = random() % 20;
      if (when == 0 && i > 30) {  // out of order: up to 30 events early
        ts -= 10 * (1 + static_cast<std::int64_t>(random() % 30));
      } else if (when == 1 && last_click) {  // the timestamp of the click before
        ts = *last_click;
      }
      last_click = ts;
      ProducerRecord r{
          .topic = click_enrichment::kClicksTopic,
          .timestamp = Timestamp(ts),
          .key = user,
          .value = nlohmann::json(click_enrichment::Click{fmt::format("/page/{}", i)}).dump()};
      if (random() % 7 == 0) r.headers.add("trace", fmt::format("t-{}", i));
      if (random() % 50 == 0) r.headers.add("trace", "second");  // a repeated header key
      records.push_back(std::move(r));
    }
  }
  for (auto& r : records) {
    if (r.key) r.partition = internal::partition_for_key(*r.key, kClickPartitions);
  }
  return records;
}

TEST_F(ConformanceTest, ClickEnrichmentEnrichesEachClickAsKafkaStreams) {
  create_topics(kClickEnrichment);
  produce(clicks_and_profiles());
  const auto [brook, twin] = run_both(kClickEnrichment);
  expect_same_dropped_records(kClickEnrichment, brook, twin);
  expect_same_description(kClickEnrichment, brook, twin);
  expect_same_stream(kClickEnrichment, click_enrichment::kOutputTopic, brook, twin,
                     ValueFormat::kJson);
}

}  // namespace
}  // namespace brook::testing
