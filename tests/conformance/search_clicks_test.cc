// search_clicks against its Kafka Streams twin (SearchClicks.java): describe(), top-clicked-results
// as a table (each query's last top result, with partition and timestamp: which intermediate
// updates reach the topic depends on when the record cache of result-clicks flushes), JSON values
// compared as JSON, the changelog of result-clicks (each query's last counts), and the
// changelogs of the join's window stores as multisets of records, their keys cut before the
// duplicate sequence number that each library counts its own way (Kafka Streams: every put to
// the store, Brook: per key and timestamp).
//
// searches and clicks are co-partitioned (4 partitions each): a user's searches and clicks meet
// in one task, which takes the head records of its two partitions in timestamp order, each
// partition's in offset order. A record is late when a record before it in its partition (or an
// earlier-timestamped head of the other) moved the task's stream time past it.
//
// The input (over 10 000 records): the demo's searches and clicks (tools/demo: 4 000 searches by
// 40 users, up to three clicks each 0.2 to 8 s later, some after the 5 s window, some on results
// not shown), then scenarios at the edges, each in a minute of its own, with a user and a query of
// its own (so that each shows as one key of the output): clicks at the window's end and 1 ms past
// it, a click 1 ms before its search and one at its timestamp, two clicks at one timestamp,
// duplicate searches, a click on a result not shown, clicks late within the grace, exactly at
// its end, and 1 ms beyond it, a click far beyond it after a newer search, searches late within
// and beyond the grace, tombstones of searches and clicks (read by Brook as an empty search and
// click, which match nothing shown), and searches and clicks without a key, on explicit
// partitions that hold no record without a key of the other topic (Kafka Streams drops them; Brook
// reads the null key as "", docs/compatibility.md#a-null-key-read-as-a-key-type-without-null, and
// they find nothing to join there).
//
// Two queries differ as docs/compatibility.md#late-records-in-a-stream-stream-join documents:
// "past-grace" and "lost-search", whose clicks or search came later than the grace. Brook drops
// them; Kafka Streams joins them with what the other side's store still holds. So do the
// dropped-record counts (#dropped-record-counts): Brook drops those late records and, in
// "expired", one click; Kafka Streams the records without a key and the tombstones.
#include "search_clicks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "brook/internal/partitioner.h"
#include "conformance.h"
#include "demo_joins.h"

namespace brook::testing {
namespace {

using search_clicks::Click;
using search_clicks::Search;

constexpr std::int32_t kPartitions = 4;  // both inputs: co-partitioned
constexpr std::int64_t kWindow = search_clicks::kClickWindow.count();
constexpr std::int64_t kGrace = search_clicks::kGrace.count();
constexpr std::int64_t kSlot = 60'000;  // a scenario's minute
constexpr std::uint32_t kSeed = 7;

// The join's window stores: each side's records within the window.
const std::string kSearchesStore = std::string(search_clicks::kJoinName) + "-this-join-store";
const std::string kClicksStore = std::string(search_clicks::kJoinName) + "-other-join-store";

const ExampleTopics kSearchClicks{
    .name = "search_clicks",
    .inputs = {{.name = search_clicks::kSearchTopic, .partitions = kPartitions},
               {.name = search_clicks::kClickTopic, .partitions = kPartitions}},
    // Not compacted (the example's is): the comparison reads the last record per key.
    .outputs = {{.name = search_clicks::kOutputTopic, .partitions = kPartitions}},
    .stores = {search_clicks::kCountsStore, kSearchesStore, kClicksStore},
};

// Appends searches and clicks to `records`, each on its key's partition; without a key on the
// partition given.
class Input {
 public:
  explicit Input(std::vector<ProducerRecord>& records) : records_(records) {}

  void search(const std::string& user, std::int64_t at, const std::string& query,
              const std::vector<std::string>& results) {
    add(search_clicks::kSearchTopic, user, at, nlohmann::json(Search{query, results}).dump());
  }
  void click(const std::string& user, std::int64_t at, const std::string& result) {
    add(search_clicks::kClickTopic, user, at, nlohmann::json(Click{result}).dump());
  }
  void tombstone(const char* topic, const std::string& user, std::int64_t at) {
    add(topic, user, at, std::nullopt);
  }
  void search_without_key(std::int32_t partition, std::int64_t at, const std::string& query) {
    records_.push_back({.topic = search_clicks::kSearchTopic,
                        .partition = Partition(partition),
                        .timestamp = Timestamp(at),
                        .value = nlohmann::json(Search{query, {query + "-1"}}).dump()});
  }
  void click_without_key(std::int32_t partition, std::int64_t at, const std::string& result) {
    records_.push_back({.topic = search_clicks::kClickTopic,
                        .partition = Partition(partition),
                        .timestamp = Timestamp(at),
                        .value = nlohmann::json(Click{result}).dump()});
  }

