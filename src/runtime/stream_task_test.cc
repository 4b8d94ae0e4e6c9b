#include "runtime/stream_task.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/streams_builder.h"
#include "log_capture.h"

namespace brook::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Collected final : RecordCollector {
  std::vector<ProducerRecord> records;
  void send(const std::string& topic, const OutgoingRecord& r) override {
    records.push_back(to_producer_record(topic, r));
  }
  Result<std::int32_t> partitions(const std::string&) override { return 1; }
  std::vector<std::string> values() const {
    std::vector<std::string> out;
    for (const auto& r : records) out.push_back(r.value.value_or("<null>"));
    return out;
  }
};

ConsumerRecord record(std::string topic, std::int32_t partition, std::int64_t offset,
                      std::int64_t ts, std::optional<std::string> value) {
  return {.topic = std::move(topic),
          .partition = Partition(partition),
          .offset = Offset(offset),
          .timestamp = Timestamp(ts),
          .key = "k",
          .value = std::move(value)};
}

// A batch of `r` alone, owning it.
RecordBatch owning_batch(ConsumerRecord r) {
  auto owned = std::make_shared<const ConsumerRecord>(std::move(r));
  return batch_of(*owned, owned);
}

// A batch of the one record record() makes.
RecordBatch input(std::string topic, std::int32_t partition, std::int64_t offset, std::int64_t ts,
                  std::optional<std::string> value) {
  return owning_batch(record(std::move(topic), partition, offset, ts, std::move(value)));
}

// A topology reading int32 values from "a" and "b" and failing on value 13.
std::shared_ptr<const TopologyData> unlucky_topology() {
  StreamsBuilder builder;
  auto a = builder.stream<std::string, std::int32_t>("a", {.name = "read-a"});
  auto b = builder.stream<std::string, std::int32_t>("b", {.name = "read-b"});
  a.merge(b)
      .map_values(
          [](std::int32_t v) {
            if (v == 13) throw std::runtime_error("unlucky");
            return std::to_string(v);
          },
          {.name = "to-text"})
      .to("out");
  return internal::shared_topology_data(*builder.build());
}

std::string int32(std::int32_t v) { return *Int32Serde().serialize(v); }

class StreamTaskTest : public ::testing::Test {
 protected:
  std::unique_ptr<StreamTask> make_task(ErrorHandling errors = {}) {
    auto task = std::make_unique<StreamTask>(
        TaskId{0, 3}, unlucky_topology(),
        TaskConfig{.application_id = "app", .errors = errors, .clock = [] { return Timestamp(0); }},
        collected_, metrics_);
    EXPECT_TRUE(task->init().ok());
    return task;
  }
  void drain(StreamTask& task) {
    while (true) {
      auto more = task.process_one();
      ASSERT_TRUE(more) << more.error().to_string();
      if (!*more) return;
    }
  }

  Collected collected_;
  Metrics metrics_;
};

TEST_F(StreamTaskTest, ProcessesTheHeadWithTheSmallestTimestampAcrossPartitions) {
  auto task = make_task();
  task->add_batch(input("a", 3, 0, 10, int32(1)));
  task->add_batch(input("a", 3, 1, 30, int32(3)));
  task->add_batch(input("b", 3, 0, 20, int32(2)));
  task->add_batch(input("b", 3, 1, 5, int32(4)));  // behind a later head: waits for it
  drain(*task);
  EXPECT_THAT(collected_.values(), ElementsAre("1", "2", "4", "3"));
  EXPECT_EQ(task->stream_time(), Timestamp(30));
  EXPECT_EQ(metrics_.total("process-total"), 4);
}

