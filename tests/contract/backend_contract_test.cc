// The LogBackend contract (src/backend/log_backend.h), the same tests on the embedded log and
// on a real Kafka broker. What only one backend does is tested beside it
// (src/backend/embedded/embedded_log_test.cc, src/backend/kafka/kafka_backend_test.cc).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "backend_under_test.h"

namespace brook::testing {
namespace {

using internal::LogBackend;
using internal::OffsetAndMetadata;
using internal::OffsetSpec;
using internal::TopicPartition;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

// Keeps every partition a group assigns to a consumer.
struct AssignmentRecorder final : internal::RebalanceListener {
  std::vector<TopicPartition> assigned;
  void on_partitions_revoked(const std::vector<TopicPartition>&) override {}
  void on_partitions_assigned(const std::vector<TopicPartition>& partitions) override {
    assigned.insert(assigned.end(), partitions.begin(), partitions.end());
  }
  void on_partitions_lost(const std::vector<TopicPartition>&) override {}
};

// One backend kept open for the whole test (no Streams application shares it here).
class BackendContractTest : public BackendTest {
 protected:
  void SetUp() override {
    log_ = open_log();
    ASSERT_NE(log_, nullptr);
  }

  // A new topic with a unique name starting with `prefix`.
  std::string create(const std::string& prefix, std::int32_t partitions,
                     std::map<std::string, std::string> configs = {}) {
    std::string topic = name(prefix);
    configs.try_emplace("retention.ms", "-1");
    const Status s = log_->admin().create_topic(
        {.name = topic, .partitions = partitions, .configs = std::move(configs)});
    EXPECT_TRUE(s.ok()) << s.to_string();
    return topic;
  }
  std::unique_ptr<internal::Producer> producer(internal::ProducerConfig config = {}) {
    auto p = log_->make_producer(config);
    EXPECT_TRUE(p) << p.error().to_string();
    return p ? std::move(*p) : nullptr;
  }
  std::unique_ptr<internal::Producer> transactional(const std::string& id) {
    return producer({.client_id = "test", .transactional_id = id});
  }
  std::unique_ptr<internal::Consumer> consumer(internal::ConsumerConfig config = {}) {
    auto c = log_->make_consumer(config);
    EXPECT_TRUE(c) << c.error().to_string();
    return c ? std::move(*c) : nullptr;
  }
  Offset end_of(const TopicPartition& tp, OffsetSpec::Kind kind = OffsetSpec::Kind::kLatest) {
    auto end = log_->admin().list_offset(tp, {.kind = kind});
    EXPECT_TRUE(end) << end.error().to_string();
    return end ? *end : Offset(-1);
  }
  // Waits until read_committed readers of `tp` may read up to `offset`: a committed
  // transaction becomes readable on Kafka once the broker has written its markers, shortly
  // after commit_transaction() returns.
  void wait_for_end(const TopicPartition& tp, Offset offset) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (end_of(tp) < offset) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline)
          << tp.to_string() << " stays before offset " << offset.value();
      std::this_thread::sleep_for(10ms);  // the admin API has no event to wait on
    }
  }
  std::vector<std::string> values(const TopicPartition& tp, bool read_committed = true) {
    return values_of(read_partition(*log_, tp, Offset(0), read_committed));
  }

  std::unique_ptr<LogBackend> log_;
};

TEST_P(BackendContractTest, TopicsAreCreatedDescribedListedAndDeleted) {
  const auto topic = create("admin", 3, {{"cleanup.policy", "compact"}});
  auto& admin = log_->admin();
  EXPECT_EQ(admin.create_topic({.name = topic, .partitions = 3}).code(),
            StatusCode::kAlreadyExists);
  auto description = admin.describe_topic(topic);
  ASSERT_TRUE(description) << description.error().to_string();
  EXPECT_EQ(description->name, topic);
  EXPECT_EQ(description->partitions, 3);
  EXPECT_EQ(description->configs.at("cleanup.policy"), "compact");
  EXPECT_THAT(*admin.list_topics(), Contains(topic));
  ASSERT_TRUE(admin.delete_topic(topic).ok());
  // Kafka deletes in the background: the topic goes from the list soon after.
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto topics = admin.list_topics();
    ASSERT_TRUE(topics) << topics.error().to_string();
    if (std::find(topics->begin(), topics->end(), topic) == topics->end()) break;
    std::this_thread::sleep_for(100ms);  // the broker has no deletion event to wait on
  }
  EXPECT_THAT(*admin.list_topics(), Not(Contains(topic)));
}

