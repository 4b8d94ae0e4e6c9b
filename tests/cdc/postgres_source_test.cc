// The PostgreSQL source against a real PostgreSQL 15 server (scripts/postgres.sh) on the
// embedded log: snapshot then streaming, the events Debezium writes for each kind of change,
// schema changes, restarts of the source and of the server, and what it refuses to run with.
#include "cdc/postgres_source.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stop_token>
#include <thread>

#include "backend/embedded/embedded_log.h"
#include "brook/change_event.h"
#include "cdc/source_position.h"
#include "kafka_cluster.h"
#include "postgres_server.h"
#include "scratch_dir.h"
#include "topic_reader.h"

namespace brook {
namespace {

using Json = nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// One record of a change topic: its key and value as JSON (null for a tombstone).
struct Change {
  Json key;
  Json value;
  std::string op() const { return value.is_null() ? "tombstone" : value["op"].get<std::string>(); }
};

class PostgresSourceTest : public testing::PostgresFixture {
 protected:
  void SetUp() override {
    PostgresFixture::SetUp();
    auto log = open_log();
    ASSERT_TRUE(log) << log.error().to_string();
    log_ = std::move(*log);
  }
  // The log the source writes to: the embedded log, by default.
  virtual Result<std::unique_ptr<internal::LogBackend>> open_log() {
    auto log = internal::open_embedded_log({.data_dir = scratch_.path() / "log"});
    if (!log) return error(log.error());
    return std::unique_ptr<internal::LogBackend>(std::move(*log));
  }
  void TearDown() override {
    EXPECT_TRUE(stop_source().ok()) << source_status_.to_string();
    PostgresFixture::TearDown();
  }

  // Slots belong to the server, which the tests share: each test's is named after its
  // database.
  PostgresSourceConfig config() const {
    return {.dsn = dsn(), .publication = "brook", .slot = database(), .topic_prefix = prefix_};
  }

  // Runs the source on the log in a thread until stop_source().
  void start_source(PostgresSourceConfig config) {
    source_ = std::jthread([this, config](std::stop_token stop) {
      source_status_ = internal::run_postgres_source(config, *log_, stop);
    });
  }
  void start_source() { start_source(config()); }
  // A table t with one row in the log, written by a source that reconnects after `delay`.
  void start_reconnecting_source_with_a_row(std::chrono::milliseconds delay) {
    exec("CREATE TABLE t (id int PRIMARY KEY)");
    exec("CREATE PUBLICATION brook FOR TABLE t");
    auto quick = config();
    quick.reconnect_delay = delay;
    start_source(quick);
    exec("INSERT INTO t VALUES (1)");
    changes("pg.public.t", 1);
  }
  // Waits until the source has confirmed the server's WAL up to `lsn`, all written; fails the
  // test if it stops with an error or takes longer than `limit`.
  void wait_for_source_past(const std::string& lsn, std::chrono::minutes limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!slot_streams_past(database(), lsn)) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the source did not catch up";
      ASSERT_TRUE(source_status_.ok()) << source_status_.to_string();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polls the server
    }
  }
  // Stops the source and returns what it ended with.
  Status stop_source() {
    if (source_.joinable()) {
      source_.request_stop();
      source_.join();
    }
    return source_status_;
  }

