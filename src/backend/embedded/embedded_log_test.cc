#include "backend/embedded/embedded_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <thread>

#include "backend/embedded/record_format.h"
#include "backend/embedded/transaction_log.h"
#include "file_edits.h"
#include "log_capture.h"
#include "scratch_dir.h"

namespace brook::internal {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

// A transaction's batch of records with these values, the first getting offset `base`.
TransactionEntry::Batch batch_of(Offset base, const std::vector<std::string>& values) {
  TransactionEntry::Batch batch{.base = base};
  for (const auto& value : values) batch.records.add(Timestamp(0), std::nullopt, value, nullptr);
  return batch;
}

class EmbeddedLogTest : public ::testing::Test {
 protected:
  void SetUp() override { reopen(); }
  void reopen() {
    log_.reset();
    auto log =
        open_embedded_log({.data_dir = dir_, .maintenance_interval = 0ms, .batching = batching_});
    ASSERT_TRUE(log) << log.error().to_string();
    log_ = std::move(*log);
  }
  void create(const std::string& topic, int partitions,
              std::map<std::string, std::string> configs = {}) {
    auto s = log_->admin().create_topic({topic, partitions, std::move(configs)});
    ASSERT_TRUE(s.ok()) << s.to_string();
  }
  std::unique_ptr<Producer> producer(std::string transactional_id = "") {
    return std::move(*log_->make_producer({.transactional_id = std::move(transactional_id)}));
  }
  std::unique_ptr<Consumer> consumer(std::string group = "") {
    return std::move(*log_->make_consumer({.group_id = std::move(group), .client_id = "c"}));
  }
  // The offset the next record appended to `partition` of `topic` gets.
  std::int64_t end_of(const std::string& topic, int partition) {
    return log_->admin().list_offset({topic, Partition(partition)}, {})->value();
  }
  // Every value of the topic, partition by partition, read outside any group.
  std::vector<std::string> values(const std::string& topic) {
    auto c = consumer();
    auto description = log_->admin().describe_topic(topic);
    std::vector<TopicPartition> all;
    for (int p = 0; p < description->partitions; ++p) all.push_back({topic, Partition(p)});
    EXPECT_TRUE(c->assign(all).ok());
    std::vector<std::string> out;
    while (true) {
      auto records = c->poll(0ms);
      if (!records || records->empty()) return out;
      for (auto& r : *records) out.push_back(r.value.value_or("<null>"));
    }
  }

  // Closes the log, writes each of `damaged` (named versions of the file) in turn and
  // expects open to fail with kCorruption naming `file` (and `named`, if given); then puts
  // the file back and reopens.
  void expect_open_fails_for_each(const std::filesystem::path& file,
                                  const std::vector<std::pair<std::string, std::string>>& damaged,
                                  const std::filesystem::path& named = {}) {
    log_.reset();
    const std::string good = testing::read_file(file);
    for (const auto& [what, contents] : damaged) {
      testing::write_file(file, contents);
      auto log = open_embedded_log({.data_dir = dir_, .maintenance_interval = 0ms});
      if (log) {
        ADD_FAILURE() << "opened with the file " << what;
        continue;
      }
      EXPECT_EQ(log.error().code(), StatusCode::kCorruption) << what;
      EXPECT_THAT(log.error().message(), HasSubstr((named.empty() ? file : named).string()))
          << what;
    }
    testing::write_file(file, good);
    reopen();
  }

