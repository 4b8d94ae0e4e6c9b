// The test support of the CDC tests (postgres_server.h) against the real server
// (scripts/postgres.sh): a database of each test's own, logical replication enabled, the
// server restarted with its data, and a test's slots and database gone after it, even a slot
// a walsender still holds.
#include "postgres_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace brook {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using Row = std::vector<std::optional<std::string>>;

class PostgresServerTest : public testing::PostgresFixture {};

TEST_F(PostgresServerTest, RowsAreWrittenAndReadBackWithNulls) {
  exec("CREATE TABLE t (id int PRIMARY KEY, v text)");
  exec("INSERT INTO t VALUES (1, 'one'), (2, NULL)");
  EXPECT_THAT(exec("SELECT id, v FROM t ORDER BY id"),
              ElementsAre(Row{"1", "one"}, Row{"2", std::nullopt}));
  EXPECT_TRUE(exec("UPDATE t SET v = 'x' WHERE id = 3").empty());
}

TEST_F(PostgresServerTest, TheDsnNamesTheTestsOwnDatabase) {
  EXPECT_THAT(database(), ::testing::MatchesRegex("brook_[0-9]+_[0-9]+_[0-9]+"));
  EXPECT_THAT(dsn(), HasSubstr("dbname=" + database()));
  EXPECT_THAT(dsn(), Not(HasSubstr("dbname=postgres")));
  EXPECT_THAT(exec("SELECT current_database()"), ElementsAre(Row{database()}));
  // A later keyword overrides an earlier one, as the tests that connect as another user rely on.
  testing::PgSession other(dsn() + " application_name=other");
  EXPECT_THAT(other.exec("SELECT current_database(), current_setting('application_name')"),
              ElementsAre(Row{database(), "other"}));
}

TEST_F(PostgresServerTest, TheServerIsSetUpForLogicalReplication) {
  EXPECT_THAT(exec("SHOW wal_level"), ElementsAre(Row{"logical"}));
  EXPECT_THAT(exec("SHOW max_replication_slots"), ElementsAre(Row{"20"}));
  EXPECT_THAT(exec("SHOW max_wal_senders"), ElementsAre(Row{"20"}));

  exec("SELECT pg_create_logical_replication_slot('" + database() + "', 'pgoutput')");
  EXPECT_THAT(exec("SELECT plugin, database FROM pg_replication_slots WHERE slot_name = '" +
                   database() + "'"),
              ElementsAre(Row{"pgoutput", database()}));
  // A replication connection (as the CDC source opens) is let in and sees the slot.
  testing::PgSession replication(dsn() + " replication=database");
  ASSERT_TRUE(replication.ok());
  EXPECT_THAT(replication.exec("IDENTIFY_SYSTEM"),
              ElementsAre(::testing::ElementsAre(::testing::_, "1", ::testing::_, database())));
  exec("SELECT pg_drop_replication_slot('" + database() + "')");
  EXPECT_TRUE(
      exec("SELECT 1 FROM pg_replication_slots WHERE slot_name = '" + database() + "'").empty());
}

TEST_F(PostgresServerTest, ARestartKeepsTheDataAndTheSlots) {
  exec("CREATE TABLE t (id int PRIMARY KEY)");
  exec("INSERT INTO t SELECT generate_series(1, 1000)");
  exec("SELECT pg_create_logical_replication_slot('" + database() + "', 'pgoutput')");
  restart_postgres();
  reconnect();
  EXPECT_THAT(exec("SELECT count(*) FROM t"), ElementsAre(Row{"1000"}));
  EXPECT_THAT(
      exec("SELECT slot_name FROM pg_replication_slots WHERE database = '" + database() + "'"),
      ElementsAre(Row{database()}));
  // The fixture drops the slot, then the database.
}

// PostgresFixture's SetUp and TearDown run by hand, to see what TearDown leaves.
class Probe : public testing::PostgresFixture {
 public:
  void TestBody() override {}
  using PostgresFixture::database;
  using PostgresFixture::dsn;
  using PostgresFixture::exec;
  using PostgresFixture::SetUp;
  using PostgresFixture::TearDown;
};

TEST(PostgresFixtureTearDown, DropsTheDatabaseAndItsSlotsEvenOneAWalsenderHolds) {
  Probe probe;
  probe.SetUp();
  ASSERT_FALSE(::testing::Test::HasFailure());
  const std::string database = probe.database();
  probe.exec("CREATE TABLE t (id int PRIMARY KEY)");
  probe.exec("CREATE PUBLICATION p FOR TABLE t");
  probe.exec("SELECT pg_create_logical_replication_slot('" + database + "_held', 'pgoutput')");
  probe.exec("SELECT pg_create_logical_replication_slot('" + database + "_idle', 'pgoutput')");
  // A walsender streaming the first slot, as a CDC source would be.
  std::unique_ptr<PGconn, decltype(&PQfinish)> stream(
      PQconnectdb((probe.dsn() + " replication=database").c_str()), &PQfinish);
  ASSERT_EQ(PQstatus(stream.get()), CONNECTION_OK) << PQerrorMessage(stream.get());
  std::unique_ptr<PGresult, decltype(&PQclear)> started(
      PQexec(stream.get(), ("START_REPLICATION SLOT " + database +
                            "_held LOGICAL 0/0 (proto_version '1', publication_names 'p')")
                               .c_str()),
      &PQclear);
  ASSERT_EQ(PQresultStatus(started.get()), PGRES_COPY_BOTH) << PQerrorMessage(stream.get());
  EXPECT_THAT(probe.exec("SELECT slot_name FROM pg_replication_slots WHERE active"),
              ::testing::Contains(Row{database + "_held"}));

  probe.TearDown();
  testing::PgSession server(testing::postgres_dsn());
  EXPECT_TRUE(server.exec("SELECT 1 FROM pg_database WHERE datname = '" + database + "'").empty());
  EXPECT_TRUE(server
                  .exec("SELECT slot_name FROM pg_replication_slots WHERE slot_name LIKE '" +
                        database + "%'")
                  .empty());
}

}  // namespace
}  // namespace brook