  // Every record of `topic` (one partition) once it holds at least `count`; fails the test if
  // it does not within a minute or the source stopped with an error.
  std::vector<Change> changes(const std::string& topic, std::size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (true) {
      std::vector<Change> out;
      if (log_->admin().describe_topic(topic)) {
        auto partitions = testing::read_topic(*log_, topic);
        for (const auto& record : partitions[0]) {
          out.push_back({record.key ? Json::parse(*record.key) : Json(),
                         record.value ? Json::parse(*record.value) : Json()});
        }
      }
      if (out.size() >= count) return out;
      if (std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << topic << " holds " << out.size() << " records, not " << count;
        return out;
      }
      if (!source_.joinable() || !source_status_.ok()) {
        ADD_FAILURE() << "the source stopped: " << source_status_.to_string();
        return out;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polls the topic
    }
  }
  static std::vector<std::string> ops(const std::vector<Change>& changes) {
    std::vector<std::string> out;
    for (const auto& change : changes) out.push_back(change.op());
    return out;
  }

  std::string prefix_ = "pg";  // of the topics
  testing::ScratchDir scratch_{"brook-cdc"};
  std::unique_ptr<internal::LogBackend> log_;
  std::jthread source_;
  Status source_status_;
};

TEST_F(PostgresSourceTest, ASnapshotThenEveryChangeAsDebeziumWritesIt) {
  exec("CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, vip bool)");
  exec("INSERT INTO customers VALUES (1, 'Ada', true), (2, 'Bob', NULL)");
  exec("CREATE PUBLICATION brook FOR TABLE customers");
  start_source();
  auto snapshot = changes("pg.public.customers", 2);
  ASSERT_THAT(ops(snapshot), ElementsAre("r", "r"));
  EXPECT_EQ(snapshot[0].key, Json({{"id", 1}}));
  EXPECT_EQ(snapshot[0].value["after"], Json({{"id", 1}, {"name", "Ada"}, {"vip", true}}));
  EXPECT_TRUE(snapshot[0].value["before"].is_null());
  EXPECT_EQ(snapshot[1].value["after"]["vip"], Json());
  EXPECT_EQ(snapshot[0].value["source"]["snapshot"], "true");
  EXPECT_EQ(snapshot[0].value["source"]["table"], "customers");

  exec("INSERT INTO customers VALUES (3, 'Cy', false)");
  exec("UPDATE customers SET name = 'Bobby' WHERE id = 2");
  exec("DELETE FROM customers WHERE id = 1");
  auto all = changes("pg.public.customers", 6);
  ASSERT_THAT(ops(all), ElementsAre("r", "r", "c", "u", "d", "tombstone"));
  const auto& created = all[2].value;
  EXPECT_EQ(all[2].key, Json({{"id", 3}}));
  EXPECT_EQ(created["after"], Json({{"id", 3}, {"name", "Cy"}, {"vip", false}}));
  EXPECT_EQ(created["source"]["connector"], "postgresql");
  EXPECT_EQ(created["source"]["name"], "pg");
  EXPECT_EQ(created["source"]["schema"], "public");
  EXPECT_EQ(created["source"]["snapshot"], "false");
  EXPECT_TRUE(created["source"]["txId"].is_number_integer());
  EXPECT_TRUE(created["source"]["lsn"].is_number_integer());
  // Without REPLICA IDENTITY FULL an update carries no old row, and a delete only the key.
  EXPECT_TRUE(all[3].value["before"].is_null());
  EXPECT_EQ(all[3].value["after"]["name"], "Bobby");
  EXPECT_EQ(all[4].key, Json({{"id", 1}}));
  EXPECT_EQ(all[4].value["before"], Json({{"id", 1}, {"name", nullptr}, {"vip", nullptr}}));
  EXPECT_TRUE(all[4].value["after"].is_null());
  EXPECT_EQ(all[5].key, Json({{"id", 1}}));
  EXPECT_TRUE(stop_source().ok()) << source_status_.to_string();

  // Every event reads as a ChangeEvent, as table_from_changes reads it.
  DebeziumSerde<Json> serde;
  auto event = serde.deserialize(all[3].value.dump());
  ASSERT_TRUE(event) << event.error().to_string();
  EXPECT_EQ(event->op, ChangeOp::kUpdate);
  EXPECT_EQ(event->source.table, "customers");
}

TEST_F(PostgresSourceTest, TypesAreWrittenAsDebeziumWritesThemInTheSnapshotAndTheStream) {
  exec("CREATE TYPE mood AS ENUM ('ok', 'happy')");
  exec(R"(CREATE TABLE typed (
      id bigint PRIMARY KEY, small smallint, flag boolean, ratio double precision,
      price numeric(12, 2), label varchar(20), doc jsonb, uid uuid, raw bytea, day date,
      at_time time, at timestamp, at_tz timestamptz, tags text[], feeling mood, big text))");
  exec("ALTER TABLE typed ALTER COLUMN big SET STORAGE EXTERNAL");  // TOASTed, uncompressed
  const std::string row =
      "32767, true, 0.25, 1234567890.12, 'café', '{\"a\": [1, 2]}', "
      "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\\x00ff10', '2024-02-29', '13:45:07.5', "
      "'2024-05-01 10:00:00.123456', '2024-05-01 12:00:00+02', '{x,\"y z\"}', 'happy', "
      "repeat('long ', 2000)";
  exec("INSERT INTO typed VALUES (1, " + row + ")");
  exec("CREATE PUBLICATION brook FOR TABLE typed");
  start_source();
  changes("pg.public.typed", 1);
  exec("INSERT INTO typed VALUES (2, " + row + ")");
  // An update that leaves the TOASTed text alone: PostgreSQL does not send it.
  exec("UPDATE typed SET small = 1 WHERE id = 2");
  auto all = changes("pg.public.typed", 3);
  ASSERT_THAT(ops(all), ElementsAre("r", "c", "u"));
  for (const auto* change : {&all[0], &all[1]}) {
    const Json& after = change->value["after"];
    EXPECT_EQ(after["small"], 32767);
    EXPECT_EQ(after["flag"], true);
    EXPECT_EQ(after["ratio"], 0.25);
    EXPECT_EQ(after["price"], "1234567890.12");
    EXPECT_EQ(after["label"], "café");
    EXPECT_EQ(after["doc"], R"({"a": [1, 2]})");
    EXPECT_EQ(after["uid"], "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
    EXPECT_EQ(after["raw"], "AP8Q");
    EXPECT_EQ(after["day"], 19782);
    EXPECT_EQ(after["at_time"], 49'507'500'000);
    EXPECT_EQ(after["at"], 1'714'557'600'123'456);
    EXPECT_EQ(after["at_tz"], "2024-05-01T10:00:00Z");
    EXPECT_EQ(after["tags"], R"({x,"y z"})");
    EXPECT_EQ(after["feeling"], "happy");
    EXPECT_EQ(after["big"].get<std::string>().size(), 10'000u);
  }
  EXPECT_EQ(all[2].value["after"]["small"], 1);
  EXPECT_EQ(all[2].value["after"]["big"], "__debezium_unavailable_value");
}

TEST_F(PostgresSourceTest, FullReplicaIdentityGivesTheOldRowAndAKeyChangeIsADeleteThenACreate) {
  exec("CREATE TABLE t (id int PRIMARY KEY, v text)");
  exec("ALTER TABLE t REPLICA IDENTITY FULL");
  exec("INSERT INTO t VALUES (1, 'a')");
  exec("CREATE PUBLICATION brook FOR TABLE t");
  start_source();
  changes("pg.public.t", 1);
  exec("UPDATE t SET v = 'b' WHERE id = 1");
  exec("UPDATE t SET id = 2 WHERE id = 1");
  auto all = changes("pg.public.t", 5);
  ASSERT_THAT(ops(all), ElementsAre("r", "u", "d", "tombstone", "c"));
  EXPECT_EQ(all[1].value["before"], Json({{"id", 1}, {"v", "a"}}));
  EXPECT_EQ(all[1].value["after"], Json({{"id", 1}, {"v", "b"}}));
  EXPECT_EQ(all[2].key, Json({{"id", 1}}));
  EXPECT_EQ(all[3].key, Json({{"id", 1}}));
  EXPECT_EQ(all[4].key, Json({{"id", 2}}));
  EXPECT_EQ(all[4].value["after"], Json({{"id", 2}, {"v", "b"}}));
}

TEST_F(PostgresSourceTest, TruncateIsAnEventWithoutKeyAndATableWithoutPrimaryKeyHasNullKeys) {
  exec("CREATE TABLE t (id int PRIMARY KEY)");
  exec("CREATE TABLE notes (body text)");
  exec("INSERT INTO t VALUES (0)");
  exec("CREATE PUBLICATION brook FOR TABLE t, notes WITH (publish = 'insert, truncate')");
  start_source();
  changes("pg.public.t", 1);  // the snapshot is taken: what follows is streamed
  exec("INSERT INTO t VALUES (1)");
  exec("INSERT INTO notes VALUES ('hello')");
  exec("TRUNCATE t");
  auto notes = changes("pg.public.notes", 1);
  EXPECT_TRUE(notes[0].key.is_null());
  EXPECT_EQ(notes[0].value["after"], Json({{"body", "hello"}}));
  auto all = changes("pg.public.t", 3);
  ASSERT_THAT(ops(all), ElementsAre("r", "c", "t"));
  EXPECT_TRUE(all[2].key.is_null());
}

TEST_F(PostgresSourceTest, ColumnsAddedAndDroppedMidStreamAppearAndDisappear) {
  exec("CREATE TABLE t (id int PRIMARY KEY, a text)");
  exec("CREATE PUBLICATION brook FOR TABLE t");
  start_source();
  exec("INSERT INTO t VALUES (1, 'x')");
  changes("pg.public.t", 1);
  exec("ALTER TABLE t ADD COLUMN b int");
  exec("INSERT INTO t VALUES (2, 'y', 7)");
  exec("ALTER TABLE t DROP COLUMN a");
  exec("INSERT INTO t VALUES (3, 8)");
  auto all = changes("pg.public.t", 3);
  EXPECT_EQ(all[0].value["after"], Json({{"id", 1}, {"a", "x"}}));
  EXPECT_EQ(all[1].value["after"], Json({{"id", 2}, {"a", "y"}, {"b", 7}}));
  EXPECT_EQ(all[2].value["after"], Json({{"id", 3}, {"b", 8}}));
}

TEST_F(PostgresSourceTest, ARestartedSourceWritesEveryChangeOnce) {
  exec("CREATE TABLE t (id int PRIMARY KEY, n int)");
  exec("INSERT INTO t SELECT g, 0 FROM generate_series(1, 100) g");
  exec("CREATE PUBLICATION brook FOR TABLE t");
  auto small_batches = config();
  small_batches.max_batch_changes = 7;
  start_source(small_batches);
  changes("pg.public.t", 100);
  exec("UPDATE t SET n = 1 WHERE id <= 50");
  changes("pg.public.t", 150);
  ASSERT_TRUE(stop_source().ok()) << source_status_.to_string();
  // While it is stopped: one transaction of 100 updates, and one of a delete.
  exec("UPDATE t SET n = n + 1");
  exec("DELETE FROM t WHERE id = 100");
  start_source(small_batches);
  auto all = changes("pg.public.t", 252);
  ASSERT_TRUE(stop_source().ok()) << source_status_.to_string();
  all = changes("pg.public.t", 252);  // nothing more came
  EXPECT_EQ(all.size(), 252u);
  std::map<int, int> n;
  for (const auto& change : all) {
    if (change.op() == "u") n[change.key["id"].get<int>()] = change.value["after"]["n"].get<int>();
  }
  EXPECT_EQ(n[1], 2);
  EXPECT_EQ(n[60], 1);
  EXPECT_EQ(all.back().op(), "tombstone");
}

// One transaction of a million rows (BROOK_CDC_LARGE_ROWS changes it) reaches the log whole,
// over many log transactions, each with its position.
TEST_F(PostgresSourceTest, ALargeTransactionIsWrittenWholeInBoundedLogTransactions) {
  const char* rows_env = std::getenv("BROOK_CDC_LARGE_ROWS");
  const std::int64_t rows = rows_env ? std::atoll(rows_env) : 1'000'000;
  exec("CREATE TABLE t (id int PRIMARY KEY, n int)");
  exec("INSERT INTO t VALUES (0, 0)");
  exec("CREATE PUBLICATION brook FOR TABLE t");
  start_source();
  changes("pg.public.t", 1);  // streaming
  exec(fmt::format("INSERT INTO t SELECT g, g FROM generate_series(1, {}) g", rows));
  wait_for_source_past(*exec("SELECT pg_current_wal_insert_lsn()")[0][0], std::chrono::minutes(5));
  if (HasFatalFailure()) return;
  ASSERT_TRUE(stop_source().ok()) << source_status_.to_string();
  // Every row once: the snapshot's and the transaction's (counted by offsets, not read).
  auto end_offset = log_->admin().list_offset({"pg.public.t", Partition(0)},
                                              {.kind = internal::OffsetSpec::Kind::kLatest});
  ASSERT_TRUE(end_offset) << end_offset.error().to_string();
  EXPECT_EQ(end_offset->value(), rows + 1);
  // The position: the transaction, complete, after rows / 10000 log transactions or more.
  auto position = internal::read_position(*log_, "pg.cdc-offsets", database());
  ASSERT_TRUE(position && *position) << (position ? "none" : position.error().to_string());
  EXPECT_TRUE((*position)->complete);
  EXPECT_EQ((*position)->changes, rows);
  auto positions = log_->admin().list_offset({"pg.cdc-offsets", Partition(0)},
                                             {.kind = internal::OffsetSpec::Kind::kLatest});
  ASSERT_TRUE(positions);
  EXPECT_GE(positions->value(), rows / config().max_batch_changes);
}

// A transaction of exactly two full batches: its last batch is committed when the commit
// message comes (the batch is full), so the position that says "complete" needs a log
// transaction of its own. Every such transaction is complete in the position that follows it.
TEST_F(PostgresSourceTest, ATransactionEndingWithAFullBatchIsRecordedComplete) {
  exec("CREATE TABLE t (id int PRIMARY KEY, n int)");
  exec("INSERT INTO t VALUES (0, 0)");
  exec("CREATE PUBLICATION brook FOR TABLE t");
  auto small_batches = config();
  small_batches.max_batch_changes = 5;
  start_source(small_batches);
  changes("pg.public.t", 1);  // streaming
  for (int round = 0; round < 5; ++round) {
    exec(fmt::format("INSERT INTO t SELECT g, g FROM generate_series({}, {}) g", 10 * round + 1,
                     10 * round + 10));
    wait_for_source_past(*exec("SELECT pg_current_wal_insert_lsn()")[0][0],
                         std::chrono::minutes(1));
    if (HasFatalFailure()) return;
    auto position = internal::read_position(*log_, "pg.cdc-offsets", database());
    ASSERT_TRUE(position && *position) << (position ? "none" : position.error().to_string());
    EXPECT_TRUE((*position)->complete) << "round " << round;
    EXPECT_EQ((*position)->changes, 10) << "round " << round;
  }
  ASSERT_TRUE(stop_source().ok()) << source_status_.to_string();
  EXPECT_EQ(changes("pg.public.t", 51).size(), 51u);
}

TEST_F(PostgresSourceTest, TenTablesOfOnePublication) {
  for (int i = 0; i < 10; ++i) {
    exec(fmt::format("CREATE TABLE t{} (id bigint PRIMARY KEY, v text)", i));
    exec(fmt::format("INSERT INTO t{} VALUES (1, 'snap')", i));
  }
  exec("CREATE PUBLICATION brook FOR ALL TABLES");
  start_source();
  for (int i = 0; i < 10; ++i) changes(fmt::format("pg.public.t{}", i), 1);
  exec("BEGIN");
  for (int i = 0; i < 10; ++i) exec(fmt::format("INSERT INTO t{} VALUES (2, 'tx')", i));
  exec("COMMIT");
  for (int i = 0; i < 10; ++i) {
    auto all = changes(fmt::format("pg.public.t{}", i), 2);
    ASSERT_THAT(ops(all), ElementsAre("r", "c"));
    EXPECT_EQ(all[1].value["after"], Json({{"id", 2}, {"v", "tx"}}));
  }
}

TEST_F(PostgresSourceTest, ASlotLostAfterTheSnapshotIsAnErrorNotANewSnapshot) {
  exec("CREATE TABLE t (id int PRIMARY KEY)");
  exec("CREATE PUBLICATION brook FOR TABLE t");
  start_source();
  exec("INSERT INTO t VALUES (1)");
  changes("pg.public.t", 1);
  ASSERT_TRUE(stop_source().ok());
  wait_until_slots_idle();
  exec("SELECT pg_drop_replication_slot('" + database() + "')");
  std::stop_source never;
  Status status = internal::run_postgres_source(config(), *log_, never.get_token());
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("replication slot " + database() + " is gone"));
}

TEST_F(PostgresSourceTest, EveryReasonTheServerRefusesIsNamedBeforeAnythingRuns) {
  // Roles belong to the server, which the tests share: a name of this test's own.
  const std::string reader = database() + "_reader";
  exec("CREATE ROLE " + reader + " LOGIN PASSWORD 'pw'");
  exec("CREATE TABLE secret (id int PRIMARY KEY)");
  exec("CREATE PUBLICATION brook FOR TABLE secret");
  std::stop_source never;
  auto as_reader = config();
  as_reader.dsn = dsn() + " user=" + reader + " password=pw";
  Status status = internal::run_postgres_source(as_reader, *log_, never.get_token());
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("user " + reader + " may not replicate"));
  EXPECT_THAT(status.message(), HasSubstr("user " + reader + " may not SELECT from public.secret"));

  auto missing = config();
  missing.publication = "nope";
  status = internal::run_postgres_source(missing, *log_, never.get_token());
  EXPECT_THAT(status.message(), HasSubstr("publication nope does not exist"));

  auto wrong_password = config();
  wrong_password.dsn = dsn() + " user=" + reader + " password=wrong";
  status = internal::run_postgres_source(wrong_password, *log_, never.get_token());
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("password authentication failed"));

  status = internal::run_postgres_source({}, *log_, never.get_token());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("dsn is required"));
  EXPECT_THAT(status.message(), HasSubstr("topic_prefix is required"));
  exec("DROP ROLE " + reader);
}

