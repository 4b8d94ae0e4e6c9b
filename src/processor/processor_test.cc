// The Processor API as a user writes it, run through the test driver.
#include "brook/processor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"

namespace brook {
namespace {

using ::testing::ElementsAre;
using testing::TopologyTestDriver;
using namespace std::chrono_literals;

using StringProcessor = Processor<std::string, std::string, std::string, std::string>;

// Counts records and, on each punctuation, forwards "<time>:<count>".
class PunctuatingCounter final : public StringProcessor {
 public:
  PunctuatingCounter(PunctuationType type, std::vector<std::int64_t>* fired)
      : type_(type), fired_(fired) {}
  void init(ProcessorContext<std::string, std::string>& context) override {
    StringProcessor::init(context);
    handle_ = context.schedule(10ms, type_, [this](Timestamp now) {
      fired_->push_back(now.value());
      this->context().forward({"count", std::to_string(count_), now, {}});
    });
  }
  void process(Record<std::string, std::string>) override {
    ++count_;
    if (count_ == 100) handle_.cancel();
  }

 private:
  PunctuationType type_;
  std::vector<std::int64_t>* fired_;
  Cancellable handle_;
  int count_ = 0;
};

Topology counter_topology(PunctuationType type, std::vector<std::int64_t>* fired) {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .process([=] { return std::make_unique<PunctuatingCounter>(type, fired); })
      .to("out");
  return *builder.build();
}

TEST(Processor, StreamTimePunctuationFiresOncePerJumpAlignedToTheInterval) {
  std::vector<std::int64_t> fired;
  TopologyTestDriver driver(counter_topology(PunctuationType::kStreamTime, &fired));
  auto in = driver.create_input_topic<std::string, std::string>("in");
  in.pipe_input("k", "v", Timestamp(3));   // first record: fires at stream time 3
  in.pipe_input("k", "v", Timestamp(7));   // before 10: nothing
  in.pipe_input("k", "v", Timestamp(10));  // fires
  in.pipe_input("k", "v", Timestamp(45));  // skipped 20, 30, 40: fires once
  in.pipe_input("k", "v", Timestamp(5));   // out of order: stream time stays 45
  in.pipe_input("k", "v", Timestamp(49));  // next is 50: nothing
  EXPECT_THAT(fired, ElementsAre(3, 10, 45));
  auto out = driver.create_output_topic<std::string, std::string>("out").read_values_to_list();
  EXPECT_THAT(out, ElementsAre("1", "3", "4"));
}

TEST(Processor, WallClockPunctuationFiresFromTheMockClockWithoutRecords) {
  std::vector<std::int64_t> fired;
  TopologyTestDriver driver(counter_topology(PunctuationType::kWallClockTime, &fired),
                            {.wall_clock_start = Timestamp(1000)});
  driver.advance_wall_clock_time(5ms);
  EXPECT_TRUE(fired.empty());
  driver.advance_wall_clock_time(5ms);
  driver.advance_wall_clock_time(25ms);
  EXPECT_THAT(fired, ElementsAre(1010, 1035));
}

TEST(Processor, CancelledPunctuationNeverFiresAgain) {
  std::vector<std::int64_t> fired;
  TopologyTestDriver driver(counter_topology(PunctuationType::kWallClockTime, &fired));
  auto in = driver.create_input_topic<std::string, std::string>("in");
  for (int i = 0; i < 100; ++i) in.pipe_input("k", "v");
  driver.advance_wall_clock_time(100ms);
  EXPECT_TRUE(fired.empty());
}

// Sends keys starting with "a" to child "left", the rest to "right"; records its metadata.
class Router final : public StringProcessor {
 public:
  explicit Router(std::vector<std::string>* seen) : seen_(seen) {}
  void process(Record<std::string, std::string> r) override {
    auto meta = context().record_metadata();
    seen_->push_back(meta->topic + "@" + std::to_string(meta->offset.value()) +
                     " t=" + std::to_string(context().current_stream_time().value()) + " task " +
                     context().task_id().to_string() + " app " +
                     std::string(context().application_id()));
    context().forward(r, r.key.starts_with("a") ? "left" : "right");
  }

 private:
  std::vector<std::string>* seen_;
};

TEST(Processor, ForwardsToANamedChildAndSeesRecordMetadata) {
  std::vector<std::string> seen;
  StreamsBuilder builder;
  auto routed = builder.stream<std::string, std::string>("in").process(
      [&] { return std::make_unique<Router>(&seen); }, {.name = "router"});
  routed.map_values([](const std::string& v) { return v; }, {.name = "left"}).to("left-out");
  routed.map_values([](const std::string& v) { return v; }, {.name = "right"}).to("right-out");
  auto topology = builder.build();
  ASSERT_TRUE(topology);
  TopologyTestDriver driver(*topology, {.application_id = "router-app"});
  auto in = driver.create_input_topic<std::string, std::string>("in");
  in.pipe_input("apple", "1", Timestamp(5));
  in.pipe_input("banana", "2", Timestamp(3));
  EXPECT_THAT(
      (driver.create_output_topic<std::string, std::string>("left-out").read_values_to_list()),
      ElementsAre("1"));
  EXPECT_THAT(
      (driver.create_output_topic<std::string, std::string>("right-out").read_values_to_list()),
      ElementsAre("2"));
  EXPECT_THAT(seen,
              ElementsAre("in@0 t=5 task 0_0 app router-app", "in@1 t=5 task 0_0 app router-app"));
}

TEST(Processor, ForwardToAnUnknownChildIsAProcessingError) {
  struct Lost final : StringProcessor {
    void process(Record<std::string, std::string> r) override { context().forward(r, "nobody"); }
  };
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .process([] { return std::make_unique<Lost>(); }, {.name = "lost"})
      .to("out");
  TopologyTestDriver driver(*builder.build());
  auto in = driver.create_input_topic<std::string, std::string>("in");
  try {
    in.pipe_input("k", "v");
    FAIL() << "expected TaskFailed";
  } catch (const testing::TaskFailed& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("processing error in node lost"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("no child node named 'nobody'"));
  }
}

TEST(Processor, InitAndCloseAreCalledOncePerTask) {
  struct Lifecycle final : StringProcessor {
    explicit Lifecycle(std::vector<std::string>* log) : log_(log) {}
    void init(ProcessorContext<std::string, std::string>& c) override {
      StringProcessor::init(c);
      log_->push_back("init");
    }
    void process(Record<std::string, std::string>) override { log_->push_back("process"); }
    void close() override { log_->push_back("close"); }
    std::vector<std::string>* log_;
  };
  std::vector<std::string> log;
  StreamsBuilder builder;
  builder.stream<std::string, std::string>("in").process(
      [&] { return std::make_unique<Lifecycle>(&log); });
  {
    TopologyTestDriver driver(*builder.build());
    driver.create_input_topic<std::string, std::string>("in").pipe_input("k", "v");
  }
  EXPECT_THAT(log, ElementsAre("init", "process", "close"));
}

}  // namespace
}  // namespace brook