  brook::testing::ScratchDir scratch_{"brook-embedded"};
  const std::filesystem::path dir_ = scratch_.path();
  ProducerBatching batching_;         // of the producers, from the next reopen()
  std::unique_ptr<EmbeddedLog> log_;  // declared last: closed before the dir is removed
};

TEST_F(EmbeddedLogTest, AProducerAppendsAPartitionOnceItsBufferedBytesReachBatchSize) {
  const std::string value(100, 'v');
  // Ten records as the log encodes them.
  batching_ = {.batch_bytes = 10 * encoded_size({.value = value}), .linger = std::chrono::hours(1)};
  reopen();
  create("out", 2);
  auto p = producer();
  for (int i = 0; i < 9; ++i) {
    ASSERT_TRUE(p->send({.topic = "out", .partition = Partition(0), .value = value}).ok());
  }
  ASSERT_TRUE(p->send({.topic = "out", .partition = Partition(1), .value = value}).ok());
  ASSERT_TRUE(p->dispatch().ok());  // nothing has waited an hour
  EXPECT_EQ(end_of("out", 0), 0);
  EXPECT_EQ(end_of("out", 1), 0);
  ASSERT_TRUE(p->send({.topic = "out", .partition = Partition(0), .value = value}).ok());
  EXPECT_EQ(end_of("out", 0), 10);  // batch.size reached: appended by the send itself
  EXPECT_EQ(end_of("out", 1), 0);   // the other partition's records wait
  ASSERT_TRUE(p->flush().ok());
  EXPECT_EQ(end_of("out", 1), 1);
}

TEST_F(EmbeddedLogTest, DispatchAppendsEverythingOnceTheOldestRecordHasWaitedLingerMs) {
  batching_ = {.linger = 30ms};
  reopen();
  create("out", 2);
  auto p = producer();
  const auto sent = std::chrono::steady_clock::now();
  ASSERT_TRUE(p->send({.topic = "out", .partition = Partition(0), .value = "a"}).ok());
  ASSERT_TRUE(p->send({.topic = "out", .partition = Partition(1), .value = "b"}).ok());
  while (end_of("out", 0) == 0) {
    ASSERT_TRUE(p->dispatch().ok());
    ASSERT_LT(std::chrono::steady_clock::now() - sent, 10s) << "dispatch() never appended";
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_GE(std::chrono::steady_clock::now() - sent, 30ms);  // not before linger.ms
  EXPECT_EQ(end_of("out", 1), 1);                            // both partitions together
}

// What both logs do with topics is in tests/contract/backend_contract_test.cc.
TEST_F(EmbeddedLogTest, TopicsAndTheirDeletionSurviveAReopen) {
  create("a", 3, {{"cleanup.policy", "compact"}});
  create("b", 1);
  EXPECT_TRUE(log_->admin().delete_topic("a").ok());
  create("c", 2);
  reopen();
  EXPECT_THAT(*log_->admin().list_topics(), ElementsAre("b", "c"));
  EXPECT_EQ(log_->admin().describe_topic("c")->partitions, 2);
}

TEST_F(EmbeddedLogTest, RejectsBadTopicsWithAClearMessage) {
  auto& admin = log_->admin();
  EXPECT_THAT(admin.create_topic({"bad name", 1}).message(),
              HasSubstr("invalid topic name 'bad name'"));
  EXPECT_THAT(admin.create_topic({"t", 0}).message(), HasSubstr("partitions must be >= 1"));
  EXPECT_THAT(admin.create_topic({"t", 1, {{"cleanup.policy", "sometimes"}}}).message(),
              HasSubstr("cleanup.policy"));
  EXPECT_THAT(admin.create_topic({"t", 1, {{"retention.hours", "1"}}}).message(),
              HasSubstr("unknown topic config 'retention.hours'"));
  EXPECT_THAT(admin.create_topic({"t", 1, {{"min.cleanable.dirty.ratio", "1.5"}}}).message(),
              HasSubstr("min.cleanable.dirty.ratio: '1.5' is not a number from 0 to 1"));
  EXPECT_THAT(admin.create_topic({"t", 1, {{"segment.ms", "0"}}}).message(),
              HasSubstr("segment.ms must be >= 1"));
  create("c", 1, {{"segment.ms", "600000"}, {"min.cleanable.dirty.ratio", "0.25"}});
  create("t", 1);
  EXPECT_EQ(admin.create_topic({"t", 1}).code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(admin.describe_topic("nope").error().message(),
              HasSubstr("topic 'nope' does not exist"));
  EXPECT_EQ(producer()->send({.topic = "nope", .value = "v"}).code(), StatusCode::kNotFound);
}

// A producer appends what it buffers once it holds 4 MiB of keys and values (or 16 384
// records), without waiting for flush(): 1 KiB records land every 4 096, not every 16 384.
TEST_F(EmbeddedLogTest, GroupMembersSplitPartitionsByNumberAndCommittedOffsetsSurvive) {
  create("a", 4);
  create("b", 4);
  auto p = producer();
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(p->send({.topic = i % 2 ? "a" : "b",
                         .partition = Partition(i % 4),
                         .value = std::to_string(i)})
                    .ok());
  }
  ASSERT_TRUE(p->flush().ok());
  auto c1 = std::move(*log_->make_consumer({.group_id = "g", .client_id = "c1"}));
  auto c2 = std::move(*log_->make_consumer({.group_id = "g", .client_id = "c2"}));
  ASSERT_TRUE(c1->subscribe({"a", "b"}, nullptr).ok());
  ASSERT_TRUE(c2->subscribe({"a", "b"}, nullptr).ok());
  // Both must poll for the group to settle: each waits for the other to let go.
  std::thread t([&] { ASSERT_TRUE(c2->poll(2s)); });
  ASSERT_TRUE(c1->poll(2s));
  t.join();
  std::vector<TopicPartition> expected1 = {
      {"a", Partition(0)}, {"a", Partition(1)}, {"b", Partition(0)}, {"b", Partition(1)}};
  EXPECT_EQ(c1->assignment(), expected1);
  EXPECT_EQ(c2->assignment().size(), 4u);
  ASSERT_TRUE(c1->commit({{{"a", Partition(0)}, Offset(1)}}).ok());
  ASSERT_TRUE(c1->close().ok());
  ASSERT_TRUE(c2->poll(2s));
  EXPECT_EQ(c2->assignment().size(), 8u);
  ASSERT_TRUE(c2->close().ok());
  c1.reset();
  c2.reset();
  reopen();
  auto again = consumer("g");
  EXPECT_EQ(*again->committed({"a", Partition(0)}), Offset(1));
}

TEST_F(EmbeddedLogTest, ARecordDamagedAfterTheOpenFailsThePollNamingThePartitionAndFile) {
  create("t", 1);
  auto p = producer();
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(p->send({.topic = "t", .value = "value-" + std::to_string(i)}).ok());
  }
  ASSERT_TRUE(p->flush().ok());
  std::filesystem::path segment;  // the file holding the records, damaged in the third value
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_)) {
    if (entry.path().extension() == ".log" &&
        testing::read_file(entry.path()).find("value-2") != std::string::npos) {
      segment = entry.path();
    }
  }
  ASSERT_FALSE(segment.empty());
  testing::write_file(segment,
                      testing::replace_first(testing::read_file(segment), "value-2", "value-X"));
  auto c = consumer();
  const TopicPartition t0{"t", Partition(0)};
  ASSERT_TRUE(c->assign({t0}).ok());
  for (int attempt = 0; attempt < 2; ++attempt) {  // the position stays: it fails again
    auto records = c->poll(0ms);
    ASSERT_FALSE(records.has_value()) << "the damaged record was skipped silently";
    EXPECT_EQ(records.error().code(), StatusCode::kCorruption);
    EXPECT_THAT(records.error().message(), HasSubstr("reading t-0 at offset 0"));
    EXPECT_THAT(records.error().message(), HasSubstr(segment.string()));
    EXPECT_EQ(*c->position(t0), Offset(0));
  }
}

