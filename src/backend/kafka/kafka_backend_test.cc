// The Kafka backend against a real Apache Kafka broker (see tests/kafka_cluster.h).
#include "backend/kafka/kafka_backend.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kafka_cluster.h"

namespace brook::internal {
namespace {

using ::brook::testing::unique_name;
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
  std::unique_ptr<Consumer> consumer(const std::string& group = "", bool read_committed = true) {
    auto c = kafka_->make_consumer({.group_id = group, .read_committed = read_committed});
    EXPECT_TRUE(c) << c.error().to_string();
    return c ? std::move(*c) : nullptr;
  }
  // Reads `partition` from `from` until its position reaches the end the admin reports.
  std::vector<ConsumerRecord> read_all(const TopicPartition& partition, Offset from = Offset(0),
                                       bool read_committed = true) {
    auto end = kafka_->admin().list_offset(partition, {.kind = OffsetSpec::Kind::kLatest});
    EXPECT_TRUE(end);
    auto c = consumer("", read_committed);
    EXPECT_TRUE(c->assign({partition}).ok());
    EXPECT_TRUE(c->seek(partition, from).ok());
    std::vector<ConsumerRecord> out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      auto records = c->poll(std::chrono::milliseconds(100));
      if (!records) {
        ADD_FAILURE() << records.error().to_string();
        break;
      }
      for (auto& r : *records) out.push_back(std::move(r));
      auto position = c->position(partition);
      if (position && *position >= *end) break;
    }
    return out;
  }
  static std::vector<std::string> values(const std::vector<ConsumerRecord>& records) {
    std::vector<std::string> out;
    for (const auto& r : records) out.push_back(r.value.value_or("<null>"));
    return out;
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

TEST_F(KafkaBackendTest, TopicsAreCreatedDescribedListedAndDeleted) {
  const auto name = create("admin", 3, {{"cleanup.policy", "compact"}});
  auto& admin = kafka_->admin();
  EXPECT_EQ(admin.create_topic({.name = name, .partitions = 3}).code(), StatusCode::kAlreadyExists);
  auto description = admin.describe_topic(name);
  ASSERT_TRUE(description) << description.error().to_string();
  EXPECT_EQ(description->partitions, 3);
  EXPECT_EQ(description->configs.at("cleanup.policy"), "compact");
  auto topics = admin.list_topics();
  ASSERT_TRUE(topics);
  EXPECT_THAT(*topics, ::testing::Contains(name));
  ASSERT_TRUE(admin.delete_topic(name).ok());
  EXPECT_EQ(admin.describe_topic(unique_name("missing")).error().code(), StatusCode::kNotFound);
}

TEST_F(KafkaBackendTest, RecordsRoundTripWithNullsHeadersAndTimestamps) {
  const auto topic = create("roundtrip", 1);
  auto p = producer();
  Headers headers;
  headers.add("h", "v");
  headers.add("empty", std::nullopt);
  ASSERT_TRUE(p->send({.topic = topic,
                       .timestamp = Timestamp(1'700'000'000'000),
                       .key = "k",
                       .value = "v",
                       .headers = headers})
                  .ok());
  ASSERT_TRUE(p->send({.topic = topic, .timestamp = Timestamp(1'700'000'000'001)}).ok());
  ASSERT_TRUE(p->flush().ok());
  auto records = read_all({topic, Partition(0)});
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].key, "k");
  EXPECT_EQ(records[0].value, "v");
  EXPECT_EQ(records[0].timestamp, Timestamp(1'700'000'000'000));
  EXPECT_EQ(records[0].headers, headers);
  EXPECT_EQ(records[1].key, std::nullopt);
  EXPECT_EQ(records[1].value, std::nullopt);  // a tombstone stays null, not empty
  EXPECT_EQ(records[1].offset, Offset(1));
}

TEST_F(KafkaBackendTest, KeysGoToTheJavaClientsPartition) {
  const auto topic = create("murmur", 6);
  auto p = producer();
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(p->send({.topic = topic, .key = "key-" + std::to_string(i), .value = "x"}).ok());
  }
  ASSERT_TRUE(p->flush().ok());
  int seen = 0;
  for (int partition = 0; partition < 6; ++partition) {
    for (const auto& r : read_all({topic, Partition(partition)})) {
      EXPECT_EQ(r.partition, partition_for_key(*r.key, 6)) << *r.key;
      ++seen;
    }
  }
  EXPECT_EQ(seen, 60);
}

