// Windowed aggregations through the test driver: tumbling, hopping, sliding and session
// windows at their boundaries, grace, dropped late records, suppression and emit-on-close.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

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
using Result = KeyValue<std::string, std::optional<std::int64_t>>;

// "<key>@<start>/<end>", so results read as plain strings.
std::string label(const Windowed<std::string>& key) {
  return key.key + "@" + std::to_string(key.window.start.value()) + "/" +
         std::to_string(key.window.end.value());
}

// Writes a windowed table to topic "out", keyed by label().
void write(const KTable<Windowed<std::string>, std::int64_t>& table) {
  table.to_stream()
      .map([](const Windowed<std::string>& key, const std::optional<std::int64_t>& value) {
        return KeyValue<std::string, std::optional<std::int64_t>>{label(key), value};
      })
      .to("out");
}

KGroupedStream<std::string, std::string> grouped(StreamsBuilder& builder) {
  return builder.stream<std::string, std::string>("in").group_by_key();
}

struct App {
  explicit App(StreamsBuilder& builder, testing::TestDriverConfig config = {})
      : driver(build(builder), config),
        in(driver.create_input_topic<std::string, std::string>("in")),
        out(driver.create_output_topic<std::string, std::optional<std::int64_t>>("out")) {}
  void send(const std::string& key, std::int64_t at) { in.pipe_input(key, "v", Timestamp(at)); }
  std::vector<Result> results() { return out.read_key_values_to_list(); }
  std::int64_t dropped() const { return driver.metrics().total("dropped-records-total"); }

  TopologyTestDriver driver;
  testing::TestInputTopic<std::string, std::string> in;
  testing::TestOutputTopic<std::string, std::optional<std::int64_t>> out;
};

TEST(TimeWindows, TumblingWindowsAreAlignedToTheEpochAndARecordAtTheEndStartsTheNext) {
  StreamsBuilder builder;
  write(grouped(builder).windowed_by(TimeWindows::of_size_with_no_grace(10ms)).count());
  App run(builder);
  run.send("a", 1);
  run.send("a", 9);
  run.send("a", 10);  // [0, 10) excludes its end
  run.send("b", 19);
  EXPECT_THAT(run.results(), ElementsAre(Result{"a@0/10", 1}, Result{"a@0/10", 2},
                                         Result{"a@10/20", 1}, Result{"b@10/20", 1}));
}

TEST(TimeWindows, HoppingWindowsCountARecordInEveryWindowContainingIt) {
  StreamsBuilder builder;
  write(grouped(builder)
            .windowed_by(TimeWindows::of_size_with_no_grace(10ms).advance_by(5ms))
            .count());
  App run(builder);
  run.send("a", 7);
  run.send("a", 10);
  EXPECT_THAT(run.results(), ElementsAre(Result{"a@0/10", 1}, Result{"a@5/15", 1},
                                         Result{"a@5/15", 2}, Result{"a@10/20", 1}));
}

TEST(TimeWindows, HoppingWindowsNearTheEpochStartAtZero) {
  EXPECT_THAT(
      TimeWindows::of_size_with_no_grace(10ms).advance_by(3ms).windows_for(Timestamp(4)),
      ElementsAre(Window{Timestamp(0), Timestamp(10)}, Window{Timestamp(3), Timestamp(13)}));
}

TEST(TimeWindows, ALateRecordWithinGraceUpdatesItsWindowAndIsEmittedAgain) {
  StreamsBuilder builder;
  write(grouped(builder).windowed_by(TimeWindows::of_size_and_grace(10ms, 5ms)).count());
  App run(builder);
  run.send("a", 5);
  run.send("a", 14);  // stream time 14: [0, 10) closes at 10 + 5 = 15
  run.send("a", 6);   // late, within grace
  EXPECT_THAT(run.results(),
              ElementsAre(Result{"a@0/10", 1}, Result{"a@10/20", 1}, Result{"a@0/10", 2}));
  EXPECT_EQ(run.dropped(), 0);
}