TEST_F(PostgresSourceTest, ThePublicEntryPointOpensTheLogItIsGiven) {
  exec("CREATE TABLE t (id int PRIMARY KEY)");
  exec("INSERT INTO t VALUES (1)");
  exec("CREATE PUBLICATION brook FOR TABLE t");
  std::stop_source stop;
  Status status = run_postgres_source(config(), {{"data.dir", "x"}, {"bootstrap.servers", "y"}},
                                      stop.get_token());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("not both"));
  status = run_postgres_source(config(), {{"state.dir", "x"}}, stop.get_token());
  EXPECT_THAT(status.message(), HasSubstr("unknown log setting 'state.dir'"));
  status = run_postgres_source(config(), {{"bootstrap.servers", ""}}, stop.get_token());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("bootstrap.servers names no servers"));

  // A data dir of its own: the snapshot's row is there once the source stops.
  const auto dir = scratch_.path() / "own";
  std::jthread source([&](std::stop_token token) {
    status = run_postgres_source(config(), {{"data.dir", dir.string()}}, token);
  });
  wait_until_streaming(database());
  source.request_stop();
  source.join();
  ASSERT_TRUE(status.ok()) << status.to_string();
  auto log = internal::open_embedded_log({.data_dir = dir});
  ASSERT_TRUE(log) << log.error().to_string();
  auto records = testing::read_topic(**log, "pg.public.t");
  ASSERT_EQ(records[0].size(), 1u);
  EXPECT_EQ(records[0][0].key, R"({"id":1})");
}

