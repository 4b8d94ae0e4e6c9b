// Event time at the sources (Consumed's timestamp options) and stream time for idle tasks,
// as a user sees them through the test driver.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"

namespace brook {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TaskFailed;
using testing::TopologyTestDriver;
using namespace std::chrono_literals;

// Forwards every record unchanged and notes "<record timestamp>/<stream time>" for each.
template <class K, class V>
class Observer final : public Processor<K, V, K, V> {
 public:
  explicit Observer(std::vector<std::string>* seen) : seen_(seen) {}
  void process(Record<K, V> record) override {
    seen_->push_back(std::to_string(record.timestamp.value()) + "/" +
                     std::to_string(this->context().current_stream_time().value()));
    this->context().forward(std::move(record));
  }

 private:
  std::vector<std::string>* seen_;
};

std::vector<std::int64_t> timestamps(std::vector<Record<std::string, std::int64_t>> records) {
  std::vector<std::int64_t> out;
  for (const auto& r : records) out.push_back(r.timestamp.value());
  return out;
}

// Reads "in" (int64 values) with `consumed`, notes what an Observer sees and writes "out".
Topology observed(Consumed<std::string, std::int64_t> consumed, std::vector<std::string>* seen) {
  StreamsBuilder builder;
  builder.stream<std::string, std::int64_t>("in", std::move(consumed))
      .process([seen] { return std::make_unique<Observer<std::string, std::int64_t>>(seen); })
      .to("out");
  return *builder.build();
}

TEST(EventTime, AValueFieldExtractorDrivesStreamTimeAndOutputTimestamps) {
  std::vector<std::string> seen;
  std::vector<std::int64_t> partition_times;
  TopologyTestDriver driver(
      observed({.timestamp_extractor =
                    [&](const Record<std::string, std::int64_t>& r, Timestamp partition_time) {
                      partition_times.push_back(partition_time.value());
                      return Timestamp(r.value);
                    }},
               &seen));
  auto in = driver.create_input_topic<std::string, std::int64_t>("in");
  in.pipe_input("a", 100, Timestamp(7));  // the log's timestamps are ignored
  in.pipe_input("a", 50, Timestamp(8));
  in.pipe_input("a", 300, Timestamp(9));
  EXPECT_THAT(seen, ElementsAre("100/100", "50/100", "300/300"));
  EXPECT_THAT(partition_times, ElementsAre(Timestamp::min().value(), 100, 100));
  auto out = driver.create_output_topic<std::string, std::int64_t>("out");
  EXPECT_THAT(timestamps(out.read_records_to_list()), ElementsAre(100, 50, 300));
}

TEST(EventTime, ATableSourceUsesItsExtractorToo) {
  StreamsBuilder builder;
  builder
      .table<std::string, std::int64_t>(
          "t", {.timestamp_extractor = [](const Record<std::string, std::optional<std::int64_t>>& r,
                                          Timestamp) { return Timestamp(r.value.value_or(0)); }})
      .to_stream()
      .to("out");
  TopologyTestDriver driver(*builder.build());
  driver.create_input_topic<std::string, std::int64_t>("t").pipe_input("k", 1234, Timestamp(1));
  auto out = driver.create_output_topic<std::string, std::optional<std::int64_t>>("out");
  EXPECT_EQ(out.read_record().timestamp, Timestamp(1234));
}

TEST(EventTime, WallClockTimeIsTheTasksClockWhenTheRecordIsProcessed) {
  std::vector<std::string> seen;
  TopologyTestDriver driver(observed({.wall_clock_time = true}, &seen),
                            {.wall_clock_start = Timestamp(1000)});
  auto in = driver.create_input_topic<std::string, std::int64_t>("in");
  in.pipe_input("a", 1, Timestamp(5));
  driver.advance_wall_clock_time(250ms);
  in.pipe_input("a", 2, Timestamp(6));
  EXPECT_THAT(seen, ElementsAre("1000/1000", "1250/1250"));
  auto out = driver.create_output_topic<std::string, std::int64_t>("out");
  EXPECT_THAT(timestamps(out.read_records_to_list()), ElementsAre(1000, 1250));
}

TEST(EventTime, AnExtractorAndWallClockTimeTogetherAreABuildError) {
  StreamsBuilder builder;
  builder
      .stream<std::string, std::string>(
          "in", {.name = "both",
                 .timestamp_extractor = [](const auto&, Timestamp) { return Timestamp(0); },
                 .wall_clock_time = true})
      .to("out");
  auto topology = builder.build();
  ASSERT_FALSE(topology);
  EXPECT_THAT(topology.error().message(),
              HasSubstr("source both: Consumed sets both timestamp_extractor and wall_clock_time"));
}

TEST(EventTime, AnExtractorThatThrowsIsAProcessingErrorOfTheSource) {
  std::vector<std::string> seen;
  TopologyTestDriver driver(
      observed({.name = "read-in",
                .timestamp_extractor =
                    [](const Record<std::string, std::int64_t>& r, Timestamp) {
                      if (r.value == 0) throw std::runtime_error("no time field");
                      return Timestamp(r.value);
                    }},
               &seen),
      {.errors = {.on_processing_error = ErrorAction::kLogAndContinue}});
  auto in = driver.create_input_topic<std::string, std::int64_t>("in");
  in.pipe_input("a", 0);
  in.pipe_input("a", 70);
  EXPECT_THAT(seen, ElementsAre("70/70"));
  EXPECT_EQ(driver.metrics().total("processing-errors-total"), 1);
  EXPECT_EQ(driver.metrics().total("dropped-records-total"), 1);
}

TEST(EventTime, AnInvalidTimestampFailsTheTaskByDefaultNamingTheRecord) {
  std::vector<std::string> seen;
  TopologyTestDriver driver(observed({.name = "read-in"}, &seen));
  auto in = driver.create_input_topic<std::string, std::int64_t>("in");
  in.pipe_input("a", 1, Timestamp(10));
  try {
    in.pipe_input("a", 2, Timestamp(-5));
    FAIL() << "expected TaskFailed";
  } catch (const TaskFailed& e) {
    EXPECT_THAT(e.status().message(),
                HasSubstr("invalid timestamp -5 of record in-0@1 (source read-in)"));
    EXPECT_THAT(e.status().message(), HasSubstr("InvalidTimestamp::kFail"));
  }
  EXPECT_THAT(seen, ElementsAre("10/10"));
}

TEST(EventTime, SkipDropsRecordsWithAnInvalidTimestampAndCountsThem) {
  std::vector<std::string> seen;
  TopologyTestDriver driver(
      observed({.timestamp_extractor = [](const Record<std::string, std::int64_t>& r,
                                          Timestamp) { return Timestamp(r.value); },
                .on_invalid_timestamp = InvalidTimestamp::kSkip},
               &seen));
  auto in = driver.create_input_topic<std::string, std::int64_t>("in");
  in.pipe_input("a", 10);
  in.pipe_input("a", -1);
  in.pipe_input("a", 20);
  in.pipe_input("a", -7);
  EXPECT_THAT(seen, ElementsAre("10/10", "20/20"));
  EXPECT_EQ(driver.metrics().total("dropped-records-total"), 2);
  EXPECT_EQ(driver.metrics().total("process-total"), 4);
}

TEST(EventTime, UsePartitionTimeGivesAnInvalidRecordThePartitionTime) {
  std::vector<std::string> seen;
  TopologyTestDriver driver(
      observed({.timestamp_extractor = [](const Record<std::string, std::int64_t>& r,
                                          Timestamp) { return Timestamp(r.value); },
                .on_invalid_timestamp = InvalidTimestamp::kUsePartitionTime},
               &seen));
  auto in = driver.create_input_topic<std::string, std::int64_t>("in");
  in.pipe_input("a", 100);
  in.pipe_input("a", 40);  // valid, late: partition time stays 100
  in.pipe_input("a", -1);
  EXPECT_THAT(seen, ElementsAre("100/100", "40/100", "100/100"));
  auto out = driver.create_output_topic<std::string, std::int64_t>("out");
  EXPECT_THAT(timestamps(out.read_records_to_list()), ElementsAre(100, 40, 100));
}

TEST(EventTime, UsePartitionTimeWithoutOneYetFailsSayingSo) {
  std::vector<std::string> seen;
  TopologyTestDriver driver(observed(
      {.name = "read-in", .on_invalid_timestamp = InvalidTimestamp::kUsePartitionTime}, &seen));
  auto in = driver.create_input_topic<std::string, std::int64_t>("in");
  try {
    in.pipe_input("a", 1, Timestamp(-3));
    FAIL() << "expected TaskFailed";
  } catch (const TaskFailed& e) {
    EXPECT_THAT(e.status().message(),
                HasSubstr("invalid timestamp -3 of record in-0@0 (source read-in), and no "
                          "partition time yet"));
  }
  EXPECT_TRUE(seen.empty());
}

// Fires a stream-time punctuation every second, noting "<now>/<current stream time>".
class StreamTimeWatch final
    : public Processor<std::string, std::int64_t, std::string, std::int64_t> {
 public:
  explicit StreamTimeWatch(std::vector<std::string>* fired) : fired_(fired) {}
  void init(ProcessorContext<std::string, std::int64_t>& context) override {
    Processor::init(context);
    context.schedule(1s, PunctuationType::kStreamTime, [this](Timestamp now) {
      fired_->push_back(std::to_string(now.value()) + "/" +
                        std::to_string(this->context().current_stream_time().value()));
    });
  }
  void process(Record<std::string, std::int64_t>) override {}

 private:
  std::vector<std::string>* fired_;
};

Topology watched(std::vector<std::string>* fired) {
  StreamsBuilder builder;
  builder.stream<std::string, std::int64_t>("in").process(
      [fired] { return std::make_unique<StreamTimeWatch>(fired); });
  return *builder.build();
}

TEST(IdleStreamTime, AdvancesWithTheClockAfterTheIdlePeriodAndFiresPunctuations) {
  std::vector<std::string> fired;
  TopologyTestDriver driver(watched(&fired), {.stream_time_idle_advance = 1000ms});
  auto in = driver.create_input_topic<std::string, std::int64_t>("in");
  in.pipe_input("a", 0, Timestamp(5000));
  EXPECT_THAT(fired, ElementsAre("5000/5000"));
  driver.advance_wall_clock_time(999ms);  // not idle long enough: stream time stays
  EXPECT_THAT(fired, ElementsAre("5000/5000"));
  driver.advance_wall_clock_time(1ms);  // idle for 1 s: stream time + 1 s
  EXPECT_THAT(fired, ElementsAre("5000/5000", "6000/6000"));
  driver.advance_wall_clock_time(500ms);  // still idle: moves on with the clock
  driver.advance_wall_clock_time(500ms);
  EXPECT_THAT(fired, ElementsAre("5000/5000", "6000/6000", "7000/7000"));

  // A record below the advanced stream time is late; it leaves stream time where it is and
  // the task is busy again for a full idle period.
  in.pipe_input("a", 0, Timestamp(6800));
  driver.advance_wall_clock_time(999ms);
  EXPECT_EQ(fired.size(), 3u);
  driver.advance_wall_clock_time(1ms);
  EXPECT_THAT(fired, ElementsAre("5000/5000", "6000/6000", "7000/7000", "8000/8000"));
}

TEST(IdleStreamTime, NeverStartsStreamTimeWithoutAFirstRecord) {
  std::vector<std::string> fired;
  TopologyTestDriver driver(watched(&fired), {.stream_time_idle_advance = 10ms});
  driver.advance_wall_clock_time(5s);
  driver.advance_wall_clock_time(5s);
  EXPECT_TRUE(fired.empty());
  driver.create_input_topic<std::string, std::int64_t>("in").pipe_input("a", 0, Timestamp(100));
  EXPECT_THAT(fired, ElementsAre("100/100"));  // from the record, not from the clock
}

TEST(IdleStreamTime, IsOffByDefault) {
  std::vector<std::string> fired;
  TopologyTestDriver driver(watched(&fired));
  driver.create_input_topic<std::string, std::int64_t>("in").pipe_input("a", 0, Timestamp(5000));
  driver.advance_wall_clock_time(1h);
  EXPECT_THAT(fired, ElementsAre("5000/5000"));
}

}  // namespace
}  // namespace brook