TEST(TimeWindows, ARecordExactlyAtTheGraceBoundaryIsDroppedAndCounted) {
  StreamsBuilder builder;
  write(grouped(builder).windowed_by(TimeWindows::of_size_and_grace(10ms, 5ms)).count());
  App run(builder);
  run.send("a", 5);
  run.send("a", 15);  // stream time 15 = end 10 + grace 5: [0, 10) is closed
  run.send("a", 9);
  EXPECT_THAT(run.results(), ElementsAre(Result{"a@0/10", 1}, Result{"a@10/20", 1}));
  EXPECT_EQ(run.dropped(), 1);
}

// Dropped once for each window it is too late for, as Kafka Streams counts it.
TEST(TimeWindows, AHoppingRecordLateForSomeWindowsUpdatesTheOpenOnesAndIsDroppedFromTheClosedOnes) {
  StreamsBuilder builder;
  write(grouped(builder)
            .windowed_by(TimeWindows::of_size_with_no_grace(10ms).advance_by(5ms))
            .count());
  App run(builder);
  run.send("a", 12);  // close time 12: [0, 10) closed, [5, 15) open
  run.send("a", 7);
  EXPECT_THAT(run.results(),
              ElementsAre(Result{"a@5/15", 1}, Result{"a@10/20", 1}, Result{"a@5/15", 2}));
  EXPECT_EQ(run.dropped(), 1);  // from [0, 10)
}

TEST(TimeWindows, TheWindowStoreHoldsTheResultsForQueries) {
  StreamsBuilder builder;
  write(grouped(builder)
            .windowed_by(TimeWindows::of_size_and_grace(10ms, 100ms))
            .count({.name = "counts"}));
  App run(builder);
  run.send("a", 1);
  run.send("a", 2);
  run.send("a", 25);
  auto store = run.driver.timestamped_window_store<std::string, std::int64_t>("counts");
  EXPECT_EQ(store.fetch("a", Timestamp(0))->value, 2);
  EXPECT_EQ(store.fetch("a", Timestamp(0))->timestamp, Timestamp(2));
  auto windows = store.fetch("a", Timestamp(0), Timestamp(100));
  ASSERT_EQ(windows.size(), 2u);
  EXPECT_EQ(windows[1].first, Timestamp(20));
  EXPECT_EQ(windows[1].second.value, 1);
}

TEST(SlidingWindows, BothBoundsAreInclusive) {
  StreamsBuilder builder;
  write(grouped(builder)
            .windowed_by(SlidingWindows::of_time_difference_and_grace(10ms, 100ms))
            .count());
  App run(builder);
  run.send("a", 20);
  run.send("a", 30);  // 30 - 20 = the difference: one window holds both
  EXPECT_THAT(run.results(),
              ElementsAre(Result{"a@10/20", 1}, Result{"a@20/30", 2}, Result{"a@21/31", 1}));
}

TEST(SlidingWindows, AnOutOfOrderRecordUpdatesTheWindowsThatContainIt) {
  StreamsBuilder builder;
  write(grouped(builder)
            .windowed_by(SlidingWindows::of_time_difference_and_grace(10ms, 100ms))
            .count());
  App run(builder);
  run.send("a", 20);
  run.send("a", 35);
  run.results();
  run.send("a", 28);  // in [25, 35]; opens [18, 28], [21, 31] (after 20) and [29, 39]
  EXPECT_THAT(run.results(), ElementsAre(Result{"a@18/28", 2}, Result{"a@21/31", 1},
                                         Result{"a@25/35", 2}, Result{"a@29/39", 1}));
}

TEST(SlidingWindows, RecordsBeforeTheFirstDifferenceShareTheWindowStartingAtZero) {
  StreamsBuilder builder;
  write(
      grouped(builder).windowed_by(SlidingWindows::of_time_difference_with_no_grace(10ms)).count());
  App run(builder);
  run.send("a", 3);
  run.send("a", 5);
  EXPECT_THAT(run.results(),
              ElementsAre(Result{"a@0/10", 1}, Result{"a@0/10", 2}, Result{"a@4/14", 1}));
}