TEST_F(EmbeddedLogTest, LagCountsTheRecordsAfterThePositionButNotThoseOfAnOpenTransaction) {
  create("t", 1);
  const TopicPartition tp{"t", Partition(0)};
  auto p = producer();
  for (const char* v : {"a", "b", "c", "d", "e"}) {
    ASSERT_TRUE(p->send({.topic = "t", .value = v}).ok());
  }
  ASSERT_TRUE(p->flush().ok());
  auto c = std::move(*log_->make_consumer({.max_poll_records = 2}));
  ASSERT_TRUE(c->assign({tp}).ok());
  EXPECT_EQ(c->lag(tp), std::optional<std::int64_t>(5));
  ASSERT_EQ(c->poll(0ms)->size(), 2U);
  EXPECT_EQ(c->lag(tp), std::optional<std::int64_t>(3));
  while (!c->poll(0ms)->empty()) {
  }
  EXPECT_EQ(c->lag(tp), std::optional<std::int64_t>(0));

  auto tx = producer("tx");  // not visible, not counted until it commits
  ASSERT_TRUE(tx->begin_transaction().ok());
  ASSERT_TRUE(tx->send({.topic = "t", .value = "f"}).ok());
  EXPECT_EQ(c->lag(tp), std::optional<std::int64_t>(0));
  ASSERT_TRUE(tx->commit_transaction().ok());
  EXPECT_EQ(c->lag(tp), std::optional<std::int64_t>(1));
  EXPECT_FALSE(c->lag({"t", Partition(1)}));  // not assigned
}