TEST_F(PostgresSourceTest, AConnectionEndedUnderTheSourceIsReopenedAndLosesNothing) {
  start_reconnecting_source_with_a_row(std::chrono::milliseconds(50));
  wait_until_streaming(database());
  // The server ends the replication connection, as a network drop would.
  exec("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '" +
       database() + "'");
  exec("INSERT INTO t SELECT generate_series(2, 100)");
  auto all = changes("pg.public.t", 100);
  ASSERT_TRUE(stop_source().ok()) << source_status_.to_string();
  all = changes("pg.public.t", 100);
  ASSERT_EQ(all.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(all[i].key, Json({{"id", i + 1}}));
}

TEST_F(PostgresSourceTest, TheSourceSurvivesAServerRestart) {
  start_reconnecting_source_with_a_row(std::chrono::milliseconds(100));
  restart_postgres();
  reconnect();
  exec("INSERT INTO t VALUES (2)");
  auto all = changes("pg.public.t", 2);
  ASSERT_TRUE(stop_source().ok()) << source_status_.to_string();
  all = changes("pg.public.t", 2);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].key, Json({{"id", 2}}));
}

// The same source on a real Kafka broker: Kafka transactions carry the changes and the
// position together.
class KafkaPostgresSourceTest : public PostgresSourceTest {
 protected:
  Result<std::unique_ptr<internal::LogBackend>> open_log() override {
    prefix_ = testing::unique_name("pg");  // the broker is shared
    const std::string bootstrap = testing::kafka_bootstrap();
    if (bootstrap.empty()) return error(Status::failed_precondition("no Kafka broker"));
    return internal::open_kafka_backend({.bootstrap_servers = bootstrap});
  }
};