// Without the record cache, in the order of the writes (a flush of the cache writes in key
// order instead).
TEST(SessionWindows, ARecordBridgingTwoSessionsMergesThemAndTombstonesTheMergedAwayFirst) {
  StreamsBuilder builder;
  write(grouped(builder)
            .windowed_by(SessionWindows::of_inactivity_gap_and_grace(10ms, 100ms))
            .count({.caching = false}));
  App run(builder);
  run.send("a", 0);
  run.send("a", 20);  // 20 > 0 + gap: a new session
  run.send("a", 10);  // within the gap of both
  EXPECT_THAT(run.results(),
              ElementsAre(Result{"a@0/0", 1}, Result{"a@20/20", 1}, Result{"a@0/0", std::nullopt},
                          Result{"a@20/20", std::nullopt}, Result{"a@0/20", 3}));
}

TEST(SessionWindows, ARecordWithinTheGapExtendsTheSession) {
  StreamsBuilder builder;
  write(
      grouped(builder).windowed_by(SessionWindows::of_inactivity_gap_with_no_grace(10ms)).count());
  App run(builder);
  run.send("a", 0);
  run.send("a", 10);  // exactly the gap apart: same session
  run.send("a", 21);
  EXPECT_THAT(run.results(), ElementsAre(Result{"a@0/0", 1}, Result{"a@0/0", std::nullopt},
                                         Result{"a@0/10", 2}, Result{"a@21/21", 1}));
}

TEST(SessionWindows, ARecordForAClosedSessionIsDropped) {
  StreamsBuilder builder;
  write(
      grouped(builder).windowed_by(SessionWindows::of_inactivity_gap_and_grace(10ms, 5ms)).count());
  App run(builder);
  run.send("a", 100);  // close time 100 - 10 - 5 = 85
  run.send("a", 85);   // its session would end at 85: closed
  run.send("a", 86);
  EXPECT_THAT(run.results(), ElementsAre(Result{"a@100/100", 1}, Result{"a@86/86", 1}));
  EXPECT_EQ(run.dropped(), 1);
}

TEST(Suppress, UntilWindowClosesEmitsEachWindowOnceWhenItCloses) {
  StreamsBuilder builder;
  write(grouped(builder)
            .windowed_by(TimeWindows::of_size_and_grace(10ms, 5ms))
            .count()
            .suppress(Suppressed::until_window_closes()));
  App run(builder);
  run.send("a", 1);
  run.send("a", 2);
  run.send("b", 5);
  run.send("a", 14);
  EXPECT_THAT(run.results(), IsEmpty());
  run.send("a", 15);  // 10 + grace 5: [0, 10) closes
  EXPECT_THAT(run.results(), ElementsAre(Result{"a@0/10", 2}, Result{"b@0/10", 1}));
  run.send("a", 12);  // too late for [10, 20)? no: open until 25
  run.send("c", 30);
  EXPECT_THAT(run.results(), ElementsAre(Result{"a@10/20", 3}));
}

// The header "n" of each record read from "out", by key.
std::vector<std::string> header_n(App& run) {
  std::vector<std::string> out;
  for (const auto& r : run.out.read_records_to_list()) {
    const Header* n = r.headers.last("n");
    out.push_back(r.key + "=" + (n && n->value ? *n->value : "-"));
  }
  return out;
}

TEST(TimeWindows, EachResultCarriesTheHeadersOfTheRecordThatUpdatedIt) {
  StreamsBuilder builder;
  write(grouped(builder).windowed_by(TimeWindows::of_size_with_no_grace(10ms)).count());
  App run(builder);
  run.in.pipe_input("a", "v", Timestamp(1), Headers{{"n", "1"}});
  run.in.pipe_input("a", "v", Timestamp(2), Headers{{"n", "2"}});
  run.in.pipe_input("b", "v", Timestamp(3));
  EXPECT_THAT(header_n(run), ElementsAre("a@0/10=1", "a@0/10=2", "b@0/10=-"));
}