TEST_F(EmbeddedLogTest, OpeningCompletesATransactionInterruptedBeforeItWasApplied) {
  create("out", 1);
  auto p = producer();
  ASSERT_TRUE(p->send({.topic = "out", .value = "before"}).ok());
  ASSERT_TRUE(p->flush().ok());
  p.reset();
  log_.reset();
  {
    // What a crash right after writing the transaction log leaves behind.
    auto wal = std::move(*TransactionLog::open(dir_, false));
    TransactionEntry entry;
    entry.batches[{"out", Partition(0)}] = batch_of(Offset(1), {"x", "y"});
    entry.offsets["g"][{"out", Partition(0)}] = {Offset(3), "three"};
    ASSERT_TRUE(wal->write(entry).ok());
  }
  reopen();
  EXPECT_THAT(values("out"), ElementsAre("before", "x", "y"));
  EXPECT_EQ(
      consumer("g")->committed_with_metadata({{"out", Partition(0)}})->at({"out", Partition(0)}),
      (OffsetAndMetadata{Offset(3), "three"}));
  reopen();  // applied once only
  EXPECT_THAT(values("out"), ElementsAre("before", "x", "y"));
}

TEST_F(EmbeddedLogTest, CommittedMetadataSurvivesAReopen) {
  create("t", 2);
  const TopicPartition zero{"t", Partition(0)}, one{"t", Partition(1)};
  ASSERT_TRUE(consumer("g")->commit_with_metadata({{zero, {Offset(5), "AgAAAAAAAAPo"}}}).ok());
  ASSERT_TRUE(consumer("g")->commit({{one, Offset(2)}}).ok());  // empty metadata
  reopen();
  auto committed = consumer("g")->committed_with_metadata({zero, one, {"t", Partition(9)}});
  ASSERT_TRUE(committed) << committed.error().to_string();
  EXPECT_THAT(*committed, ElementsAre(std::pair{zero, OffsetAndMetadata{Offset(5), "AgAAAAAAAAPo"}},
                                      std::pair{one, OffsetAndMetadata{Offset(2), ""}}));
}

// As on Kafka: a deleted topic's committed offsets go with it, so a group reads a topic
// created again under the name from its start; other topics' offsets stay.
TEST_F(EmbeddedLogTest, DeletingATopicForgetsItsCommittedOffsets) {
  create("t", 1);
  create("u", 1);
  const TopicPartition t{"t", Partition(0)}, u{"u", Partition(0)};
  ASSERT_TRUE(consumer("g")->commit({{t, Offset(5)}, {u, Offset(3)}}).ok());
  ASSERT_TRUE(log_->admin().delete_topic("t").ok());
  create("t", 1);
  reopen();
  auto committed = consumer("g")->committed_with_metadata({t, u});
  ASSERT_TRUE(committed) << committed.error().to_string();
  EXPECT_THAT(*committed, ElementsAre(std::pair{u, OffsetAndMetadata{Offset(3), ""}}));
}

TEST_F(EmbeddedLogTest, ACommitThatCannotBeWrittenChangesNothing) {
  create("t", 1);
  const TopicPartition tp{"t", Partition(0)};
  auto c = consumer("g");
  ASSERT_TRUE(c->commit({{tp, Offset(1)}}).ok());
  const auto in_the_way = dir_ / "groups" / "g.json.tmp";  // the write's temp file
  std::filesystem::create_directory(in_the_way);
  EXPECT_EQ(c->commit({{tp, Offset(2)}}).code(), StatusCode::kIoError);
  EXPECT_EQ(*c->committed(tp), Offset(1));
  std::filesystem::remove(in_the_way);
  c.reset();
  reopen();
  EXPECT_EQ(*consumer("g")->committed(tp), Offset(1));
}

// While alive, writes that would make a file larger than `bytes` fail with EFBIG (as a full
// disk fails them with ENOSPC) instead of raising SIGXFSZ.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) : old_handler_(std::signal(SIGXFSZ, SIG_IGN)) {
    ::getrlimit(RLIMIT_FSIZE, &old_);
    const rlimit limited{bytes, old_.rlim_max};
    EXPECT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_{};
  void (*old_handler_)(int);
};