TEST_P(BackendContractTest, BadTopicsAreRefusedNamingWhatIsWrong) {
  auto& admin = log_->admin();
  const Status bad_name = admin.create_topic({.name = "bad name", .partitions = 1});
  EXPECT_EQ(bad_name.code(), StatusCode::kInvalidArgument) << bad_name.to_string();
  EXPECT_THAT(bad_name.message(), HasSubstr("bad name"));
  EXPECT_EQ(admin.create_topic({.name = name("none"), .partitions = 0}).code(),
            StatusCode::kInvalidArgument);
  const Status bad_config = admin.create_topic(
      {.name = name("conf"), .partitions = 1, .configs = {{"retention.hours", "1"}}});
  EXPECT_EQ(bad_config.code(), StatusCode::kInvalidArgument) << bad_config.to_string();
  EXPECT_THAT(bad_config.message(), HasSubstr("retention.hours"));
}

TEST_P(BackendContractTest, AnUnknownTopicIsNotFoundNamingIt) {
  const auto missing = name("missing");
  const auto description = log_->admin().describe_topic(missing);
  ASSERT_FALSE(description);
  EXPECT_EQ(description.error().code(), StatusCode::kNotFound);
  EXPECT_THAT(description.error().message(), HasSubstr(missing));
  auto p = producer();
  Status s = p->send({.topic = missing, .value = "x"});
  if (s.ok()) s = p->flush();  // Kafka may report it at delivery
  EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.to_string();
  EXPECT_THAT(s.message(), HasSubstr(missing));
}

TEST_P(BackendContractTest, RecordsRoundTripWithNullsHeadersAndTimestamps) {
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
  ASSERT_TRUE(p->send({.topic = topic, .key = "", .value = ""}).ok());
  ASSERT_TRUE(p->flush().ok());
  auto records = read_partition(*log_, {topic, Partition(0)});
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].topic, topic);
  EXPECT_EQ(records[0].partition, Partition(0));
  EXPECT_EQ(records[0].offset, Offset(0));
  EXPECT_EQ(records[0].key, "k");
  EXPECT_EQ(records[0].value, "v");
  EXPECT_EQ(records[0].timestamp, Timestamp(1'700'000'000'000));
  EXPECT_EQ(records[0].headers, headers);
  EXPECT_EQ(records[1].key, std::nullopt);
  EXPECT_EQ(records[1].value, std::nullopt);  // a tombstone stays null, not empty
  EXPECT_EQ(records[1].offset, Offset(1));
  EXPECT_EQ(records[2].key, "");  // and empty stays empty, not null
  EXPECT_EQ(records[2].value, "");
}

TEST_P(BackendContractTest, ARecordSentAsViewsIsCopiedBeforeSendReturns) {
  const auto topic = create("views", 1);
  auto p = producer();
  std::string key = "key-0";
  std::string value = "value-0";
  Headers headers;
  headers.add("h", "0");
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(
        p->send(topic,
                {.timestamp = Timestamp(i + 1), .key = key, .value = value, .headers = &headers})
            .ok());
    // The sender reuses its buffers at once, as a sink does.
    key.back() = value.back() = static_cast<char>('1' + i);
    headers = Headers{{.key = "h", .value = std::string(1, static_cast<char>('1' + i))}};
  }
  ASSERT_TRUE(p->send(topic, {.timestamp = Timestamp(4)}).ok());  // no key, value or headers
  ASSERT_TRUE(p->flush().ok());
  auto records = read_partition(*log_, {topic, Partition(0)});
  ASSERT_EQ(records.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    const std::string digit(1, static_cast<char>('0' + i));
    EXPECT_EQ(records[i].key, "key-" + digit);
    EXPECT_EQ(records[i].value, "value-" + digit);
    EXPECT_EQ(records[i].timestamp, Timestamp(i + 1));
    EXPECT_EQ(records[i].headers, (Headers{{.key = "h", .value = digit}}));
  }
  EXPECT_EQ(records[3].key, std::nullopt);
  EXPECT_EQ(records[3].value, std::nullopt);
  EXPECT_TRUE(records[3].headers.empty());
}