TEST(Suppress, AFinalResultCarriesTheHeadersOfItsLatestUpdate) {
  StreamsBuilder builder;
  write(grouped(builder)
            .windowed_by(TimeWindows::of_size_with_no_grace(10ms))
            .count()
            .suppress(Suppressed::until_window_closes()));
  App run(builder);
  run.in.pipe_input("a", "v", Timestamp(1), Headers{{"n", "1"}});
  run.in.pipe_input("a", "v", Timestamp(2), Headers{{"n", "2"}});
  run.in.pipe_input("b", "v", Timestamp(10), Headers{{"n", "3"}});
  EXPECT_THAT(header_n(run), ElementsAre("a@0/10=2"));
}

TEST(SessionWindows, AMergedSessionCarriesTheHeadersOfTheRecordThatMergedIt) {
  StreamsBuilder builder;
  write(grouped(builder).windowed_by(SessionWindows::of_inactivity_gap_with_no_grace(5ms)).count());
  App run(builder);
  run.in.pipe_input("a", "v", Timestamp(1), Headers{{"n", "1"}});
  run.in.pipe_input("a", "v", Timestamp(4), Headers{{"n", "2"}});
  EXPECT_THAT(header_n(run), ElementsAre("a@1/1=1", "a@1/1=2", "a@1/4=2"));
}

TEST(Suppress, EmitOnWindowCloseGivesFinalResultsOnly) {
  StreamsBuilder builder;
  write(grouped(builder)
            .windowed_by(TimeWindows::of_size_with_no_grace(10ms))
            .emit_strategy(EmitStrategy::kOnWindowClose)
            .count({.name = "counts"}));
  App run(builder);
  run.send("a", 1);
  run.send("a", 2);
  EXPECT_THAT(run.results(), IsEmpty());
  run.send("a", 10);
  EXPECT_THAT(run.results(), ElementsAre(Result{"a@0/10", 2}));
}

// The same count of every kind of window, emitting on update and on window close, over the
// same records (two keys, out of order, bridging sessions, up to stream time 100).
enum class Kind { kHopping, kSliding, kSession };
std::vector<Result> count_of(Kind kind, EmitStrategy emit, bool caching) {
  StreamsBuilder builder;
  auto in = grouped(builder);
  const Materialized<std::string, std::int64_t> store{.name = "counts", .caching = caching};
  switch (kind) {
    case Kind::kHopping:
      write(in.windowed_by(TimeWindows::of_size_and_grace(10ms, 3ms).advance_by(5ms))
                .emit_strategy(emit)
                .count(store));
      break;
    case Kind::kSliding:
      write(in.windowed_by(SlidingWindows::of_time_difference_and_grace(10ms, 3ms))
                .emit_strategy(emit)
                .count(store));
      break;
    case Kind::kSession:
      write(in.windowed_by(SessionWindows::of_inactivity_gap_and_grace(5ms, 3ms))
                .emit_strategy(emit)
                .count(store));
      break;
  }
  App run(builder);
  using Records = std::vector<std::pair<std::string, std::int64_t>>;
  const Records records{{"a", 1},  {"b", 2}, {"a", 4},  {"a", 9},  {"b", 14}, {"a", 20},
                        {"a", 12}, {"b", 8}, {"a", 31}, {"b", 33}, {"a", 26}, {"a", 100}};
  for (const auto& [key, at] : records) run.send(key, at);
  return run.results();
}

// "<key>@<start>/<end>" -> its last update, for the windows that closed by stream time 100
// (end + `close_delay` <= 100) and hold a value, from a count's updates.
std::map<std::string, std::int64_t> closed_windows(const std::vector<Result>& updates,
                                                   std::int64_t close_delay) {
  std::map<std::string, std::optional<std::int64_t>> last;
  for (const auto& [label, value] : updates) last[label] = value;
  std::map<std::string, std::int64_t> out;
  for (const auto& [label, value] : last) {
    const std::int64_t end = std::stoll(label.substr(label.find('/') + 1));
    if (value && end + close_delay <= 100) out[label] = *value;
  }
  return out;
}