 private:
  void add(const char* topic, const std::string& user, std::int64_t at,
           std::optional<std::string> value) {
    records_.push_back({.topic = topic,
                        .partition = internal::partition_for_key(user, kPartitions),
                        .timestamp = Timestamp(at),
                        .key = user,
                        .value = std::move(value)});
  }
  std::vector<ProducerRecord>& records_;
};

// A query's results: "<query>-1" to "<query>-3".
std::vector<std::string> results_of(const std::string& query) {
  return {query + "-1", query + "-2", query + "-3"};
}

// The records described at the top of this file.
std::vector<ProducerRecord> searches_and_clicks() {
  const auto demo = demo::generate_search_clicks(kSeed);
  std::vector<ProducerRecord> records = demo::search_click_records(demo);
  for (auto& r : records) r.partition = internal::partition_for_key(*r.key, kPartitions);
  std::int64_t end = 0;
  for (const auto& c : demo.clicks) end = std::max(end, c.at);
  Input in(records);
  // Each scenario: user "edge-<query>", t the start of its minute.
  std::int64_t slot = end + 5 * kSlot;
  auto scenario = [&](const std::string& query) {
    slot += kSlot;
    return std::pair{"edge-" + query, slot};
  };
  {  // The window's end is inclusive: t + 5 s joins, t + 5 s + 1 ms does not.
    const auto [user, t] = scenario("window-end");
    in.search(user, t, "window-end", results_of("window-end"));
    in.click(user, t + kWindow, "window-end-1");
    in.click(user, t + kWindow + 1, "window-end-2");
    in.click(user, t + kWindow + 1, "window-end-2");
  }
  {  // Before 0: a click 1 ms before its search does not join, those at its timestamp do.
    const auto [user, t] = scenario("before");
    in.search(user, t, "before", results_of("before"));
    in.click(user, t - 1, "before-1");
    in.click(user, t, "before-2");
    in.click(user, t, "before-3");  // two clicks at one timestamp, the search's
  }
  {  // Two equal searches at one timestamp: each click joins both.
    const auto [user, t] = scenario("twice");
    in.search(user, t, "twice", results_of("twice"));
    in.search(user, t, "twice", results_of("twice"));
    in.click(user, t + 1'000, "twice-3");
    in.click(user, t + 1'000, "twice-2");
    in.click(user, t + 2'000, "twice-3");
  }
  {  // A click on a result the search did not show is no hit.
    const auto [user, t] = scenario("unshown");
    in.search(user, t, "unshown", results_of("unshown"));
    in.click(user, t + 500, "unshown-9");
    in.click(user, t + 600, "unshown-9");
    in.click(user, t + 700, "unshown-2");
  }
  {  // Clicks late within the grace: stream time t + 5.5 s, clicks at t + 4 s and at t + 3.5 s
     // (exactly at the grace's end: 3.5 s + 2 s = 5.5 s).
    const auto [user, t] = scenario("in-grace");
    in.search(user, t, "in-grace", results_of("in-grace"));
    in.click(user, t + 5'500, "in-grace-9");  // moves stream time
    in.click(user, t + 4'000, "in-grace-1");
    in.click(user, t + 3'500, "in-grace-1");
  }
  {  // Clicks late beyond the grace: stream time t + 5.001 s, a click at t + 3 s (1 ms beyond)
     // and one at t + 0.5 s. The search's store holds nothing newer than t.
    const auto [user, t] = scenario("past-grace");
    in.search(user, t, "past-grace", results_of("past-grace"));
    in.click(user, t + kWindow + 1, "past-grace-9");
    in.click(user, t + kWindow + 1 - kGrace - 1, "past-grace-1");
    in.click(user, t + 500, "past-grace-2");
  }
  {  // A click far beyond the grace, after a newer search (20 s) by the same user, which the
     // task takes first: nothing joins.
    const auto [user, t] = scenario("expired");
    in.search(user, t, "expired", results_of("expired"));
    in.search(user, t + 20'000, "expired-later", {});
    in.click(user, t + 20'001, "expired-9");
    in.click(user, t + 1'000, "expired-1");
  }
  {  // A search late within the grace (its window t..t + 5 s closes at t + 7 s): stream time
     // t + 6.5 s; its click at t + 1 s came before it.
    const auto [user, t] = scenario("late-search");
    in.click(user, t + 1'000, "late-search-2");
    in.search(user, t + 6'500, "late-search-later", {});
    in.search(user, t, "late-search", results_of("late-search"));
  }
  {  // A search late beyond the grace: stream time t + 8 s; its click at t + 1 s came before.
    const auto [user, t] = scenario("lost-search");
    in.click(user, t + 1'000, "lost-search-1");
    in.search(user, t + 8'000, "lost-search-later", {});
    in.search(user, t, "lost-search", results_of("lost-search"));
  }
  {  // Tombstones: an empty search and empty clicks for Brook, dropped by Kafka Streams.
    const auto [user, t] = scenario("tombstones");
    in.search(user, t, "tombstones", results_of("tombstones"));
    in.tombstone(search_clicks::kSearchTopic, user, t + 100);
    in.tombstone(search_clicks::kClickTopic, user, t + 200);
    in.click(user, t + 300, "tombstones-1");
    in.tombstone(search_clicks::kClickTopic, user, t + 400);
  }
  {  // Without a key: searches on partitions 0 and 1, clicks on 2 and 3 (each within 5 s of a
     // search without a key on another partition), next to a keyed search and click.
    const auto [user, t] = scenario("unkeyed");
    in.search(user, t, "unkeyed", results_of("unkeyed"));
    in.search_without_key(0, t + 100, "unkeyed");
    in.search_without_key(1, t + 100, "unkeyed");
    in.click_without_key(2, t + 200, "unkeyed-1");
    in.click_without_key(3, t + 300, "unkeyed-1");
    in.click(user, t + 400, "unkeyed-1");
  }
  return records;
}

TEST_F(ConformanceTest, SearchClicksCountsTopResultsAsKafkaStreams) {
  create_topics(kSearchClicks);
  const auto input = searches_and_clicks();
  ASSERT_GE(input.size(), 10'000u);
  produce(input);
  const auto [brook, twin] = run_both(kSearchClicks);
  expect_same_description(kSearchClicks, brook, twin);
  const std::set<std::string> late = {"past-grace", "lost-search"};
  expect_same_table(kSearchClicks, search_clicks::kOutputTopic, brook, twin, ValueFormat::kJson,
                    late);
  expect_same_changelog(kSearchClicks, search_clicks::kCountsStore, brook, twin, ValueFormat::kJson,
                        late);
  // The users whose records Brook drops as late, Kafka Streams its tombstones and the records
  // without a key (Brook's key "").
  const std::set<std::string> dropped = {"edge-past-grace", "edge-lost-search", "edge-expired",
                                         "edge-tombstones", ""};
  for (const auto& store : {kSearchesStore, kClicksStore}) {
    expect_same_join_changelog(kSearchClicks, store, brook, twin, ValueFormat::kJson, dropped);
  }
  // docs/compatibility.md#a-null-key-read-as-a-key-type-without-null: the two searches without a
  // key are in Brook's store only, the search tombstone is a null in Kafka Streams' only.
  auto searches = [&](const AppRun& run, bool (*which)(const OutputRecord&)) {
    std::size_t n = 0;
    if (!run.changelogs.contains(kSearchesStore)) return n;
    for (const auto& [partition, list] : run.changelogs.at(kSearchesStore)) {
      n += std::count_if(list.begin(), list.end(), which);
    }
    return n;
  };
  auto keyless = [](const OutputRecord& r) { return r.key && r.key->size() == 8 + 4; };
  auto null_value = [](const OutputRecord& r) { return !r.value; };
  EXPECT_EQ(searches(brook, keyless), 2u);
  EXPECT_EQ(searches(twin, keyless), 0u);
  EXPECT_EQ(searches(brook, null_value), 0u);
  EXPECT_EQ(searches(twin, null_value), 1u);
  report_documented(kSearchClicks.name, "join stores: tombstones, records without a key",
                    "a-null-key-read-as-a-key-type-without-null");

  // The late clicks and search: dropped by Brook, joined by Kafka Streams.
  const auto ours = last_values(brook.outputs.at(search_clicks::kOutputTopic), ValueFormat::kJson);
  const auto theirs = last_values(twin.outputs.at(search_clicks::kOutputTopic), ValueFormat::kJson);
  for (const auto& query : late) EXPECT_FALSE(ours.contains(query)) << query;
  ASSERT_TRUE(theirs.contains("past-grace"));
  ASSERT_TRUE(theirs.contains("lost-search"));
  EXPECT_EQ(nlohmann::json::parse(theirs.at("past-grace")),
            nlohmann::json({{"result", "past-grace-1"}, {"clicks", 1}}));
  EXPECT_EQ(nlohmann::json::parse(theirs.at("lost-search")),
            nlohmann::json({{"result", "lost-search-1"}, {"clicks", 1}}));
  report_documented(kSearchClicks.name, "late clicks and searches",
                    "late-records-in-a-stream-stream-join");
  // Brook: two clicks of "past-grace", the search of "lost-search", a click of "expired".
  // Kafka Streams: four records without a key, three tombstones.
  EXPECT_EQ(brook.dropped_records, 4);
  EXPECT_EQ(twin.dropped_records, 7);
  report_documented(kSearchClicks.name, "dropped records", "dropped-record-counts");
}

}  // namespace
}  // namespace brook::testing