TEST_P(BackendContractTest, KeysGoToTheJavaClientsPartitionAndAGivenPartitionIsKept) {
  const auto topic = create("murmur", 6);
  auto p = producer();
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(p->send({.topic = topic, .key = "key-" + std::to_string(i), .value = "x"}).ok());
  }
  ASSERT_TRUE(
      p->send({.topic = topic, .partition = Partition(5), .key = "key-0", .value = "y"}).ok());
  ASSERT_TRUE(p->flush().ok());
  EXPECT_EQ(*p->partitions(topic), 6);
  int seen = 0;
  for (int partition = 0; partition < 6; ++partition) {
    for (const auto& r : read_partition(*log_, {topic, Partition(partition)})) {
      if (r.value == "y") {
        EXPECT_EQ(r.partition, Partition(5));
      } else {
        EXPECT_EQ(r.partition, internal::partition_for_key(*r.key, 6)) << *r.key;
      }
      ++seen;
    }
  }
  EXPECT_EQ(seen, 61);
}

TEST_P(BackendContractTest, RefusedRecordsGoToTheHandlerWhichMayDropThem) {
  const auto topic = create("refused", 1);
  std::vector<Status> refused;
  auto p = producer({.on_refused = [&](const Status& s) {
    refused.push_back(s);
    return Status();
  }});
  EXPECT_TRUE(p->send({.topic = topic, .value = "first"}).ok());
  EXPECT_TRUE(p->send({.topic = name("missing"), .value = "x"}).ok());
  EXPECT_TRUE(p->send({.topic = topic, .value = "second"}).ok());
  EXPECT_TRUE(p->flush().ok());
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].code(), StatusCode::kNotFound) << refused[0].to_string();
  EXPECT_THAT(values({topic, Partition(0)}), ElementsAre("first", "second"));
}

TEST_P(BackendContractTest, CommittedOffsetsKeepTheirMetadataAndTheGroupIsListed) {
  const auto topic = create("commit", 3);
  const TopicPartition zero{topic, Partition(0)}, one{topic, Partition(1)};
  const std::string group = name("group");
  ASSERT_TRUE(consumer({.group_id = group})
                  ->commit_with_metadata(
                      {{zero, {Offset(5), "AgAAAAAAAAPo"}}, {one, {.offset = Offset(2)}}})
                  .ok());
  auto committed =
      consumer({.group_id = group})->committed_with_metadata({zero, one, {topic, Partition(2)}});
  ASSERT_TRUE(committed) << committed.error().to_string();
  EXPECT_THAT(*committed, ElementsAre(std::pair{zero, OffsetAndMetadata{Offset(5), "AgAAAAAAAAPo"}},
                                      std::pair{one, OffsetAndMetadata{Offset(2), ""}}));
  EXPECT_EQ(*consumer({.group_id = group})->committed({topic, Partition(2)}), std::nullopt);
  auto by_admin = log_->admin().committed_offsets(group);
  ASSERT_TRUE(by_admin) << by_admin.error().to_string();
  EXPECT_EQ(*by_admin, *committed);
  EXPECT_THAT(*log_->admin().list_groups(), Contains(group));
  EXPECT_TRUE(log_->admin().committed_offsets(name("nobody"))->empty());
}

TEST_P(BackendContractTest, MetadataThatIsNotUtf8IsRefusedAndChangesNothing) {
  const auto topic = create("utf8", 1);
  const TopicPartition tp{topic, Partition(0)};
  auto c = consumer({.group_id = name("group")});
  ASSERT_TRUE(c->commit({{tp, Offset(1)}}).ok());
  const Status refused = c->commit_with_metadata({{tp, {Offset(2), "\xff\xfe"}}});
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << refused.to_string();
  EXPECT_THAT(refused.message(), HasSubstr(tp.to_string()));
  EXPECT_EQ(*c->committed(tp), Offset(1));
  auto p = transactional(name("tx"));
  ASSERT_TRUE(p->begin_transaction().ok());
  EXPECT_EQ(
      p->send_offsets_to_transaction({{tp, {Offset(2), "\xff"}}}, *c->group_metadata()).code(),
      StatusCode::kInvalidArgument);
  ASSERT_TRUE(p->abort_transaction().ok());
}