// Sends `values` to the partitions of `out` (value i to partition i % partitions) and offset 1
// of in-0 for group g in one transaction of `p`, and commits it.
Status commit_values(Producer& p, Consumer& group, int partitions,
                     const std::vector<std::string>& values) {
  if (auto s = p.begin_transaction(); !s.ok()) return s;
  for (std::size_t i = 0; i < values.size(); ++i) {
    auto s = p.send({.topic = "out",
                     .partition = Partition(static_cast<std::int32_t>(i % partitions)),
                     .value = values[i]});
    if (!s.ok()) return s;
  }
  if (auto s = p.send_offsets_to_transaction({{{"in", Partition(0)}, {Offset(1), "m"}}},
                                             *group.group_metadata());
      !s.ok()) {
    return s;
  }
  return p.commit_transaction();
}

TEST_F(EmbeddedLogTest, ACommitWhoseOffsetsFailAfterItsEntryIsKeptAndRefusesEveryWrite) {
  create("out", 1);
  create("in", 1);
  auto group = consumer("g");
  const auto in_the_way = dir_ / "groups" / "g.json.tmp";  // the offsets write's temp file
  std::filesystem::create_directory(in_the_way);
  auto p = producer("tx");
  const Status failed = commit_values(*p, *group, 1, {"a", "b"});
  EXPECT_EQ(failed.code(), StatusCode::kIoError);
  EXPECT_THAT(failed.message(), AllOf(HasSubstr("takes no more writes until it is reopened"),
                                      HasSubstr("'tx'"), HasSubstr("g.json.tmp")));
  std::filesystem::remove(in_the_way);  // the cause is gone, the refusal stays until reopened

  auto other = producer("other");
  EXPECT_EQ(commit_values(*other, *group, 1, {"c"}).message(), failed.message());
  auto plain = producer();
  ASSERT_TRUE(plain->send({.topic = "out", .value = "d"}).ok());
  EXPECT_EQ(plain->flush().message(), failed.message());
  EXPECT_EQ(group->commit({{{"in", Partition(0)}, Offset(5)}}).message(), failed.message());
  EXPECT_EQ(log_->admin().delete_records_before({"out", Partition(0)}, Offset(1)).message(),
            failed.message());
  EXPECT_EQ(log_->admin().delete_topic("out").message(), failed.message());

  p.reset(), other.reset(), plain.reset(), group.reset();
  reopen();
  EXPECT_THAT(values("out"), ElementsAre("a", "b"));
  EXPECT_EQ(
      consumer("g")->committed_with_metadata({{"in", Partition(0)}})->at({"in", Partition(0)}),
      (OffsetAndMetadata{Offset(1), "m"}));
  auto after = producer("other");
  EXPECT_TRUE(commit_values(*after, *consumer("g"), 1, {"c"}).ok());  // writable again
  EXPECT_THAT(values("out"), ElementsAre("a", "b", "c"));
}

TEST_F(EmbeddedLogTest, ATransactionPartlyAppendedWhenAWriteFailedIsCompletedOnceByTheNextOpen) {
  create("out", 2);
  create("in", 1);
  // out-1 holds more than the file size limit below, out-0 and the transaction log less: of
  // the next transaction, out-0's batch is appended, then out-1's fails.
  auto plain = producer();
  const std::string big(64 << 10, 'x');
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(plain->send({.topic = "out", .partition = Partition(1), .value = big}).ok());
  }
  ASSERT_TRUE(plain->flush().ok());
  auto group = consumer("g");
  auto p = producer("tx");
  {
    FileSizeLimit limit(128 << 10);
    const Status failed = commit_values(*p, *group, 2, {"a0", "a1", "b0", "b1"});
    EXPECT_THAT(failed.message(),
                AllOf(HasSubstr("takes no more writes"), HasSubstr("File too large")));
    // Another transaction would replace the entry that the next open must complete.
    auto other = producer("other");
    EXPECT_EQ(commit_values(*other, *group, 2, {"c0"}).message(), failed.message());
  }
  auto shown = [&] {  // the values of "out", `big` shown as "big"
    auto all = values("out");
    std::replace(all.begin(), all.end(), big, std::string("big"));
    return all;
  };
  EXPECT_THAT(shown(), ElementsAre("a0", "b0", "big", "big", "big", "big"));

  p.reset(), plain.reset(), group.reset();
  reopen();
  EXPECT_THAT(shown(), ElementsAre("a0", "b0", "big", "big", "big", "big", "a1", "b1"));
  EXPECT_EQ(*consumer("g")->committed({"in", Partition(0)}), Offset(1));
  reopen();  // completed once only
  EXPECT_THAT(shown(), ElementsAre("a0", "b0", "big", "big", "big", "big", "a1", "b1"));
}