TEST_F(KafkaBackendTest, AnUnknownTopicIsNotFound) {
  auto p = producer();
  const auto topic = unique_name("missing");
  Status s = p->send({.topic = topic, .value = "x"});
  if (s.ok()) s = p->flush();
  EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.to_string();
  EXPECT_THAT(s.message(), ::testing::HasSubstr(topic));
}

TEST_F(KafkaBackendTest, RefusedRecordsGoToTheHandlerWhichMayDropThem) {
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
  EXPECT_TRUE((*p)->send({.topic = unique_name("missing"), .value = "x"}).ok());
  EXPECT_TRUE((*p)->send({.topic = topic, .value = "small"}).ok());
  EXPECT_TRUE((*p)->flush().ok());
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_EQ(refused[0].code(), StatusCode::kInvalidArgument) << refused[0].to_string();
  EXPECT_EQ(refused[1].code(), StatusCode::kNotFound);
  EXPECT_THAT(values(read_all({topic, Partition(0)})), ElementsAre("small"));

  auto strict = (*backend)->make_producer({});  // no handler: a refusal is an error
  EXPECT_EQ((*strict)->send({.topic = topic, .value = std::string(5000, 'x')}).code(),
            StatusCode::kInvalidArgument);
}

TEST_F(KafkaBackendTest, CommittedOffsetsKeepTheirMetadata) {
  const auto topic = create("commit", 3);
  const TopicPartition zero{topic, Partition(0)}, one{topic, Partition(1)};
  const std::string group = unique_name("group");
  ASSERT_TRUE(consumer(group)
                  ->commit_with_metadata(
                      {{zero, {Offset(5), "AgAAAAAAAAPo"}}, {one, {.offset = Offset(2)}}})
                  .ok());
  auto committed = consumer(group)->committed_with_metadata({zero, one, {topic, Partition(2)}});
  ASSERT_TRUE(committed) << committed.error().to_string();
  EXPECT_THAT(*committed, ElementsAre(std::pair{zero, OffsetAndMetadata{Offset(5), "AgAAAAAAAAPo"}},
                                      std::pair{one, OffsetAndMetadata{Offset(2), ""}}));
}

TEST_F(KafkaBackendTest, TransactionsAreSeenWholeByReadCommittedConsumersAndEndsAreStable) {
  const auto out = create("tx-out", 1);
  const auto in = create("tx-in", 1);
  const TopicPartition tp{out, Partition(0)};
  auto p = producer(unique_name("tx"));
  auto group = consumer(unique_name("group"));
  ASSERT_TRUE(p->begin_transaction().ok());
  ASSERT_TRUE(p->send({.topic = out, .value = "a"}).ok());
  ASSERT_TRUE(p->flush().ok());
  // Open transaction: its records are beyond the end read_committed readers see.
  auto& admin = kafka_->admin();
  EXPECT_EQ(*admin.list_offset(tp, {.kind = OffsetSpec::Kind::kLatest}), Offset(0));
  EXPECT_EQ(*admin.list_offset(tp, {.kind = OffsetSpec::Kind::kHighWatermark}), Offset(1));
  const TopicPartition input{in, Partition(0)};
  ASSERT_TRUE(
      p->send_offsets_to_transaction({{input, {Offset(7), "seven"}}}, *group->group_metadata())
          .ok());
  ASSERT_TRUE(p->commit_transaction().ok());
  // The commit marker follows the commit shortly; then the stable end is past it.
  Offset stable(0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (stable != Offset(2) && std::chrono::steady_clock::now() < deadline) {
    stable = *admin.list_offset(tp, {.kind = OffsetSpec::Kind::kLatest});
  }
  EXPECT_EQ(stable, Offset(2));
  EXPECT_EQ(*group->committed(input), Offset(7));
  EXPECT_EQ(group->committed_with_metadata({input})->at(input),
            (OffsetAndMetadata{Offset(7), "seven"}));

  ASSERT_TRUE(p->begin_transaction().ok());
  ASSERT_TRUE(p->send({.topic = out, .value = "aborted"}).ok());
  ASSERT_TRUE(p->flush().ok());  // written, then aborted
  ASSERT_TRUE(p->abort_transaction().ok());
  ASSERT_TRUE(p->begin_transaction().ok());
  ASSERT_TRUE(p->send({.topic = out, .value = "b"}).ok());
  ASSERT_TRUE(p->commit_transaction().ok());

  EXPECT_THAT(values(read_all(tp)), ElementsAre("a", "b"));
  EXPECT_THAT(values(read_all(tp, Offset(0), false)), ElementsAre("a", "aborted", "b"));
}

TEST_F(KafkaBackendTest, PositionsMovePastTransactionMarkersAtTheEnd) {
  const auto topic = create("markers", 1);
  const TopicPartition tp{topic, Partition(0)};
  auto p = producer(unique_name("tx"));
  ASSERT_TRUE(p->begin_transaction().ok());
  ASSERT_TRUE(p->send({.topic = topic, .value = "a"}).ok());
  ASSERT_TRUE(p->commit_transaction().ok());
  auto c = consumer();
  ASSERT_TRUE(c->assign({tp}).ok());
  std::vector<ConsumerRecord> records;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    auto batch = c->poll(std::chrono::milliseconds(100));
    ASSERT_TRUE(batch);
    records.insert(records.end(), batch->begin(), batch->end());
    if (auto position = c->position(tp); position && *position == Offset(2)) break;
  }
  EXPECT_THAT(values(records), ElementsAre("a"));
  EXPECT_EQ(*c->position(tp), Offset(2));
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
  EXPECT_THAT(values(records), ElementsAre("a", "b", "c", "d", "e"));
  EXPECT_EQ(consumer.lag(tp), std::optional<std::int64_t>(0));
}