TEST_P(BackendContractTest, TransactionsAreSeenWholeByReadCommittedReadersWithTheirOffsets) {
  const auto out = create("tx-out", 2);
  const auto in = create("tx-in", 1);
  const TopicPartition out0{out, Partition(0)}, out1{out, Partition(1)}, input{in, Partition(0)};
  auto p = transactional(name("tx"));
  auto group = consumer({.group_id = name("group")});
  ASSERT_TRUE(p->begin_transaction().ok());
  ASSERT_TRUE(p->send({.topic = out, .partition = Partition(0), .value = "a"}).ok());
  ASSERT_TRUE(p->send({.topic = out, .partition = Partition(1), .value = "b"}).ok());
  ASSERT_TRUE(p->dispatch().ok());
  // Open: read_committed readers see nothing of it yet.
  EXPECT_EQ(end_of(out0), Offset(0));
  EXPECT_TRUE(values(out0).empty());
  ASSERT_TRUE(
      p->send_offsets_to_transaction({{input, {Offset(7), "seven"}}}, *group->group_metadata())
          .ok());
  ASSERT_TRUE(p->commit_transaction().ok());
  wait_for_end(out0, Offset(1));
  wait_for_end(out1, Offset(1));
  EXPECT_THAT(values(out0), ElementsAre("a"));
  EXPECT_THAT(values(out1), ElementsAre("b"));
  EXPECT_EQ(group->committed_with_metadata({input})->at(input),
            (OffsetAndMetadata{Offset(7), "seven"}));

  ASSERT_TRUE(p->begin_transaction().ok());
  ASSERT_TRUE(p->send({.topic = out, .partition = Partition(0), .value = "aborted"}).ok());
  ASSERT_TRUE(
      p->send_offsets_to_transaction({{input, {Offset(9), "nine"}}}, *group->group_metadata())
          .ok());
  ASSERT_TRUE(p->abort_transaction().ok());
  ASSERT_TRUE(p->begin_transaction().ok());
  ASSERT_TRUE(p->send({.topic = out, .partition = Partition(0), .value = "c"}).ok());
  ASSERT_TRUE(p->commit_transaction().ok());
  wait_for_end(out0, Offset(on_kafka() ? 5 : 2));  // Kafka: a marker after each transaction
  EXPECT_THAT(values(out0), ElementsAre("a", "c"));
  EXPECT_EQ(*group->committed(input), Offset(7));  // the aborted offsets were not committed
}

TEST_P(BackendContractTest, ANewerProducerWithTheSameTransactionalIdFencesTheOlder) {
  const auto topic = create("fence", 1);
  const auto id = name("tx");
  auto older = transactional(id);
  auto newer = transactional(id);
  // The older one learns it is fenced at the latest when it commits; nothing of it lands.
  Status s = older->begin_transaction();
  if (s.ok()) s = older->send({.topic = topic, .value = "older"});
  if (s.ok()) s = older->commit_transaction();
  EXPECT_EQ(s.code(), StatusCode::kTaskMigrated) << s.to_string();
  ASSERT_TRUE(newer->begin_transaction().ok());
  ASSERT_TRUE(newer->send({.topic = topic, .value = "newer"}).ok());
  ASSERT_TRUE(newer->commit_transaction().ok());
  wait_for_end({topic, Partition(0)}, Offset(1));
  EXPECT_THAT(values({topic, Partition(0)}), ElementsAre("newer"));
}