TEST_F(EmbeddedLogTest, MetadataFilesReadBackAfterReopen) {
  create("t", 3, {{"cleanup.policy", "compact"}});
  ASSERT_TRUE(consumer("g")->commit({{{"t", Partition(2)}, Offset(100)}}).ok());
  auto p = producer();
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(p->send({.topic = "t", .partition = Partition(1), .value = "v"}).ok());
  }
  ASSERT_TRUE(p->flush().ok());
  ASSERT_TRUE(log_->admin().delete_records_before({"t", Partition(1)}, Offset(3)).ok());
  p.reset();
  reopen();
  auto t = log_->admin().describe_topic("t");
  ASSERT_TRUE(t) << t.error().to_string();
  EXPECT_EQ(t->partitions, 3);
  EXPECT_EQ(t->configs.at("cleanup.policy"), "compact");
  EXPECT_EQ(*consumer("g")->committed({"t", Partition(2)}), Offset(100));
  EXPECT_EQ(*log_->admin().list_offset({"t", Partition(1)}, {.kind = OffsetSpec::Kind::kEarliest}),
            Offset(3));
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_)) {
    EXPECT_FALSE(entry.path().string().ends_with(".tmp")) << entry.path();
  }
}

TEST_F(EmbeddedLogTest, DamagedTopicMetadataFailsTheOpenNamingTheFile) {
  create("t", 4);
  create("u", 4);
  const auto file = dir_ / "topics" / "t" / "topic.json";
  auto damaged =
      testing::damaged_versions(testing::read_file(file), R"("partitions":4)", R"("partitions":3)");
  damaged.emplace_back("another topic's", testing::read_file(dir_ / "topics" / "u" / "topic.json"));
  expect_open_fails_for_each(file, damaged);
  EXPECT_EQ(log_->admin().describe_topic("t")->partitions, 4);
}

TEST_F(EmbeddedLogTest, PartitionDirectoriesTheMetadataDoesNotListFailTheOpen) {
  create("t", 3);
  log_.reset();
  const auto topic = dir_ / "topics" / "t";
  std::filesystem::copy(topic / "2", topic / "3");  // a partition beyond the count
  auto log = open_embedded_log({.data_dir = dir_, .maintenance_interval = 0ms});
  ASSERT_FALSE(log);
  EXPECT_EQ(log.error().code(), StatusCode::kCorruption);
  EXPECT_THAT(log.error().message(), HasSubstr(topic.string()));
  EXPECT_THAT(log.error().message(), HasSubstr("partition directories beyond them: 3"));

  std::filesystem::remove_all(topic / "3");
  std::filesystem::remove_all(topic / "1");  // a partition the metadata lists
  log = open_embedded_log({.data_dir = dir_, .maintenance_interval = 0ms});
  ASSERT_FALSE(log);
  EXPECT_EQ(log.error().code(), StatusCode::kCorruption);
  EXPECT_THAT(log.error().message(), HasSubstr(topic.string()));
  EXPECT_THAT(log.error().message(), HasSubstr("missing partition directories: 1"));
}

TEST_F(EmbeddedLogTest, DamagedCommittedOffsetsFailTheOpenNamingTheFile) {
  create("t", 1);
  ASSERT_TRUE(consumer("g")->commit({{{"t", Partition(0)}, Offset(100)}}).ok());
  const auto file = dir_ / "groups" / "g.json";
  auto damaged = testing::damaged_versions(testing::read_file(file), "100", "000");
  ASSERT_TRUE(consumer("h")->commit({{{"t", Partition(0)}, Offset(100)}}).ok());
  damaged.emplace_back("another group's", testing::read_file(dir_ / "groups" / "h.json"));
  expect_open_fails_for_each(file, damaged);
  EXPECT_EQ(*consumer("g")->committed({"t", Partition(0)}), Offset(100));
}

