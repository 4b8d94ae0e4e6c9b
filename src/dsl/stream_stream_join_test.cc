// Windowed stream-stream joins through the test driver: inner, left and outer; window bounds,
// asymmetric windows, grace and late records; unmatched results only once no match can come;
// duplicates, self-joins, re-keyed inputs and names; null keys.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/kstream.h"
#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"
#include "built_topology.h"

namespace brook {
namespace {

using namespace std::chrono_literals;
using testing::build;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::TopologyTestDriver;
using ::testing::UnorderedElementsAre;

std::string pair(const std::string& l, const std::string& r) { return l + "+" + r; }
std::string left_pair(const std::string& l, const std::optional<std::string>& r) {
  return l + "+" + r.value_or("_");
}
std::string outer_pair(const std::optional<std::string>& l, const std::optional<std::string>& r) {
  return l.value_or("_") + "+" + r.value_or("_");
}

// Keys of streams whose records may have none; "null" in results.
using NullableKey = std::optional<std::string>;
std::string key_text(const std::string& key) { return key; }
std::string key_text(const NullableKey& key) { return key.value_or("null"); }

// "<key>:<value>@<timestamp>", so results read as plain strings.
template <class K = std::string>
struct App {
  explicit App(StreamsBuilder& builder, testing::TestDriverConfig config = {})
      : driver(build(builder), config),
        left(driver.create_input_topic<K, std::string>("left")),
        right(driver.create_input_topic<K, std::string>("right")),
        out(driver.create_output_topic<K, std::string>("out")) {}
  void l(const K& key, const std::string& value, std::int64_t at) {
    left.pipe_input(key, value, Timestamp(at));
  }
  void r(const K& key, const std::string& value, std::int64_t at) {
    right.pipe_input(key, value, Timestamp(at));
  }
  std::vector<std::string> results() {
    std::vector<std::string> out_list;
    for (auto& rec : out.read_records_to_list()) {
      out_list.push_back(key_text(rec.key) + ":" + rec.value + "@" +
                         std::to_string(rec.timestamp.value()));
    }
    return out_list;
  }
  std::int64_t dropped() const { return driver.metrics().total("dropped-records-total"); }