TEST_P(BackendContractTest, PositionsReachTheReadableEndPastTransactionMarkers) {
  const auto topic = create("markers", 1);
  const TopicPartition tp{topic, Partition(0)};
  auto p = transactional(name("tx"));
  ASSERT_TRUE(p->begin_transaction().ok());
  ASSERT_TRUE(p->send({.topic = topic, .value = "a"}).ok());
  ASSERT_TRUE(p->commit_transaction().ok());
  const Offset end(on_kafka() ? 2 : 1);  // on Kafka the commit marker takes an offset
  wait_for_end(tp, end);
  EXPECT_EQ(end_of(tp), end);
  EXPECT_THAT(values_of(read_partition(*log_, tp)), ElementsAre("a"));
  auto c = consumer();
  ASSERT_TRUE(c->assign({tp}).ok());
  std::vector<ConsumerRecord> records;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto batch = c->poll(100ms);
    ASSERT_TRUE(batch) << batch.error().to_string();
    records.insert(records.end(), batch->begin(), batch->end());
    if (auto position = c->position(tp); position && *position == end) break;
  }
  EXPECT_THAT(values_of(records), ElementsAre("a"));
  EXPECT_EQ(*c->position(tp), end);
  EXPECT_EQ(c->lag(tp), std::optional<std::int64_t>(0));
}

TEST_P(BackendContractTest, LagCountsWhatIsLeftAndIsZeroAtTheEnd) {
  const auto topic = create("lag", 1);
  const TopicPartition tp{topic, Partition(0)};
  auto p = producer();
  for (const char* v : {"a", "b", "c", "d", "e"}) {
    ASSERT_TRUE(p->send({.topic = topic, .value = v}).ok());
  }
  ASSERT_TRUE(p->flush().ok());
  auto c = consumer({.max_poll_records = 2});
  ASSERT_TRUE(c->assign({tp}).ok());
  std::vector<ConsumerRecord> records;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (records.empty() && std::chrono::steady_clock::now() < deadline) {
    auto batch = c->poll(100ms);
    ASSERT_TRUE(batch) << batch.error().to_string();
    records.insert(records.end(), batch->begin(), batch->end());
  }
  ASSERT_EQ(records.size(), 2U);  // max_poll_records
  ASSERT_TRUE(c->lag(tp));
  EXPECT_GT(*c->lag(tp), 0);
  EXPECT_LE(*c->lag(tp), 3);
  while (std::chrono::steady_clock::now() < deadline) {
    auto batch = c->poll(100ms);
    ASSERT_TRUE(batch) << batch.error().to_string();
    records.insert(records.end(), batch->begin(), batch->end());
    if (auto position = c->position(tp); position && *position == Offset(5)) break;
  }
  EXPECT_THAT(values_of(records), ElementsAre("a", "b", "c", "d", "e"));
  EXPECT_EQ(c->lag(tp), std::optional<std::int64_t>(0));
  EXPECT_FALSE(c->lag({topic, Partition(1)}));  // not assigned
}

TEST_P(BackendContractTest, APausedPartitionIsNotReadUntilResumed) {
  const auto topic = create("pause", 2);
  auto p = producer();
  ASSERT_TRUE(p->send({.topic = topic, .partition = Partition(0), .value = "zero"}).ok());
  ASSERT_TRUE(p->send({.topic = topic, .partition = Partition(1), .value = "one"}).ok());
  ASSERT_TRUE(p->flush().ok());
  const TopicPartition zero{topic, Partition(0)}, one{topic, Partition(1)};
  auto c = consumer();
  ASSERT_TRUE(c->assign({zero, one}).ok());
  ASSERT_TRUE(c->pause({zero}).ok());
  std::vector<std::string> read;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto batch = c->poll(100ms);
    ASSERT_TRUE(batch) << batch.error().to_string();
    for (const auto& r : *batch) read.push_back(*r.value);
    if (auto position = c->position(one); position && *position == Offset(1)) break;
  }
  EXPECT_THAT(read, ElementsAre("one"));  // partition 1 read to its end, 0 not at all
  ASSERT_TRUE(c->resume({zero}).ok());
  while (std::chrono::steady_clock::now() < deadline && read.size() < 2) {
    auto batch = c->poll(100ms);
    ASSERT_TRUE(batch) << batch.error().to_string();
    for (const auto& r : *batch) read.push_back(*r.value);
  }
  EXPECT_THAT(read, ElementsAre("one", "zero"));
  EXPECT_EQ(c->pause({{name("other"), Partition(0)}}).code(), StatusCode::kFailedPrecondition);
}