TEST_F(EmbeddedLogTest, DamagedStartOffsetFailsTheOpenNamingTheFile) {
  create("t", 1);
  auto p = producer();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(p->send({.topic = "t", .value = "v"}).ok());
  ASSERT_TRUE(p->flush().ok());
  p.reset();
  ASSERT_TRUE(log_->admin().delete_records_before({"t", Partition(0)}, Offset(12)).ok());
  const auto file = dir_ / "topics" / "t" / "0" / "start-offset";
  expect_open_fails_for_each(file, testing::damaged_versions(testing::read_file(file), "12", "02"));
  EXPECT_EQ(values("t").size(), 8u);
}

TEST_F(EmbeddedLogTest, ADamagedTransactionLogEntryFailsTheOpenNamingTheFile) {
  create("out", 1);
  log_.reset();
  const auto file = dir_ / "transactions.wal";
  {
    auto wal = std::move(*TransactionLog::open(dir_, false));
    TransactionEntry entry{.transactional_id = "app-0"};
    entry.batches[{"out", Partition(0)}] = batch_of(Offset(0), {"x"});
    entry.offsets["g"][{"out", Partition(0)}] = {.offset = Offset(100)};
    ASSERT_TRUE(wal->write(entry).ok());
  }
  const std::string good = testing::read_file(file);
  auto with = [&](std::size_t at, std::string bytes) {
    return std::string(good).replace(at, bytes.size(), bytes);
  };
  // Header: u32 payload size, u32 payload checksum, u32 id checksum, u16 id size, u8 version,
  // u32 header checksum; then the id "app-0" and the payload.
  expect_open_fails_for_each(
      file,
      {{"payload size changed", with(0, {static_cast<char>(good[0] - 1)})},
       {"payload size grown", with(0, {static_cast<char>(good[0] + 1)})},
       {"payload checksum zeroed", with(4, std::string(4, '\0'))},
       {"id size grown", with(12, {static_cast<char>(good[12] + 1)})},
       {"version changed", with(14, {2})},
       {"header checksum zeroed", with(15, std::string(4, '\0'))},
       {"id changed", with(19, "b")},
       {"a payload byte changed", with(good.size() - 1, {static_cast<char>(good.back() ^ 1)})},
       {"a byte appended", good + "x"}});
  EXPECT_THAT(values("out"), ElementsAre("x"));
  EXPECT_EQ(*consumer("g")->committed({"out", Partition(0)}), Offset(100));
}

TEST_F(EmbeddedLogTest, WhatATornEntryLeftDoesNotSpoilTheNextEntry) {
  create("out", 1);
  log_.reset();
  const auto file = dir_ / "transactions.wal";
  auto wal = std::move(*TransactionLog::open(dir_, false));
  TransactionEntry entry;
  entry.batches[{"out", Partition(0)}] = batch_of(Offset(0), {std::string(500, 'a')});
  ASSERT_TRUE(wal->write(entry).ok());
  std::filesystem::resize_file(file, std::filesystem::file_size(file) - 100);  // torn
  // A crash after the next entry (shorter) was written.
  entry.batches[{"out", Partition(0)}] = batch_of(Offset(0), {"b"});
  ASSERT_TRUE(wal->write(entry).ok());
  wal.reset();
  reopen();
  EXPECT_THAT(values("out"), ElementsAre("b"));
}

TEST_F(EmbeddedLogTest, ATornTransactionLogEntryIsDiscardedWithAWarning) {
  create("out", 1);
  log_.reset();
  const auto file = dir_ / "transactions.wal";
  {
    auto wal = std::move(*TransactionLog::open(dir_, false));
    TransactionEntry entry{.transactional_id = "app-0"};
    entry.batches[{"out", Partition(0)}] = batch_of(Offset(0), {"x"});
    entry.offsets["g"][{"out", Partition(0)}] = {.offset = Offset(1)};
    ASSERT_TRUE(wal->write(entry).ok());
  }
  const std::string whole = testing::read_file(file);
  const std::size_t payload_at = 19 + 5;  // the header, then the id
  struct Torn {
    std::size_t bytes;
    std::string says;
  };
  const std::vector<Torn> cases = {
      {10, "transactional id unreadable, 10 bytes in the file, it ends inside the entry header"},
      {21,
       "transactional id unreadable, 21 bytes in the file, it ends inside the transactional id"},
      {whole.size() - 1,
       fmt::format("transactional id 'app-0', {} bytes in the file, it ends {} bytes into the "
                   "{}-byte payload",
                   whole.size() - 1, whole.size() - 1 - payload_at, whole.size() - payload_at)}};
  for (const auto& torn : cases) {
    testing::write_file(file, whole.substr(0, torn.bytes));
    {
      testing::LogCapture logs;
      reopen();
      EXPECT_THAT(logs.at(LogLevel::kWarn),
                  ElementsAre(AllOf(HasSubstr(file.string()), HasSubstr(torn.says))))
          << torn.bytes;
    }
    EXPECT_TRUE(values("out").empty());
    EXPECT_FALSE(consumer("g")->committed({"out", Partition(0)}).value());
    EXPECT_EQ(std::filesystem::file_size(file), 0u);  // discarded once: no warning next time
  }
}