TEST_F(KafkaBackendTest, APausedPartitionIsNotReadUntilResumed) {
  const auto topic = create("pause", 2);
  auto p = producer();
  ASSERT_TRUE(p->send({.topic = topic, .partition = Partition(0), .value = "zero"}).ok());
  ASSERT_TRUE(p->send({.topic = topic, .partition = Partition(1), .value = "one"}).ok());
  ASSERT_TRUE(p->flush().ok());
  const TopicPartition zero{topic, Partition(0)};
  const TopicPartition one{topic, Partition(1)};
  auto c = consumer();
  ASSERT_TRUE(c->assign({zero, one}).ok());
  ASSERT_TRUE(c->poll(std::chrono::milliseconds(0)));  // the assignment takes effect
  ASSERT_TRUE(c->pause({zero}).ok());
  // Partition 1 is read to its end while partition 0 gives nothing.
  std::vector<std::string> read;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    auto batch = c->poll(std::chrono::milliseconds(100));
    ASSERT_TRUE(batch);
    for (const auto& r : *batch) read.push_back(*r.value);
    if (auto position = c->position(one); position && *position == Offset(1)) break;
  }
  EXPECT_THAT(read, ElementsAre("one"));
  ASSERT_TRUE(c->resume({zero}).ok());
  while (std::chrono::steady_clock::now() < deadline && read.size() < 2) {
    auto batch = c->poll(std::chrono::milliseconds(100));
    ASSERT_TRUE(batch);
    for (const auto& r : *batch) read.push_back(*r.value);
  }
  EXPECT_THAT(read, ElementsAre("one", "zero"));
}

TEST_F(KafkaBackendTest, RecordsBeforeAnOffsetAreDeleted) {
  const auto topic = create("purge", 1);
  const TopicPartition tp{topic, Partition(0)};
  auto p = producer();
  for (const char* v : {"a", "b", "c"}) ASSERT_TRUE(p->send({.topic = topic, .value = v}).ok());
  ASSERT_TRUE(p->flush().ok());
  ASSERT_TRUE(kafka_->admin().delete_records_before(tp, Offset(2)).ok());
  EXPECT_EQ(*kafka_->admin().list_offset(tp, {.kind = OffsetSpec::Kind::kEarliest}), Offset(2));
  EXPECT_THAT(values(read_all(tp)), ElementsAre("c"));
  EXPECT_EQ(*kafka_->admin().list_offset(
                tp, {.kind = OffsetSpec::Kind::kTimestamp, .timestamp = Timestamp(0)}),
            Offset(2));
}

}  // namespace
}  // namespace brook::internal
