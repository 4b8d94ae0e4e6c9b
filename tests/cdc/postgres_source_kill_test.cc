// The PostgreSQL source (`brook cdc postgres`, a process of its own) killed with SIGKILL at
// random points while transactions commit, restarted each time: at the end the log holds every
// change exactly once, in commit order.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "backend/embedded/embedded_log.h"
#include "integration/child_process.h"
#include "postgres_server.h"
#include "scratch_dir.h"
#include "test_env.h"
#include "topic_reader.h"

namespace brook {
namespace {

using Json = nlohmann::json;

// Kills of the source; BROOK_CDC_KILLS overrides (a longer campaign by hand).
std::int64_t kills() { return testing::env_or("BROOK_CDC_KILLS", 20); }

class PostgresSourceKillTest : public testing::PostgresFixture {
 protected:
  // The source as a child process on the data dir.
  std::unique_ptr<testing::ChildProcess> start_source() {
    return std::make_unique<testing::ChildProcess>(
        BROOK_CLI_PATH,
        std::vector<std::string>{"cdc", "postgres", "--dsn", dsn(), "--publication", "brook",
                                 "--slot", database(), "--topic-prefix", "pg", "--data-dir",
                                 data_dir_.string(), "--max-batch-changes", "7"});
  }

  // Runs the source until it streams past every commit so far, then stops it with SIGTERM.
  void run_until_caught_up() {
    auto source = start_source();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    // Caught up: streaming (so past its start, where a signal would end it, and its
    // snapshot), and the slot confirmed past the WAL's insert position after the last commit
    // (the write position may lag behind the commit records).
    const auto insert_lsn = exec("SELECT pg_current_wal_insert_lsn()");
    ASSERT_EQ(insert_lsn.size(), 1u);
    const std::string last_commit = insert_lsn[0][0].value_or("");
    auto caught_up = [&] { return slot_streams_past(database(), last_commit); };
    while (!caught_up()) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the source did not catch up";
      ASSERT_FALSE(source->wait(std::chrono::milliseconds(50))) << "the source exited";
    }
    source->signal(SIGTERM);
    ASSERT_EQ(source->wait(std::chrono::seconds(30)), 0);
  }

  // Every record of `topic` (none if the source has not created it), read with the source
  // stopped (the data dir is then free).
  std::vector<std::pair<Json, Json>> records(const std::string& topic) {
    auto log = internal::open_embedded_log({.data_dir = data_dir_});
    EXPECT_TRUE(log) << log.error().to_string();
    std::vector<std::pair<Json, Json>> out;
    if (!log) return out;
    if (auto described = (*log)->admin().describe_topic(topic);
        !described && described.error().code() == StatusCode::kNotFound) {
      return out;
    }
    auto partitions = testing::read_topic(**log, topic);
    for (const auto& record : partitions[0]) {
      out.emplace_back(record.key ? Json::parse(*record.key) : Json(),
                       record.value ? Json::parse(*record.value) : Json());
    }
    return out;
  }

