// What only the Kafka backend does, against a real Apache Kafka broker (tests/kafka_cluster.h).
// What both logs do is in tests/contract/backend_contract_test.cc.
#include "backend/kafka/kafka_backend.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kafka_cluster.h"
#include "topic_reader.h"

namespace brook::internal {
namespace {

using ::brook::testing::read_partition;
using ::brook::testing::unique_name;
using ::brook::testing::values_of;
using ::testing::ElementsAre;

class KafkaBackendTest : public ::brook::testing::KafkaFixture {
 protected:
  std::string create(const std::string& prefix, std::int32_t partitions,
                     std::map<std::string, std::string> configs = {}) {
    std::string name = unique_name(prefix);
    auto s = kafka_->admin().create_topic(
        {.name = name, .partitions = partitions, .configs = std::move(configs)});
    EXPECT_TRUE(s.ok()) << s.to_string();
    return name;
  }
  std::unique_ptr<Producer> producer(const std::string& transactional_id = "") {
    auto p = kafka_->make_producer({.client_id = "test", .transactional_id = transactional_id});
    EXPECT_TRUE(p) << p.error().to_string();
    return p ? std::move(*p) : nullptr;
  }
};

TEST_F(KafkaBackendTest, AnUnreachableClusterIsAnErrorNamingIt) {
  auto backend = open_kafka_backend(
      {.bootstrap_servers = "127.0.0.1:1", .timeout = std::chrono::milliseconds(2000)});
  ASSERT_FALSE(backend);
  EXPECT_EQ(backend.error().code(), StatusCode::kIoError);
  EXPECT_THAT(backend.error().message(), ::testing::HasSubstr("127.0.0.1:1"));
}

TEST_F(KafkaBackendTest, AWrongClientSettingIsAnErrorNamingIt) {
  auto backend =
      open_kafka_backend({.bootstrap_servers = bootstrap_, .common = {{"no.such.setting", "1"}}});
  ASSERT_FALSE(backend);
  EXPECT_EQ(backend.error().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(backend.error().message(), ::testing::HasSubstr("no.such.setting"));
}

TEST_F(KafkaBackendTest, RecordsTooLargeForTheClientGoToTheHandlerOrFailTheSend) {
  const auto topic = create("refused", 1);
  auto backend = open_kafka_backend(
      {.bootstrap_servers = bootstrap_, .producer = {{"message.max.bytes", "2000"}}});
  ASSERT_TRUE(backend);
  std::vector<Status> refused;
  auto p = (*backend)->make_producer({.on_refused = [&](const Status& s) {
    refused.push_back(s);
    return Status();
  }});
  ASSERT_TRUE(p);
  EXPECT_TRUE((*p)->send({.topic = topic, .value = std::string(5000, 'x')}).ok());
  EXPECT_TRUE((*p)->send({.topic = topic, .value = "small"}).ok());
  EXPECT_TRUE((*p)->flush().ok());
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].code(), StatusCode::kInvalidArgument) << refused[0].to_string();
  EXPECT_THAT(values_of(read_partition(*kafka_, {topic, Partition(0)})), ElementsAre("small"));