TEST_P(BackendContractTest, PollBatchesHoldWhatPollReturns) {
  const auto topic = create("batches", 2);
  auto p = producer();
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(p->send({.topic = topic,
                         .timestamp = Timestamp(i),
                         .key = "key-" + std::to_string(i % 7),
                         .value = "value-" + std::to_string(i)})
                    .ok());
  }
  ASSERT_TRUE(p->flush().ok());
  const std::vector<TopicPartition> all{{topic, Partition(0)}, {topic, Partition(1)}};
  std::map<TopicPartition, std::vector<std::string>> expected;
  for (const auto& tp : all) {
    for (const auto& r : read_partition(*log_, tp)) {
      expected[tp].push_back(*r.key + "=" + *r.value + "@" + std::to_string(r.timestamp.value()));
    }
  }
  auto c = consumer();
  ASSERT_TRUE(c->assign(all).ok());
  std::map<TopicPartition, std::vector<std::string>> got;
  std::size_t count = 0;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (count < 100 && std::chrono::steady_clock::now() < deadline) {
    auto batches = c->poll_batches(100ms);
    ASSERT_TRUE(batches) << batches.error().to_string();
    for (const auto& batch : *batches) {
      for (const auto& r : batch.records) {
        got[batch.partition].push_back(std::string(*r.key) + "=" + std::string(*r.value) + "@" +
                                       std::to_string(r.timestamp.value()));
        ++count;
      }
    }
  }
  EXPECT_EQ(got, expected);
}

TEST_P(BackendContractTest, RecordsBeforeAnOffsetAreDeletedAndTimestampsFindOffsets) {
  const auto topic = create("purge", 1);
  const TopicPartition tp{topic, Partition(0)};
  auto p = producer();
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(
        p->send({.topic = topic, .timestamp = Timestamp(100 * (i + 1)), .value = std::to_string(i)})
            .ok());
  }
  ASSERT_TRUE(p->flush().ok());
  auto at = [&](std::int64_t ts) {
    auto offset = log_->admin().list_offset(
        tp, {.kind = OffsetSpec::Kind::kTimestamp, .timestamp = Timestamp(ts)});
    EXPECT_TRUE(offset) << offset.error().to_string();
    return offset ? *offset : Offset(-1);
  };
  EXPECT_EQ(at(0), Offset(0));
  EXPECT_EQ(at(250), Offset(2));  // the first record at or after the time
  EXPECT_EQ(at(300), Offset(2));
  EXPECT_EQ(at(1000), Offset(4));  // none: the end
  ASSERT_TRUE(log_->admin().delete_records_before(tp, Offset(2)).ok());
  EXPECT_EQ(end_of(tp, OffsetSpec::Kind::kEarliest), Offset(2));
  EXPECT_THAT(values(tp), ElementsAre("2", "3"));
  EXPECT_EQ(at(0), Offset(2));
}