TEST_F(EmbeddedLogTest, ATopicDirectoryWithoutMetadataIsNoTopicAndSaysSo) {
  create("t", 2);
  log_.reset();
  std::filesystem::remove(dir_ / "topics" / "t" / "topic.json");
  testing::LogCapture logs;
  reopen();
  EXPECT_TRUE(log_->admin().list_topics()->empty());
  EXPECT_THAT(logs.at(LogLevel::kWarn),
              ElementsAre(HasSubstr((dir_ / "topics" / "t").string() + " is not a topic")));
}

TEST_F(EmbeddedLogTest, ASecondOpenOfTheDataDirIsRefused) {
  auto second = open_embedded_log({.data_dir = dir_, .maintenance_interval = 0ms});
  ASSERT_FALSE(second);
  EXPECT_THAT(second.error().message(), HasSubstr("is locked"));
}

TEST_F(EmbeddedLogTest, CompactedTopicKeepsTheNewestValuePerKeyAfterMaintenance) {
  create("table", 1, {{"cleanup.policy", "compact"}, {"segment.bytes", "1024"}});
  auto p = producer();
  for (int round = 0; round < 20; ++round) {
    for (const char* key : {"a", "b", "c"}) {
      ASSERT_TRUE(
          p->send({.topic = "table", .key = key, .value = std::string(key) + std::to_string(round)})
              .ok());
    }
    ASSERT_TRUE(p->flush().ok());  // many small segments: only the last one stays active
  }
  ASSERT_TRUE(log_->run_maintenance(Timestamp(0)).ok());
  const auto after = values("table");
  EXPECT_LT(after.size(), 60u);
  for (const char* key : {"a", "b", "c"}) {
    EXPECT_EQ(std::count(after.begin(), after.end(), std::string(key) + "19"), 1) << key;
  }
  EXPECT_EQ(std::count(after.begin(), after.end(), "a0"), 0);
}

TEST_F(EmbeddedLogTest, RetentionDeletesOldSegmentsOfADeleteTopic) {
  create("events", 1, {{"retention.ms", "1000"}, {"segment.bytes", "1024"}});
  auto p = producer();
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(
        p->send({.topic = "events", .timestamp = Timestamp(i), .value = std::to_string(i)}).ok());
    ASSERT_TRUE(p->flush().ok());
  }
  ASSERT_TRUE(log_->run_maintenance(Timestamp(1'000'000)).ok());
  const auto after = values("events");
  ASSERT_FALSE(after.empty());  // the active segment always stays
  EXPECT_EQ(after.back(), "99");
  EXPECT_LT(after.size(), 100u);
  EXPECT_GT(
      *log_->admin().list_offset({"events", Partition(0)}, {.kind = OffsetSpec::Kind::kEarliest}),
      Offset(0));
}

TEST_F(EmbeddedLogTest, PollWakesUpWhenRecordsArrive) {
  create("t", 1);
  auto c = consumer();
  ASSERT_TRUE(c->assign({{"t", Partition(0)}}).ok());
  std::thread writer([&] {
    auto p = producer();
    ASSERT_TRUE(p->send({.topic = "t", .value = "hello"}).ok());
    ASSERT_TRUE(p->flush().ok());
  });
  std::vector<ConsumerRecord> got;
  while (got.empty()) got = *c->poll(10s);
  writer.join();
  EXPECT_EQ(got[0].value, "hello");
}

}  // namespace
}  // namespace brook::internal