  auto strict = (*backend)->make_producer({});  // no handler: a refusal is an error
  EXPECT_EQ((*strict)->send({.topic = topic, .value = std::string(5000, 'x')}).code(),
            StatusCode::kInvalidArgument);
}

// Kafka writes a transaction's records as they are sent, then a marker: the high watermark
// passes an open transaction, read_committed readers stop before it, and read_uncommitted
// ones see aborted records too. (What both logs do is in tests/contract/.)
TEST_F(KafkaBackendTest, OpenTransactionsAreBeforeTheStableEndAndAbortedRecordsStayInTheLog) {
  const auto out = create("tx-out", 1);
  const TopicPartition tp{out, Partition(0)};
  auto p = producer(unique_name("tx"));
  ASSERT_TRUE(p->begin_transaction().ok());
  ASSERT_TRUE(p->send({.topic = out, .value = "a"}).ok());
  ASSERT_TRUE(p->flush().ok());
  auto& admin = kafka_->admin();
  EXPECT_EQ(*admin.list_offset(tp, {.kind = OffsetSpec::Kind::kLatest}), Offset(0));
  EXPECT_EQ(*admin.list_offset(tp, {.kind = OffsetSpec::Kind::kHighWatermark}), Offset(1));
  ASSERT_TRUE(p->commit_transaction().ok());
  // The commit marker follows the commit shortly; then the stable end is past it.
  Offset stable(0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (stable != Offset(2) && std::chrono::steady_clock::now() < deadline) {
    stable = *admin.list_offset(tp, {.kind = OffsetSpec::Kind::kLatest});
  }
  EXPECT_EQ(stable, Offset(2));

  ASSERT_TRUE(p->begin_transaction().ok());
  ASSERT_TRUE(p->send({.topic = out, .value = "aborted"}).ok());
  ASSERT_TRUE(p->flush().ok());  // written, then aborted
  ASSERT_TRUE(p->abort_transaction().ok());
  ASSERT_TRUE(p->begin_transaction().ok());
  ASSERT_TRUE(p->send({.topic = out, .value = "b"}).ok());
  ASSERT_TRUE(p->commit_transaction().ok());

  EXPECT_THAT(values_of(read_partition(*kafka_, tp)), ElementsAre("a", "b"));
  EXPECT_THAT(values_of(read_partition(*kafka_, tp, Offset(0), false)),
              ElementsAre("a", "aborted", "b"));
}

// librdkafka reads a timestamp of 0 as "now" (the embedded log keeps 0): docs/compatibility.md.
TEST_F(KafkaBackendTest, ARecordWithTimestampZeroGetsTheTimeItWasSent) {
  const auto topic = create("zero-time", 1);
  auto p = producer();
  const auto sent_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  ASSERT_TRUE(p->send({.topic = topic, .timestamp = Timestamp(0), .value = "v"}).ok());
  ASSERT_TRUE(p->flush().ok());
  const auto records = read_partition(*kafka_, {topic, Partition(0)});
  ASSERT_EQ(records.size(), 1u);
  EXPECT_GE(records[0].timestamp.value(), sent_ms - 1);
}

TEST_F(KafkaBackendTest, LagIsUnknownFirstThenCountsWhatIsLeftAndIsZeroPastTheEndMarker) {
  const auto topic = create("lag", 1);
  const TopicPartition tp{topic, Partition(0)};
  auto p = producer(unique_name("tx"));
  ASSERT_TRUE(p->begin_transaction().ok());
  for (const char* v : {"a", "b", "c", "d", "e"}) {
    ASSERT_TRUE(p->send({.topic = topic, .value = v}).ok());
  }
  ASSERT_TRUE(p->commit_transaction().ok());  // records at 0..4, the marker at 5
  auto c = kafka_->make_consumer({.max_poll_records = 2});
  ASSERT_TRUE(c) << c.error().to_string();
  auto& consumer = **c;
  ASSERT_TRUE(consumer.assign({tp}).ok());
  EXPECT_FALSE(consumer.lag(tp));  // nothing read yet

  std::vector<ConsumerRecord> records;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (records.empty() && std::chrono::steady_clock::now() < deadline) {
    auto batch = consumer.poll(std::chrono::milliseconds(100));
    ASSERT_TRUE(batch);
    records.insert(records.end(), batch->begin(), batch->end());
  }
  ASSERT_EQ(records.size(), 2U);
  ASSERT_TRUE(consumer.lag(tp));
  EXPECT_GT(*consumer.lag(tp), 0);  // c, d, e (and the marker) are still to come

  while (std::chrono::steady_clock::now() < deadline) {
    auto batch = consumer.poll(std::chrono::milliseconds(100));
    ASSERT_TRUE(batch);
    records.insert(records.end(), batch->begin(), batch->end());
    if (auto position = consumer.position(tp); position && *position == Offset(6)) break;
  }
  EXPECT_THAT(values_of(records), ElementsAre("a", "b", "c", "d", "e"));
  EXPECT_EQ(consumer.lag(tp), std::optional<std::int64_t>(0));
}

}  // namespace
}  // namespace brook::internal
