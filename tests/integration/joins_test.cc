// Joins on the real runtime over the embedded log: the results equal the test driver's, a
// stream re-keyed to std::optional keys co-partitions with its table, and inputs that are not
// co-partitioned stop the start with an error naming both topics.
#include <gmock/gmock.h>

#include <map>

#include "brook/kstream.h"
#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"
#include "embedded_fixture.h"

namespace brook::testing {
namespace {

using ::testing::HasSubstr;

// `clicks` of `builder` left-joined with the table "profiles" as "<click> by <profile, or ?>",
// into "out".
template <class K>
Topology enriched(StreamsBuilder& builder, const KStream<K, std::string>& clicks) {
  auto profiles = builder.table<std::string, std::string>("profiles", {}, {.name = "profiles"});
  clicks
      .left_join(profiles,
                 [](const std::string& click, const std::optional<std::string>& profile) {
                   return click + " by " + profile.value_or("?");
                 },
                 {.name = "enrich"})
      .to("out");
  return std::move(*builder.build());
}

// Clicks enriched with the user's profile; profiles are written before the clicks.
Topology enrichment() {
  StreamsBuilder builder;
  return enriched(builder, builder.stream<std::string, std::string>("clicks"));
}

std::vector<std::pair<std::string, std::string>> profiles() {
  std::vector<std::pair<std::string, std::string>> out;
  for (int u = 0; u < 20; u += 2)
    out.emplace_back("u" + std::to_string(u), "p" + std::to_string(u));
  return out;
}
std::vector<std::pair<std::string, std::string>> clicks() {
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < 100; ++i)
    out.emplace_back("u" + std::to_string(i % 20), "c" + std::to_string(i));
  return out;
}

class JoinsTest : public EmbeddedFixture {};

TEST_F(JoinsTest, StreamTableJoinOnTheRuntimeGivesWhatTheTestDriverGives) {
  create_topics({{"clicks", 4}, {"profiles", 4}, {"out", 4}});
  // The profiles are in the table before any click arrives: a first run reads them.
  produce("profiles", profiles());
  for (bool with_clicks : {false, true}) {
    if (with_clicks) produce("clicks", clicks());
    Streams app(enrichment(), config({{"application.id", "joins"}}));
    ASSERT_TRUE(app.start().ok());
    wait_until_idle(app);
    ASSERT_TRUE(app.close().ok());
  }
  std::map<std::string, std::string> runtime;
  for (const auto& r : read_all("out")) runtime[*r.value] = *r.key;

  TopologyTestDriver driver(enrichment());
  auto table = driver.create_input_topic<std::string, std::optional<std::string>>("profiles");
  for (const auto& [user, profile] : profiles()) table.pipe_input(user, profile);
  auto stream = driver.create_input_topic<std::string, std::string>("clicks");
  for (const auto& [user, click] : clicks()) stream.pipe_input(user, click);
  std::map<std::string, std::string> expected;
  for (const auto& [user, enriched] :
       driver.create_output_topic<std::string, std::string>("out").read_key_values_to_list()) {
    expected[enriched] = user;
  }
  EXPECT_EQ(runtime.size(), 100u);
  EXPECT_EQ(runtime, expected);
  EXPECT_EQ(runtime.at("c3 by ?"), "u3");
  EXPECT_EQ(runtime.at("c4 by p4"), "u4");
}

// The task waits for the table's partition while the log holds more of it (max.task.idle.ms
// = 0, the default): every click is enriched with the profile as of its timestamp, although
// the table's 3000 updates are read in small chunks next to the clicks and most of them are
// older than most clicks. The clicks' partition is paused while its buffer is full.
TEST_F(JoinsTest, EachClickIsEnrichedAsOfItsTimeWhenTheTableIsReadBehindTheStream) {
  create_topics({{"clicks", 1}, {"profiles", 1}, {"out", 1}});
  const int kUsers = 10;
  const int kUpdates = 3000;
  const int kClicks = 100;
  auto write = [&](const std::string& topic, int count, auto key_of, auto value_of, auto ts_of) {
    with_log([&](internal::EmbeddedLog& log) {
      auto producer = std::move(*log.make_producer({}));
      for (int i = 0; i < count; ++i) {
        ASSERT_TRUE(producer
                        ->send({.topic = topic,
                                .timestamp = Timestamp(ts_of(i)),
                                .key = key_of(i),
                                .value = value_of(i)})
                        .ok());
      }
      ASSERT_TRUE(producer->flush().ok());
    });
  };
  auto user = [&](int i) { return "u" + std::to_string(i % kUsers); };
  // Profile update i at time 2(i + 1); click j at an odd time, spread over the updates.
  write(
      "profiles", kUpdates, user, [](int i) { return "v" + std::to_string(i); },
      [](int i) { return 2 * (i + 1); });
  auto click_time = [&](int j) { return 2 * (j * (kUpdates / kClicks) + 7) + 1; };
  write(
      "clicks", kClicks, user, [](int j) { return "c" + std::to_string(j); }, click_time);

  Streams app(enrichment(), config({{"application.id", "joins-in-time"},
                                    {"max.poll.records", "10"},
                                    {"buffered.records.per.partition", "20"}}));
  ASSERT_TRUE(app.start().ok());
  wait_until_idle(app);
  ASSERT_TRUE(app.close().ok());

  std::map<std::string, std::string> enriched;  // click -> its output
  for (const auto& r : read_all("out")) enriched[r.value->substr(0, r.value->find(' '))] = *r.value;
  ASSERT_EQ(enriched.size(), static_cast<std::size_t>(kClicks));
  for (int j = 0; j < kClicks; ++j) {
    // The newest update of the click's user at or before the click.
    int newest = -1;
    for (int i = j % kUsers; 2 * (i + 1) <= click_time(j); i += kUsers) newest = i;
    const std::string click = "c" + std::to_string(j);
    EXPECT_EQ(enriched[click], click + " by " + (newest < 0 ? "?" : "v" + std::to_string(newest)));
  }
}

// Clicks "<user>:<page>", or "<page>" for an anonymous one, re-keyed by their user (none for an
// anonymous click) and enriched with the user's profile.
Topology enrichment_by_optional_user() {
  StreamsBuilder builder;
  return enriched(
      builder, builder.stream<std::string, std::string>("clicks").select_key(
                   [](const std::string&, const std::string& click) -> std::optional<std::string> {
                     const auto colon = click.find(':');
                     if (colon == std::string::npos) return std::nullopt;
                     return click.substr(0, colon);
                   }));
}

TEST_F(JoinsTest, AStreamReKeyedToOptionalKeysMeetsItsTableRowsAndKeepsNullKeys) {
  create_topics({{"clicks", 4}, {"profiles", 4}, {"out", 4}});
  produce("profiles", profiles());
  std::vector<std::pair<std::string, std::string>> clicks;
  for (int i = 0; i < 40; ++i) {
    const std::string page = "c" + std::to_string(i);
    clicks.emplace_back("k" + std::to_string(i),
                        i % 4 == 3 ? page : "u" + std::to_string(i % 20) + ":" + page);
  }
  for (bool with_clicks : {false, true}) {  // the profiles first, as above
    if (with_clicks) produce("clicks", clicks);
    Streams app(enrichment_by_optional_user(), config({{"application.id", "joins"}}));
    ASSERT_TRUE(app.start().ok());
    wait_until_idle(app);
    ASSERT_TRUE(app.close().ok());
  }
  std::map<std::string, std::optional<std::string>> runtime;  // value -> key
  for (const auto& r : read_all("out")) runtime[*r.value] = r.key;
  ASSERT_EQ(runtime.size(), 40u);
  EXPECT_EQ(runtime.at("c3 by ?"), std::nullopt) << "anonymous: the null key, unmatched";
  EXPECT_EQ(runtime.at("u4:c4 by p4"), "u4") << "found in the table's partition";
  EXPECT_EQ(runtime.at("u5:c5 by ?"), "u5") << "u5 has no profile";
  int with_profile = 0;  // "u<n>:..." by "p<n>"
  for (const auto& [value, key] : runtime) {
    if (key && value.ends_with(" by p" + key->substr(1))) ++with_profile;
  }
  EXPECT_EQ(with_profile, 20) << "every click of a user with a profile found it";
}

TEST_F(JoinsTest, InputsWithOtherPartitionCountsStopTheStartNamingBothTopics) {
  create_topics({{"clicks", 4}, {"profiles", 3}, {"out", 4}});
  Streams app(enrichment(), config({{"application.id", "joins"}}));
  const auto status = app.start();
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("join enrich: its inputs must be co-partitioned"));
  EXPECT_THAT(status.message(),
              HasSubstr("topic clicks has 4 partitions and topic profiles has 3"));
}

}  // namespace
}  // namespace brook::testing