TEST_F(KafkaPostgresSourceTest, EveryChangeReachesKafkaOnceAcrossARestart) {
  exec("CREATE TABLE t (id int PRIMARY KEY, n int)");
  exec("INSERT INTO t SELECT g, 0 FROM generate_series(1, 100) g");
  exec("CREATE PUBLICATION brook FOR TABLE t");
  const std::string topic = prefix_ + ".public.t";
  auto small_batches = config();
  small_batches.max_batch_changes = 30;
  start_source(small_batches);
  changes(topic, 100);
  exec("UPDATE t SET n = 1 WHERE id <= 50");
  changes(topic, 150);
  ASSERT_TRUE(stop_source().ok()) << source_status_.to_string();
  exec("UPDATE t SET n = n + 1");
  exec("DELETE FROM t WHERE id = 100");
  start_source(small_batches);
  auto all = changes(topic, 252);
  ASSERT_TRUE(stop_source().ok()) << source_status_.to_string();
  all = changes(topic, 252);
  EXPECT_EQ(all.size(), 252u);
  std::map<int, int> updates;
  for (const auto& change : all) {
    if (change.op() == "u") ++updates[change.key["id"].get<int>()];
  }
  EXPECT_EQ(updates[1], 2);
  EXPECT_EQ(updates[60], 1);
  EXPECT_EQ(all.back().op(), "tombstone");
}

}  // namespace
}  // namespace brook