  TopologyTestDriver driver;
  testing::TestInputTopic<K, std::string> left;
  testing::TestInputTopic<K, std::string> right;
  testing::TestOutputTopic<K, std::string> out;
};

template <class K = std::string>
KStream<K, std::string> stream(StreamsBuilder& builder, const std::string& topic) {
  return builder.stream<K, std::string>(topic);
}

TEST(StreamStreamJoin, BothSidesTriggerAndTheOutputTakesTheLaterTimestamp) {
  StreamsBuilder builder;
  stream(builder, "left")
      .join(stream(builder, "right"), pair, JoinWindows::of_time_difference_with_no_grace(10ms))
      .to("out");
  App run(builder);
  run.l("a", "l1", 100);
  run.r("a", "r1", 105);  // the right record triggers
  run.l("a", "l2", 108);  // the left record triggers
  run.r("b", "r2", 108);  // other key: no match
  EXPECT_THAT(run.results(), ElementsAre("a:l1+r1@105", "a:l2+r1@108"));
}

TEST(StreamStreamJoin, WindowBoundsAreInclusiveAtExactlyTheTimeDifference) {
  StreamsBuilder builder;
  stream(builder, "left")
      .join(stream(builder, "right"), pair, JoinWindows::of_time_difference_and_grace(10ms, 100ms))
      .to("out");
  App run(builder);
  run.l("a", "l", 100);
  run.r("a", "r89", 89);    // 11 before: out
  run.r("a", "r90", 90);    // exactly 10 before: in
  run.r("a", "r110", 110);  // exactly 10 after: in
  run.r("a", "r111", 111);  // 11 after: out
  EXPECT_THAT(run.results(), ElementsAre("a:l+r90@100", "a:l+r110@110"));
  EXPECT_EQ(run.dropped(), 0);
}

TEST(StreamStreamJoin, AsymmetricWindowsUseBeforeAndAfterFromTheLeftRecordsView) {
  StreamsBuilder builder;
  // A right record at t2 joins a left one at t1 if t1 - 2 <= t2 <= t1 + 5.
  stream(builder, "left")
      .join(stream(builder, "right"), pair,
            JoinWindows::of_time_difference_and_grace(0ms, 100ms).before(2ms).after(5ms))
      .to("out");
  App run(builder);
  run.l("a", "l", 100);
  run.r("a", "r97", 97);
  run.r("a", "r98", 98);
  run.r("a", "r105", 105);
  run.r("a", "r106", 106);
  EXPECT_THAT(run.results(), ElementsAre("a:l+r98@100", "a:l+r105@105"));
  // Seen from the right: a left record at t1 joins a right one at t2 if t2 - 5 <= t1 <= t2 + 2.
  run.l("a", "l104", 104);  // 104 - 2 = 102: r105 and r106 (and r98? 98 >= 102 no)
  run.l("a", "l96", 96);    // [94, 101]: r97, r98
  EXPECT_THAT(run.results(),
              ElementsAre("a:l104+r105@105", "a:l104+r106@106", "a:l96+r97@97", "a:l96+r98@98"));
}

TEST(StreamStreamJoin, OutOfOrderRecordsWithinGraceStillJoin) {
  StreamsBuilder builder;
  stream(builder, "left")
      .join(stream(builder, "right"), pair, JoinWindows::of_time_difference_and_grace(10ms, 20ms))
      .to("out");
  App run(builder);
  run.l("a", "l", 100);
  run.l("x", "x", 125);  // stream time 125
  run.r("a", "r", 95);   // window [85, 105] + grace 20 = 125: still open
  EXPECT_THAT(run.results(), ElementsAre("a:l+r@100"));
  EXPECT_EQ(run.dropped(), 0);
}

TEST(StreamStreamJoin, RecordsBeyondGraceAreDroppedAndCounted) {
  StreamsBuilder builder;
  stream(builder, "left")
      .join(stream(builder, "right"), pair, JoinWindows::of_time_difference_and_grace(10ms, 20ms))
      .to("out");
  App run(builder);
  run.l("a", "l", 100);
  run.l("x", "x", 126);  // stream time 126
  run.r("a", "r", 95);   // its window closed at 105 + 20 = 125 < 126: dropped
  run.l("a", "l2", 95);  // the same on the left side
  EXPECT_THAT(run.results(), IsEmpty());
  EXPECT_EQ(run.dropped(), 2);
}

TEST(StreamStreamJoin, DuplicatesOnEitherSideEachJoin) {
  StreamsBuilder builder;
  stream(builder, "left")
      .join(stream(builder, "right"), pair, JoinWindows::of_time_difference_with_no_grace(10ms))
      .to("out");
  App run(builder);
  run.l("a", "l", 100);
  run.l("a", "l", 100);
  run.r("a", "r", 100);
  run.r("a", "r", 100);
  EXPECT_THAT(run.results(), ElementsAre("a:l+r@100", "a:l+r@100", "a:l+r@100", "a:l+r@100"));
}

TEST(StreamStreamJoin, LeftJoinEmitsUnmatchedRecordsOnlyOnceNoMatchCanCome) {
  StreamsBuilder builder;
  stream(builder, "left")
      .left_join(stream(builder, "right"), left_pair,
                 JoinWindows::of_time_difference_and_grace(10ms, 5ms))
      .to("out");
  App run(builder);
  run.l("a", "l1", 100);  // unmatched until stream time > 100 + 10 + 10 + 5 = 125
  run.l("b", "l2", 100);
  run.r("c", "rc", 110);  // right records are never emitted alone by a left join
  run.l("x", "x", 125);
  EXPECT_THAT(run.results(), IsEmpty());
  run.r("b", "r", 110);  // b finds its match in time: no unmatched result for it, ever
  EXPECT_THAT(run.results(), ElementsAre("b:l2+r@110"));
  run.l("y", "y", 126);  // stream time 126: a's window and grace have closed
  EXPECT_THAT(run.results(), ElementsAre("a:l1+_@100"));
  run.l("z", "z", 1000);
  EXPECT_THAT(run.results(), UnorderedElementsAre("x:x+_@125", "y:y+_@126"));
}

TEST(StreamStreamJoin, ALateMatchWithinGraceStillPreventsTheUnmatchedResult) {
  StreamsBuilder builder;
  stream(builder, "left")
      .left_join(stream(builder, "right"), left_pair,
                 JoinWindows::of_time_difference_and_grace(10ms, 5ms))
      .to("out");
  App run(builder);
  run.l("a", "l", 100);
  run.l("x", "x", 125);
  // The right record at 110 is accepted until stream time 110 + 10 + 5 = 125 and matches.
  run.r("a", "r", 110);
  run.l("y", "y", 200);
  EXPECT_THAT(run.results(), ElementsAre("a:l+r@110", "x:x+_@125"));
}

TEST(StreamStreamJoin, OuterJoinEmitsUnmatchedRecordsOfBothSidesAfterTheWindowCloses) {
  StreamsBuilder builder;
  stream(builder, "left")
      .outer_join(stream(builder, "right"), outer_pair,
                  JoinWindows::of_time_difference_with_no_grace(10ms))
      .to("out");
  App run(builder);
  run.l("a", "l", 100);
  run.r("b", "r", 101);
  run.l("c", "lc", 105);
  run.r("c", "rc", 106);
  EXPECT_THAT(run.results(), ElementsAre("c:lc+rc@106"));
  run.r("d", "rd", 121);  // stream time 121 > 100 + 20: a closes
  EXPECT_THAT(run.results(), ElementsAre("a:l+_@100"));
  run.r("d", "rd2", 122);
  EXPECT_THAT(run.results(), ElementsAre("b:_+r@101"));
}

TEST(StreamStreamJoin, UnmatchedResultsAlsoComeWhenStreamTimeAdvancesWithoutRecords) {
  StreamsBuilder builder;
  stream(builder, "left")
      .left_join(stream(builder, "right"), left_pair,
                 JoinWindows::of_time_difference_with_no_grace(1000ms))
      .to("out");
  App run(builder, {.stream_time_idle_advance = 100ms});
  run.l("a", "l", 5000);
  run.driver.advance_wall_clock_time(1000ms);  // stream time 6000
  EXPECT_THAT(run.results(), IsEmpty());
  run.driver.advance_wall_clock_time(1101ms);  // past 5000 + 2000
  EXPECT_THAT(run.results(), ElementsAre("a:l+_@5000"));
}

TEST(StreamStreamJoin, AStreamJoinedWithItselfJoinsEveryPairBothWays) {
  StreamsBuilder builder;
  auto events = stream(builder, "left");
  events.join(events, pair, JoinWindows::of_time_difference_with_no_grace(10ms)).to("out");
  App run(builder);
  run.l("a", "1", 100);
  EXPECT_THAT(run.results(), ElementsAre("a:1+1@100"));
  run.l("a", "2", 105);
  EXPECT_THAT(run.results(), UnorderedElementsAre("a:2+1@105", "a:1+2@105", "a:2+2@105"));
}

// The descriptions below are Kafka Streams 3.9's describe() of the same DSL: a join takes five
// numbers (two windowed nodes, the two join processors, the merge), a named one too; the stores
// are named after StreamJoined's store name, else after the generated join processor names.
TEST(StreamStreamJoin, AnUnnamedInnerJoinIsDescribedAsKafkaStreams) {
  StreamsBuilder builder;
  stream(builder, "left")
      .join(stream(builder, "right"), pair, JoinWindows::of_time_difference_with_no_grace(10ms))
      .to("out");
  EXPECT_EQ(
      build(builder).describe(),
      "Topologies:\n"
      "   Sub-topology: 0\n"
      "    Source: KSTREAM-SOURCE-0000000000 (topics: [left])\n"
      "      --> KSTREAM-WINDOWED-0000000002\n"
      "    Source: KSTREAM-SOURCE-0000000001 (topics: [right])\n"
      "      --> KSTREAM-WINDOWED-0000000003\n"
      "    Processor: KSTREAM-WINDOWED-0000000002 (stores: [KSTREAM-JOINTHIS-0000000004-store])\n"
      "      --> KSTREAM-JOINTHIS-0000000004\n"
      "      <-- KSTREAM-SOURCE-0000000000\n"
      "    Processor: KSTREAM-WINDOWED-0000000003 (stores: [KSTREAM-JOINOTHER-0000000005-store])\n"
      "      --> KSTREAM-JOINOTHER-0000000005\n"
      "      <-- KSTREAM-SOURCE-0000000001\n"
      "    Processor: KSTREAM-JOINOTHER-0000000005 (stores: [KSTREAM-JOINTHIS-0000000004-store])\n"
      "      --> KSTREAM-MERGE-0000000006\n"
      "      <-- KSTREAM-WINDOWED-0000000003\n"
      "    Processor: KSTREAM-JOINTHIS-0000000004 (stores: [KSTREAM-JOINOTHER-0000000005-store])\n"
      "      --> KSTREAM-MERGE-0000000006\n"
      "      <-- KSTREAM-WINDOWED-0000000002\n"
      "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
      "      --> KSTREAM-SINK-0000000007\n"
      "      <-- KSTREAM-JOINTHIS-0000000004, KSTREAM-JOINOTHER-0000000005\n"
      "    Sink: KSTREAM-SINK-0000000007 (topic: out)\n"
      "      <-- KSTREAM-MERGE-0000000006\n"
      "\n");
}

TEST(StreamStreamJoin, AnUnnamedLeftJoinOfAReKeyedStreamIsDescribedAsKafkaStreams) {
  StreamsBuilder builder;
  stream(builder, "left")
      .select_key([](const std::string&, const std::string& v) { return v.substr(0, 1); })
      .left_join(stream(builder, "right"), left_pair,
                 JoinWindows::of_time_difference_with_no_grace(10ms))
      .to("out");
  EXPECT_EQ(
      build(builder).describe(),
      "Topologies:\n"
      "   Sub-topology: 0\n"
      "    Source: KSTREAM-SOURCE-0000000000 (topics: [left])\n"
      "      --> KSTREAM-KEY-SELECT-0000000001\n"
      "    Processor: KSTREAM-KEY-SELECT-0000000001 (stores: [])\n"
      "      --> KSTREAM-FILTER-0000000004\n"
      "      <-- KSTREAM-SOURCE-0000000000\n"
      "    Processor: KSTREAM-FILTER-0000000004 (stores: [])\n"
      "      --> KSTREAM-SINK-0000000003\n"
      "      <-- KSTREAM-KEY-SELECT-0000000001\n"
      "    Sink: KSTREAM-SINK-0000000003 (topic: KSTREAM-KEY-SELECT-0000000001-repartition)\n"
      "      <-- KSTREAM-FILTER-0000000004\n"
      "\n"
      "  Sub-topology: 1\n"
      "    Source: KSTREAM-SOURCE-0000000002 (topics: [right])\n"
      "      --> KSTREAM-WINDOWED-0000000007\n"
      "    Source: KSTREAM-SOURCE-0000000005 (topics: "
      "[KSTREAM-KEY-SELECT-0000000001-repartition])\n"
      "      --> KSTREAM-WINDOWED-0000000006\n"
      "    Processor: KSTREAM-WINDOWED-0000000006 (stores: [KSTREAM-JOINTHIS-0000000008-store])\n"
      "      --> KSTREAM-JOINTHIS-0000000008\n"
      "      <-- KSTREAM-SOURCE-0000000005\n"
      "    Processor: KSTREAM-WINDOWED-0000000007 (stores: [KSTREAM-OUTEROTHER-0000000009-store])\n"
      "      --> KSTREAM-OUTEROTHER-0000000009\n"
      "      <-- KSTREAM-SOURCE-0000000002\n"
      "    Processor: KSTREAM-JOINTHIS-0000000008 (stores: [KSTREAM-OUTERSHARED-0000000008-store, "
      "KSTREAM-OUTEROTHER-0000000009-store])\n"
      "      --> KSTREAM-MERGE-0000000010\n"
      "      <-- KSTREAM-WINDOWED-0000000006\n"
      "    Processor: KSTREAM-OUTEROTHER-0000000009 (stores: [KSTREAM-JOINTHIS-0000000008-store, "
      "KSTREAM-OUTERSHARED-0000000008-store])\n"
      "      --> KSTREAM-MERGE-0000000010\n"
      "      <-- KSTREAM-WINDOWED-0000000007\n"
      "    Processor: KSTREAM-MERGE-0000000010 (stores: [])\n"
      "      --> KSTREAM-SINK-0000000011\n"
      "      <-- KSTREAM-JOINTHIS-0000000008, KSTREAM-OUTEROTHER-0000000009\n"
      "    Sink: KSTREAM-SINK-0000000011 (topic: out)\n"
      "      <-- KSTREAM-MERGE-0000000010\n"
      "\n");
}

TEST(StreamStreamJoin, ANamedLeftJoinWithoutAStoreNameHasGeneratedStoreNames) {
  StreamsBuilder builder;
  stream(builder, "left")
      .left_join(stream(builder, "right"), left_pair,
                 JoinWindows::of_time_difference_with_no_grace(10ms), {.name = "j"})
      .to("out");
  EXPECT_EQ(build(builder).describe(),
            "Topologies:\n"
            "   Sub-topology: 0\n"
            "    Source: KSTREAM-SOURCE-0000000000 (topics: [left])\n"
            "      --> j-this-windowed\n"
            "    Source: KSTREAM-SOURCE-0000000001 (topics: [right])\n"
            "      --> j-other-windowed\n"
            "    Processor: j-other-windowed (stores: [KSTREAM-OUTEROTHER-0000000005-store])\n"
            "      --> j-outer-other-join\n"
            "      <-- KSTREAM-SOURCE-0000000001\n"
            "    Processor: j-this-windowed (stores: [KSTREAM-JOINTHIS-0000000004-store])\n"
            "      --> j-this-join\n"
            "      <-- KSTREAM-SOURCE-0000000000\n"
            "    Processor: j-outer-other-join (stores: [KSTREAM-JOINTHIS-0000000004-store, "
            "KSTREAM-OUTERSHARED-0000000004-store])\n"
            "      --> j-merge\n"
            "      <-- j-other-windowed\n"
            "    Processor: j-this-join (stores: [KSTREAM-OUTEROTHER-0000000005-store, "
            "KSTREAM-OUTERSHARED-0000000004-store])\n"
            "      --> j-merge\n"
            "      <-- j-this-windowed\n"
            "    Processor: j-merge (stores: [])\n"
            "      --> KSTREAM-SINK-0000000007\n"
            "      <-- j-this-join, j-outer-other-join\n"
            "    Sink: KSTREAM-SINK-0000000007 (topic: out)\n"
            "      <-- j-merge\n"
            "\n");
}

TEST(StreamStreamJoin, ANamedOuterJoinOfAReKeyedStreamNamesItsTopicAndStores) {
  StreamsBuilder builder;
  stream(builder, "left")
      .select_key([](const std::string&, const std::string& v) { return v.substr(0, 1); })
      .outer_join(stream(builder, "right"), outer_pair,
                  JoinWindows::of_time_difference_with_no_grace(10ms),
                  {.name = "j", .store_name = "j"})
      .to("out");
  auto topology = build(builder);
  EXPECT_EQ(topology.describe(),
            "Topologies:\n"
            "   Sub-topology: 0\n"
            "    Source: KSTREAM-SOURCE-0000000000 (topics: [left])\n"
            "      --> KSTREAM-KEY-SELECT-0000000001\n"
            "    Processor: KSTREAM-KEY-SELECT-0000000001 (stores: [])\n"
            "      --> j-left-repartition-filter\n"
            "      <-- KSTREAM-SOURCE-0000000000\n"
            "    Processor: j-left-repartition-filter (stores: [])\n"
            "      --> j-left-repartition-sink\n"
            "      <-- KSTREAM-KEY-SELECT-0000000001\n"
            "    Sink: j-left-repartition-sink (topic: j-left-repartition)\n"
            "      <-- j-left-repartition-filter\n"
            "\n"
            "  Sub-topology: 1\n"
            "    Source: KSTREAM-SOURCE-0000000002 (topics: [right])\n"
            "      --> j-other-windowed\n"
            "    Source: j-left-repartition-source (topics: [j-left-repartition])\n"
            "      --> j-this-windowed\n"
            "    Processor: j-other-windowed (stores: [j-outer-other-join-store])\n"
            "      --> j-outer-other-join\n"
            "      <-- KSTREAM-SOURCE-0000000002\n"
            "    Processor: j-this-windowed (stores: [j-outer-this-join-store])\n"
            "      --> j-outer-this-join\n"
            "      <-- j-left-repartition-source\n"
            "    Processor: j-outer-other-join (stores: [j-outer-shared-join-store, "
            "j-outer-this-join-store])\n"
            "      --> j-merge\n"
            "      <-- j-other-windowed\n"
            "    Processor: j-outer-this-join (stores: [j-outer-shared-join-store, "
            "j-outer-other-join-store])\n"
            "      --> j-merge\n"
            "      <-- j-this-windowed\n"
            "    Processor: j-merge (stores: [])\n"
            "      --> KSTREAM-SINK-0000000011\n"
            "      <-- j-outer-this-join, j-outer-other-join\n"
            "    Sink: KSTREAM-SINK-0000000011 (topic: out)\n"
            "      <-- j-merge\n"
            "\n");

  TopologyTestDriver driver(std::move(topology));
  auto l = driver.create_input_topic<std::string, std::string>("left");
  auto r = driver.create_input_topic<std::string, std::string>("right");
  auto out = driver.create_output_topic<std::string, std::string>("out");
  l.pipe_input("ignored", "a-left", Timestamp(100));
  r.pipe_input("a", "a-right", Timestamp(101));
  EXPECT_THAT(out.read_key_values_to_list(),
              ElementsAre(KeyValue<std::string, std::string>{"a", "a-left+a-right"}));
}

TEST(StreamStreamJoin, InvalidWindowsAreReportedByBuild) {
  StreamsBuilder builder;
  stream(builder, "left")
      .join(stream(builder, "right"), pair, JoinWindows::of_time_difference_and_grace(1ms, -1ms),
            {.name = "bad"})
      .to("out");
  auto topology = builder.build();
  ASSERT_FALSE(topology);
  EXPECT_THAT(topology.error().to_string(), HasSubstr("join bad: JoinWindows: the grace period"));
  EXPECT_FALSE(JoinWindows::of_time_difference_with_no_grace(5ms).before(-6ms).validate().ok());
  EXPECT_TRUE(JoinWindows::of_time_difference_with_no_grace(5ms).before(-5ms).validate().ok());
}

TEST(StreamStreamJoin, InnerJoinDropsAndCountsNullKeyedRecordsOfEitherSide) {
  StreamsBuilder builder;
  stream<NullableKey>(builder, "left")
      .join(stream<NullableKey>(builder, "right"), pair,
            JoinWindows::of_time_difference_with_no_grace(10ms), {.name = "j", .store_name = "j"})
      .to("out");
  App<NullableKey> run(builder);
  run.l(std::nullopt, "l0", 100);
  run.r(std::nullopt, "r0", 100);  // null keys are not equal keys
  run.l("a", "l1", 100);
  run.r("a", "r1", 105);
  EXPECT_THAT(run.results(), ElementsAre("a:l1+r1@105"));
  EXPECT_EQ(run.dropped(), 2);
  auto stored = run.driver.window_store<std::string, std::string>("j-this-join-store");
  EXPECT_THAT(stored.fetch("a", Timestamp(0), Timestamp(200)),
              ElementsAre(std::pair(Timestamp(100), std::string("l1"))))
      << "keyed by the plain key, without the null-keyed record";
}

TEST(StreamStreamJoin, LeftJoinEmitsANullKeyedLeftRecordAtOnceAndDropsANullKeyedRightOne) {
  StreamsBuilder builder;
  stream<NullableKey>(builder, "left")
      .left_join(stream<NullableKey>(builder, "right"), left_pair,
                 JoinWindows::of_time_difference_with_no_grace(10ms))
      .to("out");
  App<NullableKey> run(builder);
  Headers headers;
  headers.add("trace", "t1");
  run.left.pipe_input(std::nullopt, "l0", Timestamp(100), headers);
  const auto unmatched = run.out.read_records_to_list();
  ASSERT_EQ(unmatched.size(), 1u) << "at once, without waiting for the window to close";
  EXPECT_EQ(unmatched[0].key, std::nullopt);
  EXPECT_EQ(unmatched[0].value, "l0+_");
  EXPECT_EQ(unmatched[0].timestamp, Timestamp(100));
  ASSERT_NE(unmatched[0].headers.last("trace"), nullptr);
  run.r(std::nullopt, "r0", 101);
  EXPECT_EQ(run.dropped(), 1);
  run.l("a", "l1", 102);
  run.r("a", "r1", 103);
  EXPECT_THAT(run.results(), ElementsAre("a:l1+r1@103"));
}

TEST(StreamStreamJoin, OuterJoinEmitsNullKeyedRecordsOfEitherSideAtOnceEvenBehindStreamTime) {
  StreamsBuilder builder;
  stream<NullableKey>(builder, "left")
      .outer_join(stream<NullableKey>(builder, "right"), outer_pair,
                  JoinWindows::of_time_difference_with_no_grace(10ms))
      .to("out");
  App<NullableKey> run(builder);
  run.l(std::nullopt, "l0", 100);
  run.r(std::nullopt, "r0", 100);
  run.l("a", "l1", 100);
  run.r("a", "r1", 101);
  EXPECT_THAT(run.results(), ElementsAre("null:l0+_@100", "null:_+r0@100", "a:l1+r1@101"));
  run.r(std::nullopt, "r-old", 50);  // no window to be late for
  run.l("b", "l-old", 50);           // its window has closed: dropped
  EXPECT_THAT(run.results(), ElementsAre("null:_+r-old@50"));
  EXPECT_EQ(run.dropped(), 1);
}

}  // namespace
}  // namespace brook