TEST(EmitOnWindowClose, EmitsEachClosedWindowsLastUpdateOnceForEveryKindOfWindow) {
  for (const auto& [kind, close_delay] :
       {std::pair(Kind::kHopping, 3), std::pair(Kind::kSliding, 3),
        std::pair(Kind::kSession, 5 + 3)}) {
    for (const bool caching : {false, true}) {
      SCOPED_TRACE(::testing::Message()
                   << "kind " << static_cast<int>(kind) << ", caching " << caching);
      const auto expected =
          closed_windows(count_of(kind, EmitStrategy::kOnWindowUpdate, false), close_delay);
      ASSERT_GE(expected.size(), 4u);
      const auto finals = count_of(kind, EmitStrategy::kOnWindowClose, caching);
      std::map<std::string, std::int64_t> emitted;
      for (const auto& [label, value] : finals) {
        ASSERT_TRUE(value.has_value()) << label;
        EXPECT_TRUE(emitted.emplace(label, *value).second) << label << " emitted twice";
      }
      EXPECT_EQ(emitted, expected);
    }
  }
}

// As in Kafka Streams, a record may bridge a closed session and an open one (its merged
// session is still open): the closed one's final result stays the only one it gets, with
// emit on close and with suppress(until_window_closes()) alike.
TEST(EmitOnWindowClose, ASessionMergedAwayAfterItClosedGetsNoTombstone) {
  for (const bool suppressed : {false, true}) {
    SCOPED_TRACE(suppressed ? "suppress" : "emit strategy");
    StreamsBuilder builder;
    auto sessions =
        grouped(builder).windowed_by(SessionWindows::of_inactivity_gap_and_grace(5ms, 3ms));
    write(suppressed ? sessions.count().suppress(Suppressed::until_window_closes())
                     : sessions.emit_strategy(EmitStrategy::kOnWindowClose).count());
    App run(builder);
    run.send("a", 1);
    run.send("a", 9);  // [1, 1] closes at 1 + 5 + 3
    EXPECT_THAT(run.results(), ElementsAre(Result{"a@1/1", 1}));
    run.send("a", 4);  // merges [1, 1] and [9, 9] into [1, 9]
    run.send("a", 17);
    EXPECT_THAT(run.results(), ElementsAre(Result{"a@1/9", 3}));
  }
}

TEST(EmitOnWindowClose, HoldsWindowsInABufferStoreOfTheAggregationsNode) {
  StreamsBuilder builder;
  write(grouped(builder)
            .windowed_by(TimeWindows::of_size_with_no_grace(10ms))
            .emit_strategy(EmitStrategy::kOnWindowClose)
            .count({.name = "counts"}));
  const std::string description = build(builder).describe();
  EXPECT_THAT(description, HasSubstr("stores: [counts, counts-emit-on-window-close-store]"));
  EXPECT_THAT(description, ::testing::Not(HasSubstr("SUPPRESS")));
}

TEST(Suppress, UntilTimeLimitEmitsTheLatestUpdatePerKeyOncePerLimit) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .group_by_key()
      .count()
      .suppress(Suppressed::until_time_limit(10ms))
      .to_stream()
      .to("out");
  App run(builder);
  run.send("a", 0);
  run.send("a", 5);
  run.send("b", 6);
  EXPECT_THAT(run.results(), IsEmpty());
  run.send("c", 10);  // a's first update was at 0: due at 10
  EXPECT_THAT(run.results(), ElementsAre(Result{"a", 2}));
}

TEST(Suppress, AFullBufferEmitsEarlyOrStopsTheTask) {
  auto make = [](BufferFull policy) {
    StreamsBuilder builder;
    builder.stream<std::string, std::string>("in")
        .group_by_key()
        .count()
        .suppress(Suppressed::until_time_limit(1h, {.max_records = 2, .when_full = policy}))
        .to_stream()
        .to("out");
    return builder;
  };
  auto early = make(BufferFull::kEmitEarly);
  App emits(early);
  emits.send("a", 0);
  emits.send("b", 1);
  emits.send("c", 2);
  EXPECT_THAT(emits.results(), ElementsAre(Result{"a", 1}));

  auto shutdown = make(BufferFull::kShutdown);
  App stops(shutdown);
  stops.send("a", 0);
  stops.send("b", 1);
  try {
    stops.send("c", 2);
    FAIL() << "expected the task to stop";
  } catch (const testing::TaskFailed& e) {
    EXPECT_THAT(e.what(), HasSubstr("is full (3 records"));
  }
}