TEST_P(BackendContractTest, ASubscribedMemberGetsEveryPartitionAndIsListed) {
  const auto a = create("sub-a", 2);
  const auto b = create("sub-b", 2);
  auto p = producer();
  ASSERT_TRUE(p->send({.topic = a, .partition = Partition(1), .value = "a1"}).ok());
  ASSERT_TRUE(p->send({.topic = b, .partition = Partition(0), .value = "b0"}).ok());
  ASSERT_TRUE(p->flush().ok());
  AssignmentRecorder listener;
  const std::string group = name("group");
  auto c = consumer({.group_id = group, .client_id = "member"});
  ASSERT_TRUE(c->subscribe({a, b}, &listener).ok());
  std::vector<std::string> read;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (read.size() < 2 && std::chrono::steady_clock::now() < deadline) {
    auto batch = c->poll(100ms);
    ASSERT_TRUE(batch) << batch.error().to_string();
    for (const auto& r : *batch) read.push_back(*r.value);
  }
  EXPECT_THAT(read, ::testing::UnorderedElementsAre("a1", "b0"));
  const std::vector<TopicPartition> all{
      {a, Partition(0)}, {a, Partition(1)}, {b, Partition(0)}, {b, Partition(1)}};
  std::sort(listener.assigned.begin(), listener.assigned.end());
  EXPECT_EQ(listener.assigned, all);
  auto assignment = c->assignment();
  std::sort(assignment.begin(), assignment.end());
  EXPECT_EQ(assignment, all);
  auto description = log_->admin().describe_group(group);
  ASSERT_TRUE(description) << description.error().to_string();
  EXPECT_FALSE(description->rebalancing);
  ASSERT_EQ(description->members.size(), 1u);
  const internal::GroupMember& member = description->members.front();
  EXPECT_THAT(member.client_id, HasSubstr("member"));
  EXPECT_FALSE(member.member_id.empty());
  auto assigned = member.assignment;
  std::sort(assigned.begin(), assigned.end());
  EXPECT_EQ(assigned, all);
  ASSERT_TRUE(c->commit({{{a, Partition(1)}, Offset(1)}}).ok());
  ASSERT_TRUE(c->close().ok());
  EXPECT_EQ(*consumer({.group_id = group})->committed({a, Partition(1)}), Offset(1));
}

// What a cooperative assignment computed by Brook itself would rest on (docs/architecture.md):
// a group member commits offsets of partitions outside its assignment, directly and in a
// transaction with its group metadata, and a consumer of the group that only assign()s reads
// from those offsets without joining the group.
TEST_P(BackendContractTest,
       AMemberCommitsOffsetsOutsideItsAssignmentAndAnAssignedReaderStartsThere) {
  const auto membership = create("membership", 1);
  const auto inputs = create("inputs", 2);
  const TopicPartition in0{inputs, Partition(0)}, in1{inputs, Partition(1)};
  auto p = producer();
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(
        p->send({.topic = inputs, .partition = Partition(0), .value = std::to_string(i)}).ok());
  }
  ASSERT_TRUE(p->flush().ok());
  AssignmentRecorder listener;
  const std::string group = name("group");
  auto member = consumer({.group_id = group, .client_id = "member"});
  ASSERT_TRUE(member->subscribe({membership}, &listener).ok());
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (listener.assigned.empty() && std::chrono::steady_clock::now() < deadline) {
    ASSERT_TRUE(member->poll(100ms));
  }
  ASSERT_THAT(listener.assigned, ElementsAre(TopicPartition{membership, Partition(0)}));

  ASSERT_TRUE(
      member->commit_with_metadata({{in0, {Offset(5), "five"}}, {in1, {.offset = Offset(0)}}})
          .ok());
  auto reader = consumer({.group_id = group, .client_id = "reader"});
  ASSERT_TRUE(reader->assign({in0, in1}).ok());
  std::vector<std::string> read;
  while (read.size() < 5 && std::chrono::steady_clock::now() < deadline) {
    auto batch = reader->poll(100ms);
    ASSERT_TRUE(batch) << batch.error().to_string();
    for (const auto& r : *batch) read.push_back(*r.value);
  }
  EXPECT_THAT(read, ElementsAre("5", "6", "7", "8", "9"));
  auto description = log_->admin().describe_group(group);
  ASSERT_TRUE(description) << description.error().to_string();
  ASSERT_EQ(description->members.size(), 1u);  // the reader did not join
  EXPECT_THAT(description->members.front().client_id, HasSubstr("member"));

  auto tx = transactional(name("tx"));
  ASSERT_TRUE(tx->begin_transaction().ok());
  ASSERT_TRUE(
      tx->send_offsets_to_transaction({{in0, {Offset(10), "ten"}}}, *member->group_metadata())
          .ok());
  ASSERT_TRUE(tx->commit_transaction().ok());
  EXPECT_EQ(member->committed_with_metadata({in0})->at(in0),
            (OffsetAndMetadata{Offset(10), "ten"}));
  ASSERT_TRUE(member->close().ok());
}

INSTANTIATE_TEST_SUITE_P(BothBackends, BackendContractTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kKafka), backend_name);

}  // namespace
}  // namespace brook::testing