// Input waiting (max.task.idle.ms): the task reads a-3 and b-3; `lag_` says what the log
// holds for each beyond what was handed over (absent: not known yet); `now_` is the clock.
class WaitingTaskTest : public StreamTaskTest {
 protected:
  std::unique_ptr<StreamTask> make_waiting_task(std::chrono::milliseconds max_idle) {
    auto task = std::make_unique<StreamTask>(
        TaskId{0, 3}, unlucky_topology(),
        TaskConfig{.application_id = "app",
                   .clock = [this] { return now_; },
                   .input_wait = InputWait{.max_idle = max_idle,
                                           .partitions = {{"a", Partition(3)}, {"b", Partition(3)}},
                                           .lag =
                                               [this](const TopicPartition& tp) {
                                                 auto it = lag_.find(tp.topic);
                                                 return it == lag_.end()
                                                            ? std::nullopt
                                                            : std::optional<std::int64_t>(
                                                                  it->second);
                                               }}},
        collected_, metrics_);
    EXPECT_TRUE(task->init().ok());
    return task;
  }

  std::map<std::string, std::int64_t> lag_;
  Timestamp now_{1'000};
};

TEST_F(WaitingTaskTest, WaitsForAnEmptyInputWhoseRecordsAreOnTheirWay) {
  auto task = make_waiting_task(std::chrono::milliseconds(0));
  task->add_batch(input("a", 3, 0, 30, int32(3)));
  lag_ = {{"a", 0}, {"b", 2}};  // b's records, older ones among them, are still in the log
  drain(*task);
  EXPECT_TRUE(collected_.records.empty());
  EXPECT_EQ(task->buffered(), 1U);

  task->add_batch(input("b", 3, 0, 10, int32(1)));
  task->add_batch(input("b", 3, 1, 20, int32(2)));
  lag_["b"] = 0;
  drain(*task);
  EXPECT_THAT(collected_.values(), ElementsAre("1", "2", "3"));  // in timestamp order
  EXPECT_EQ(metrics_.total("enforced-processing-total"), 1);     // "3", with b empty
}

TEST_F(WaitingTaskTest, WaitsWhileAnEmptyInputsLagIsUnknown) {
  auto task = make_waiting_task(std::chrono::milliseconds(0));
  task->add_batch(input("a", 3, 0, 30, int32(3)));
  lag_ = {{"a", 0}};
  drain(*task);
  EXPECT_TRUE(collected_.records.empty());
  lag_["b"] = 0;
  drain(*task);
  EXPECT_THAT(collected_.values(), ElementsAre("3"));
}

TEST_F(WaitingTaskTest, WaitsUpToMaxIdleForAnInputThatIsCaughtUp) {
  auto task = make_waiting_task(std::chrono::milliseconds(100));
  lag_ = {{"a", 0}, {"b", 0}};
  task->add_batch(input("a", 3, 0, 30, int32(3)));
  drain(*task);
  now_ = Timestamp(1'099);
  drain(*task);
  EXPECT_TRUE(collected_.records.empty());
  now_ = Timestamp(1'100);
  drain(*task);
  EXPECT_THAT(collected_.values(), ElementsAre("3"));

  // A record of b resets its patience: the next time b runs dry the task waits afresh.
  task->add_batch(input("b", 3, 0, 40, int32(4)));
  task->add_batch(input("a", 3, 1, 50, int32(5)));
  drain(*task);
  EXPECT_THAT(collected_.values(), ElementsAre("3", "4"));
  now_ = Timestamp(1'200);
  drain(*task);
  EXPECT_THAT(collected_.values(), ElementsAre("3", "4", "5"));
}

TEST_F(StreamTaskTest, WithoutInputWaitingProcessesWhateverIsBuffered) {
  auto task = make_task();  // the test driver's and max.task.idle.ms = -1's way
  task->add_batch(input("a", 3, 0, 30, int32(3)));
  drain(*task);
  EXPECT_THAT(collected_.values(), ElementsAre("3"));
}

TEST_F(StreamTaskTest, StreamTimeNeverGoesBackwards) {
  auto task = make_task();
  EXPECT_EQ(task->stream_time(), Timestamp::min());
  task->add_batch(input("a", 3, 0, 100, int32(1)));
  task->add_batch(input("a", 3, 1, 50, int32(2)));
  drain(*task);
  EXPECT_EQ(task->stream_time(), Timestamp(100));
}

TEST_F(StreamTaskTest, DeserializationErrorFailsTheTaskByDefault) {
  auto task = make_task();
  task->add_batch(input("a", 3, 7, 1, "abc"));
  auto result = task->process_one();
  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message(),
              HasSubstr("task 0_3: deserialization error in node read-a at a-3@7"));
  EXPECT_THAT(result.error().message(), HasSubstr("int32 serde: expected 4 bytes, got 3"));
  EXPECT_EQ(metrics_.total("deserialization-errors-total"), 1);
}

TEST_F(StreamTaskTest, LogAndContinueSkipsBadRecordsAndCountsThem) {
  auto task = make_task({.on_deserialization_error = ErrorAction::kLogAndContinue,
                         .on_processing_error = ErrorAction::kLogAndContinue});
  task->add_batch(input("a", 3, 0, 1, "abc"));
  task->add_batch(input("a", 3, 1, 2, int32(13)));
  task->add_batch(input("a", 3, 2, 3, int32(7)));
  drain(*task);
  EXPECT_THAT(collected_.values(), ElementsAre("7"));
  EXPECT_EQ(metrics_.total("deserialization-errors-total"), 1);
  EXPECT_EQ(metrics_.total("processing-errors-total"), 1);
  EXPECT_EQ(metrics_.total("dropped-records-total"), 2);
}

TEST_F(StreamTaskTest, DeadLetterKeepsTheOriginalBytesAndExplainsWhy) {
  auto task = make_task({.on_deserialization_error = ErrorAction::kDeadLetter,
                         .on_processing_error = ErrorAction::kDeadLetter,
                         .dead_letter_topic = "dlq"});
  auto bad = record("a", 3, 4, 1, "abc");
  bad.headers.add("origin", "sensor-1");
  task->add_batch(owning_batch(bad));
  task->add_batch(input("b", 3, 9, 2, int32(13)));
  drain(*task);
  ASSERT_EQ(collected_.records.size(), 2u);
  const auto& first = collected_.records[0];
  EXPECT_EQ(first.topic, "dlq");
  EXPECT_EQ(first.key, "k");
  EXPECT_EQ(first.value, "abc");
  EXPECT_EQ(first.timestamp, Timestamp(1));
  EXPECT_EQ(first.headers.last("origin")->value, "sensor-1");
  EXPECT_EQ(first.headers.last(kErrorKindHeader)->value, "deserialization");
  EXPECT_EQ(first.headers.last(kErrorNodeHeader)->value, "read-a");
  EXPECT_EQ(first.headers.last(kErrorTopicHeader)->value, "a");
  EXPECT_EQ(first.headers.last(kErrorPartitionHeader)->value, "3");
  EXPECT_EQ(first.headers.last(kErrorOffsetHeader)->value, "4");
  EXPECT_THAT(*first.headers.last(kErrorMessageHeader)->value, HasSubstr("expected 4 bytes"));
  const auto& second = collected_.records[1];
  EXPECT_EQ(second.value, int32(13));
  EXPECT_EQ(second.headers.last(kErrorKindHeader)->value, "processing");
  EXPECT_EQ(second.headers.last(kErrorNodeHeader)->value, "to-text");
  EXPECT_EQ(second.headers.last(kErrorMessageHeader)->value, "unlucky");
  EXPECT_EQ(metrics_.total("dead-letter-records-total"), 2);
}

TEST_F(StreamTaskTest, ProcessingErrorFailsTheTaskByDefaultNamingTheNode) {
  auto task = make_task();
  task->add_batch(input("a", 3, 0, 1, int32(13)));
  auto result = task->process_one();
  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message(),
              HasSubstr("task 0_3: processing error in node to-text at a-3@0: unlucky"));
}

// Reads int32 values of "a" and "b" as their timestamps, using the partition time for
// negative ones, and writes "out".
std::shared_ptr<const TopologyData> value_time_topology() {
  StreamsBuilder builder;
  Consumed<std::string, std::int32_t> consumed{
      .timestamp_extractor = [](const Record<std::string, std::int32_t>& r,
                                Timestamp) { return Timestamp(r.value); },
      .on_invalid_timestamp = InvalidTimestamp::kUsePartitionTime};
  builder.stream<std::string, std::int32_t>(std::vector<std::string>{"a", "b"}, consumed).to("out");
  return internal::shared_topology_data(*builder.build());
}

TEST(StreamTask, PartitionTimeIsKeptPerInputPartition) {
  Collected collected;
  Metrics metrics;
  StreamTask task(TaskId{0, 3}, value_time_topology(),
                  TaskConfig{.application_id = "app", .clock = [] { return Timestamp(0); }},
                  collected, metrics);
  ASSERT_TRUE(task.init().ok());
  task.add_batch(input("a", 3, 0, 1, int32(100)));
  task.add_batch(input("b", 3, 0, 2, int32(20)));
  task.add_batch(input("b", 3, 1, 3, int32(-1)));  // b's partition time, not stream time
  task.add_batch(input("a", 3, 1, 4, int32(-1)));
  while (true) {
    auto more = task.process_one();
    ASSERT_TRUE(more) << more.error().to_string();
    if (!*more) break;
  }
  std::vector<std::int64_t> out;
  for (const auto& r : collected.records) out.push_back(r.timestamp.value());
  EXPECT_THAT(out, ElementsAre(100, 20, 20, 100));
  EXPECT_EQ(task.stream_time(), Timestamp(100));
}

TEST(StreamTask, GoesThroughItsStatesAndRefusesAnIllegalTransition) {
  Collected collected;
  Metrics metrics;
  StreamTask task(TaskId{0, 3}, value_time_topology(),
                  TaskConfig{.application_id = "app", .clock = [] { return Timestamp(0); }},
                  collected, metrics);
  EXPECT_EQ(task.state(), TaskState::kCreated);
  ASSERT_TRUE(task.init().ok());
  EXPECT_EQ(task.state(), TaskState::kRestoring);
  EXPECT_EQ(task.init().code(), StatusCode::kFailedPrecondition);
  task.restored();
  EXPECT_EQ(task.state(), TaskState::kRunning);
  EXPECT_THROW(task.restored(), std::logic_error);
  EXPECT_EQ(task.state(), TaskState::kRunning);
  task.close();
  EXPECT_EQ(task.state(), TaskState::kClosed);
  task.close();  // idempotent
  EXPECT_EQ(task.init().code(), StatusCode::kFailedPrecondition);
}

TEST(TaskState, TheLegalTransitionsAreKafkaStreamsWithoutSuspension) {
  using enum TaskState;
  const TaskState all[] = {kCreated, kRestoring, kRunning, kClosed};
  std::vector<std::string> legal;
  for (TaskState from : all) {
    for (TaskState to : all) {
      if (is_legal_transition(from, to))
        legal.push_back(std::string(to_string(from)) + "->" + to_string(to));
    }
  }
  EXPECT_THAT(legal, ElementsAre("CREATED->RESTORING", "CREATED->CLOSED", "RESTORING->RUNNING",
                                 "RESTORING->CLOSED", "RUNNING->CLOSED"));
}

TEST(PartitionTimeMetadata, IsWhatKafkaStreamsCommits) {
  // TopicPartitionMetadata: base64 of version 2 and the big-endian partition time.
  EXPECT_EQ(encode_partition_time(Timestamp(1000)), "AgAAAAAAAAPo");
  EXPECT_EQ(encode_partition_time(Timestamp::min()), "Av//////////");  // unknown: -1
  EXPECT_EQ(decode_partition_time("AgAAAAAAAAPo").value(), Timestamp(1000));
  EXPECT_EQ(decode_partition_time("AQAAAAAAAAPo").value(), Timestamp(1000));  // version 1
  // Version 2 with processor metadata after the time (Kafka Streams 3.4+): ignored.
  EXPECT_EQ(decode_partition_time("AgAAAAAAAAPoAAAAAQAAAAFh").value(), Timestamp(1000));
  EXPECT_EQ(decode_partition_time("AgAAAAAAAAAo").value(), Timestamp(40));
  EXPECT_EQ(decode_partition_time("Av//////////").value(), std::nullopt);
  EXPECT_EQ(decode_partition_time("").value(), std::nullopt);
}

TEST(PartitionTimeMetadata, OtherMetadataIsAnErrorSayingWhy) {
  EXPECT_THAT(decode_partition_time("offset 12").error().message(), HasSubstr("not base64"));
  EXPECT_THAT(decode_partition_time("AwAAAAAAAAPo").error().message(),
              HasSubstr("unknown version 3"));
  EXPECT_THAT(decode_partition_time("AgAAAA==").error().message(), HasSubstr("4 bytes"));
}

TEST(StreamTask, RestoredPartitionTimesAreCommittedAgainAndSetStreamTimeToTheirMaximum) {
  Collected collected;
  Metrics metrics;
  StreamTask task(TaskId{0, 3}, value_time_topology(),
                  TaskConfig{.application_id = "app", .clock = [] { return Timestamp(0); }},
                  collected, metrics);
  ASSERT_TRUE(task.init().ok());
  const TopicPartition a{"a", Partition(3)}, b{"b", Partition(3)};
  EXPECT_EQ(task.commit_metadata(a), encode_partition_time(Timestamp::min()));
  task.restore_partition_time(a, encode_partition_time(Timestamp(100)));
  task.restore_partition_time(b, encode_partition_time(Timestamp(40)));
  EXPECT_EQ(task.stream_time(), Timestamp(100));
  EXPECT_EQ(task.commit_metadata(a), encode_partition_time(Timestamp(100)));
  EXPECT_EQ(task.commit_metadata(b), encode_partition_time(Timestamp(40)));
  task.add_batch(input("b", 3, 7, 1, int32(-1)));  // gets b's restored partition time
  ASSERT_TRUE(task.process_one().value());
  ASSERT_EQ(collected.records.size(), 1U);
  EXPECT_EQ(collected.records[0].timestamp, Timestamp(40));
}

TEST(StreamTask, CommitMetadataWithoutAPartitionTimeIsLoggedAndIgnored) {
  Collected collected;
  Metrics metrics;
  StreamTask task(TaskId{0, 3}, value_time_topology(),
                  TaskConfig{.application_id = "app", .clock = [] { return Timestamp(0); }},
                  collected, metrics);
  ASSERT_TRUE(task.init().ok());
  brook::testing::LogCapture logs;
  task.restore_partition_time({"a", Partition(3)}, "offset 12");
  EXPECT_EQ(task.stream_time(), Timestamp::min());
  EXPECT_THAT(logs.at(LogLevel::kWarn),
              ElementsAre(HasSubstr("task 0_3: the metadata committed for a-3 holds no partition "
                                    "time (not base64): \"offset 12\"")));
}

TEST(StreamTask, ARecordFailingForItsTimestampIsNotConsumed) {
  Collected collected;
  Metrics metrics;
  StreamTask task(TaskId{0, 3}, unlucky_topology(),
                  TaskConfig{.application_id = "app", .clock = [] { return Timestamp(0); }},
                  collected, metrics);
  ASSERT_TRUE(task.init().ok());
  task.add_batch(input("a", 3, 0, 5, int32(1)));
  task.add_batch(input("a", 3, 1, -2, int32(2)));
  ASSERT_TRUE(task.process_one());
  auto result = task.process_one();
  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message(),
              HasSubstr("task 0_3: invalid timestamp -2 of record a-3@1 (source read-a)"));
  EXPECT_EQ(task.consumed().at({"a", Partition(3)}), Offset(1));
  EXPECT_EQ(task.stream_time(), Timestamp(5));
  EXPECT_THAT(collected.values(), ElementsAre("1"));
}

TEST(StreamTask, DeadLetterWithoutATopicIsRejectedAtInit) {
  Collected collected;
  Metrics metrics;
  StreamTask task(TaskId{0, 0}, unlucky_topology(),
                  TaskConfig{.application_id = "app",
                             .errors = {.on_processing_error = ErrorAction::kDeadLetter},
                             .clock = [] { return Timestamp(0); }},
                  collected, metrics);
  auto status = task.init();
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("dead_letter_topic"));
}

}  // namespace
}  // namespace brook::internal