TEST(Suppress, IdleStreamTimeAdvanceClosesWindowsWithoutNewRecords) {
  StreamsBuilder builder;
  write(grouped(builder)
            .windowed_by(TimeWindows::of_size_with_no_grace(10ms))
            .count()
            .suppress(Suppressed::until_window_closes()));
  App run(builder, {.stream_time_idle_advance = 100ms});
  run.send("a", 1);
  run.driver.advance_wall_clock_time(50ms);
  EXPECT_THAT(run.results(), IsEmpty());
  run.driver.advance_wall_clock_time(60ms);  // idle for 110 ms: stream time moves on by 110 ms
  EXPECT_THAT(run.results(), ElementsAre(Result{"a@0/10", 1}));
}

TEST(WindowedDsl, MistakesAreReportedAtBuild) {
  StreamsBuilder builder;
  auto stream = builder.stream<std::string, std::string>("in");
  stream.group_by_key()
      .windowed_by(TimeWindows::of_size_and_grace(10ms, 5ms))
      .count({.name = "short", .retention = 12ms});
  stream.group_by_key()
      .windowed_by(TimeWindows::of_size_with_no_grace(10ms).advance_by(20ms))
      .count({.name = "hop"});
  stream.group_by_key().count().suppress(Suppressed::until_window_closes());
  auto topology = builder.build();
  ASSERT_FALSE(topology);
  EXPECT_THAT(topology.error().message(),
              HasSubstr("store short: retention 12 ms is less than its windows need (size + "
                        "grace = 15 ms)"));
  EXPECT_THAT(topology.error().message(), HasSubstr("store hop: TimeWindows: the advance must be"));
  EXPECT_THAT(topology.error().message(),
              HasSubstr("until_window_closes() needs a windowed table"));
}

TEST(Windows, InvalidWindowsSayWhatIsWrong) {
  EXPECT_THAT(TimeWindows::of_size_with_no_grace(0ms).validate().message(),
              HasSubstr("TimeWindows: the window size must be positive, got 0 ms"));
  EXPECT_THAT(TimeWindows::of_size_with_no_grace(10ms).advance_by(11ms).validate().message(),
              HasSubstr("TimeWindows: the advance must be positive and at most the size 10 ms, "
                        "got 11 ms"));
  EXPECT_THAT(TimeWindows::of_size_and_grace(10ms, -1ms).validate().message(),
              HasSubstr("TimeWindows: the grace period must not be negative, got -1 ms"));
  EXPECT_THAT(SlidingWindows::of_time_difference_with_no_grace(0ms).validate().message(),
              HasSubstr("SlidingWindows: the time difference must be positive, got 0 ms"));
  EXPECT_THAT(SlidingWindows::of_time_difference_and_grace(5ms, -2ms).validate().message(),
              HasSubstr("SlidingWindows: the grace period must not be negative, got -2 ms"));
  EXPECT_THAT(SessionWindows::of_inactivity_gap_with_no_grace(-1ms).validate().message(),
              HasSubstr("SessionWindows: the inactivity gap must be positive, got -1 ms"));
  EXPECT_THAT(SessionWindows::of_inactivity_gap_and_grace(5ms, -1ms).validate().message(),
              HasSubstr("SessionWindows: the grace period must not be negative, got -1 ms"));
  EXPECT_TRUE(SessionWindows::of_inactivity_gap_and_grace(5ms, 0ms).validate().ok());
  EXPECT_TRUE(SlidingWindows::of_time_difference_and_grace(5ms, 0ms).validate().ok());
}

}  // namespace
}  // namespace brook