  testing::ScratchDir scratch_{"brook-cdc-kill"};
  std::filesystem::path data_dir_ = scratch_.path() / "log";
};

TEST_F(PostgresSourceKillTest, EveryChangeIsInTheLogOnceAfterKillsAtRandomPoints) {
  exec("CREATE TABLE events (id bigint PRIMARY KEY, body text)");
  exec("CREATE TABLE counter (id int PRIMARY KEY, n bigint)");
  exec("INSERT INTO counter VALUES (1, 0)");
  exec("CREATE PUBLICATION brook FOR TABLE events, counter");

  std::mt19937 random(20261203);
  std::int64_t next_id = 1, transactions = 0;
  // A transaction of 1 to 20 inserts and one update of the counter: some span several log
  // transactions of the source (at most 7 changes each).
  auto commit_one = [&] {
    const int rows = std::uniform_int_distribution(1, 20)(random);
    exec(
        fmt::format("BEGIN; INSERT INTO events SELECT g, 'e' || g FROM generate_series({}, {}) g; "
                    "UPDATE counter SET n = n + 1; COMMIT",
                    next_id, next_id + rows - 1));
    next_id += rows;
    ++transactions;
  };
  for (int kill = 0; kill < kills(); ++kill) {
    // A backlog, so that the source is busy catching up when it is killed: in the middle of
    // a transaction of PostgreSQL's, of a log transaction, between the log's commit and the
    // slot's confirmation, or still starting (the snapshot, the first time).
    for (int i = 0, backlog = std::uniform_int_distribution(20, 80)(random); i < backlog; ++i) {
      commit_one();
    }
    auto source = start_source();
    for (int i = 0, more = std::uniform_int_distribution(0, 5)(random); i < more; ++i) {
      commit_one();  // while it runs
    }
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution(0, 200)(random)));
    source->signal(SIGKILL);
    ASSERT_EQ(source->wait(std::chrono::seconds(30)), -SIGKILL);
  }

  // A last run, stopped by SIGTERM once the log holds every event.
  const std::int64_t expected_events = next_id - 1;
  run_until_caught_up();

  // Each event once, in order: the snapshot's (if it ran after some inserts) as reads, the
  // rest as creates.
  auto events = records("pg.public.events");
  std::map<std::int64_t, int> seen;
  for (const auto& [key, value] : events) ++seen[key["id"].get<std::int64_t>()];
  for (std::int64_t id = 1; id <= expected_events; ++id) {
    EXPECT_EQ(seen[id], 1) << "event " << id << " of " << expected_events;
  }
  ASSERT_EQ(static_cast<std::int64_t>(events.size()), expected_events);
  for (std::int64_t i = 0; i < expected_events; ++i) {
    ASSERT_EQ(events[i].first, Json({{"id", i + 1}})) << "record " << i;
    EXPECT_EQ(events[i].second["after"]["body"], fmt::format("e{}", i + 1));
  }
  // The counter: one read, then one update per transaction after the snapshot, each value
  // once and in order.
  auto counter = records("pg.public.counter");
  ASSERT_FALSE(counter.empty());
  ASSERT_EQ(counter[0].second["op"], "r");
  std::int64_t n = counter[0].second["after"]["n"].get<std::int64_t>();
  ASSERT_EQ(static_cast<std::int64_t>(counter.size()), transactions - n + 1);
  for (std::size_t i = 1; i < counter.size(); ++i) {
    ASSERT_EQ(counter[i].second["op"], "u");
    ASSERT_EQ(counter[i].second["after"]["n"], ++n);
  }
  EXPECT_EQ(n, transactions);
}

// Killed while it writes its snapshot, the source leaves nothing of it in the log; rows
// deleted and updated before it starts again are neither kept nor repeated.
TEST_F(PostgresSourceKillTest, ASnapshotIsInTheLogWholeOrNotAtAll) {
  // BROOK_CDC_SNAPSHOT_ROWS overrides: the sanitizer half of the test command takes fewer (the
  // instrumented source reads them many times slower, so they still take it over a second).
  const std::int64_t table_rows = testing::env_or("BROOK_CDC_SNAPSHOT_ROWS", 300'000);
  exec("CREATE TABLE events (id bigint PRIMARY KEY, body text)");
  exec(fmt::format(
      "INSERT INTO events SELECT g, 'e' || g || repeat('x', 100) FROM generate_series(1, {}) g",
      table_rows));
  exec("CREATE PUBLICATION brook FOR TABLE events");

  {
    auto source = start_source();
    const std::string slot_exists =
        fmt::format("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{}'", database());
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (exec(slot_exists).at(0).at(0) != "1") {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "no slot was created";
      ASSERT_FALSE(source->wait(std::chrono::milliseconds(5))) << "the source exited";
    }
    source->signal(SIGKILL);
    ASSERT_EQ(source->wait(std::chrono::seconds(30)), -SIGKILL);
  }
  // Killed while reading the table (300 000 rows take the source well over a second), it
  // left none of them.
  ASSERT_TRUE(records("pg.public.events").empty());

  exec("DELETE FROM events WHERE id % 100 = 0");
  exec("UPDATE events SET body = 'updated' WHERE id % 100 = 1");
  run_until_caught_up();

  // Each row once, as the table was at the second snapshot (in the table's order, which the
  // update changed).
  std::map<std::int64_t, Json> rows;
  for (const auto& [key, value] : records("pg.public.events")) {
    ASSERT_EQ(value["op"], "r");
    ASSERT_TRUE(rows.emplace(key["id"].get<std::int64_t>(), value["after"]).second)
        << "row " << key << " twice";
  }
  ASSERT_EQ(static_cast<std::int64_t>(rows.size()), table_rows - table_rows / 100);
  for (const auto& [id, after] : rows) {
    ASSERT_NE(id % 100, 0) << "deleted row " << id;
    if (id % 100 == 1) {
      ASSERT_EQ(after["body"], "updated") << "row " << id;
    }
  }
}

}  // namespace
}  // namespace brook
