// examples/profile_enrichment end to end: a real PostgreSQL server, the PostgreSQL source
// running inside the application (brook::run_postgres_source(config, app, stop)), on the
// embedded log and on Kafka. Clicks sent after each change of the `profiles` table (a
// snapshot; then updates, deletes and inserts) are enriched with the rows PostgreSQL holds at
// that moment, read back from PostgreSQL itself: the recomputation.
#include "profile_enrichment.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <thread>

#include "backend/embedded/embedded_log.h"
#include "backend/kafka/kafka_backend.h"
#include "brook/streams.h"
#include "kafka_cluster.h"
#include "postgres_server.h"
#include "scratch_dir.h"
#include "topic_reader.h"

namespace profile_enrichment {
namespace {

using brook::internal::LogBackend;
using brook::internal::NewTopic;
using Rows = std::map<std::int64_t, Profile>;

class ProfileEnrichmentTest : public brook::testing::PostgresFixture {
 protected:
  // The rows of `profiles` as PostgreSQL holds them now.
  Rows rows_in_postgres() {
    Rows rows;
    for (const auto& row : exec("SELECT user_id, name, tier FROM profiles")) {
      rows[std::stoll(*row.at(0))] = Profile{.name = *row.at(1), .tier = *row.at(2)};
    }
    return rows;
  }

  // Creates the example's topics on `log`, anew and empty, each with `partitions`.
  static void create_topics(LogBackend& log, std::int32_t partitions) {
    const std::vector<NewTopic> topics = {{.name = kProfilesTopic,
                                           .partitions = partitions,
                                           .configs = {{"cleanup.policy", "compact"}}},
                                          {.name = kClicksTopic, .partitions = partitions},
                                          {.name = kOutputTopic, .partitions = partitions}};
    brook::testing::create_topics_anew(log, topics);
  }

  // Waits until the application's table holds exactly `rows`.
  static void wait_for_table(const brook::Streams& app, const Rows& rows) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (true) {
      Rows table;
      if (auto store = app.store<UserKey, Profile>("profiles")) {
        if (auto all = store->all()) {
          for (const auto& entry : *all) table[entry.key.user_id] = entry.value;
        }
      }
      auto same = [](const Rows& a, const Rows& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
          return x.first == y.first && x.second.name == y.second.name &&
                 x.second.tier == y.second.tier;
        });
      };
      if (same(table, rows)) return;
      ASSERT_LT(std::chrono::steady_clock::now(), deadline)
          << "the table has " << table.size() << " rows, PostgreSQL " << rows.size();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  // Sends a click of every user from 1 to kUsers (some without a row), page `page`, and
  // expects each enriched as `rows` says.
  void click_everyone(LogBackend& log, const std::string& page, const Rows& rows) {
    auto producer = log.make_producer({});
    ASSERT_TRUE(producer) << producer.error().to_string();
    const brook::JsonSerde<UserKey> keys;
    const brook::JsonSerde<Click> clicks;
    const auto now = brook::Timestamp(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
    for (std::int64_t user = 1; user <= kUsers; ++user) {
      ASSERT_TRUE((*producer)
                      ->send({.topic = kClicksTopic,
                              .timestamp = now,
                              .key = *keys.serialize({user}),
                              .value = *clicks.serialize({page})})
                      .ok());
      auto row = rows.find(user);
      expected_[{user, page}] =
          enrich({page}, row == rows.end() ? std::nullopt : std::optional(row->second));
    }
    ASSERT_TRUE((*producer)->flush().ok());
  }

  // Waits until the output holds a click for every one sent, then compares them.
  void check_output(LogBackend& log) {
    const brook::JsonSerde<UserKey> keys;
    const brook::JsonSerde<EnrichedClick> values;
    std::map<std::pair<std::int64_t, std::string>, EnrichedClick> seen;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (seen.size() < expected_.size()) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline)
          << seen.size() << " of " << expected_.size() << " enriched clicks";
      seen.clear();
      for (const auto& [partition, records] : brook::testing::read_topic(log, kOutputTopic)) {
        for (const auto& record : records) {
          auto click = values.deserialize(*record.value);
          ASSERT_TRUE(click) << click.error().to_string();
          const auto key = std::pair(keys.deserialize(*record.key)->user_id, click->page);
          ASSERT_TRUE(seen.emplace(key, *click).second) << "twice: " << *record.value;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (const auto& [click, enriched] : expected_) {
      EXPECT_EQ(seen.at(click), enriched) << "user " << click.first << ", " << click.second;
    }
  }

  // The scenario on the log `config` names; the example's topics get `partitions`.
  void run_scenario(std::map<std::string, std::string> config, std::int32_t partitions) {
    exec(kCreateTable);
    exec("INSERT INTO profiles SELECT g, 'user ' || g, 'silver' FROM generate_series(1, 40) g");
    exec(fmt::format("CREATE PUBLICATION {} FOR TABLE profiles", kPublication));
    config["application.id"] = "profile-enrichment-" + database();
    config["commit.interval.ms"] = "50";

    brook::Streams app(*build_topology(), config);
    {
      // The topics, before the application starts (it refuses missing ones).
      auto log = config.contains("bootstrap.servers")
                     ? brook::internal::open_kafka_backend(
                           {.bootstrap_servers = config["bootstrap.servers"]})
                     : brook::internal::open_embedded_log({.data_dir = config["data.dir"]});
      ASSERT_TRUE(log) << log.error().to_string();
      create_topics(**log, partitions);
    }
    ASSERT_TRUE(app.start().ok());
    const brook::PostgresSourceConfig source{.dsn = dsn(),
                                             .publication = kPublication,
                                             .slot = database(),
                                             .topic_prefix = kTopicPrefix,
                                             .partitions = partitions};
    brook::Status source_status;
    std::jthread cdc([&](std::stop_token stop) {
      source_status = brook::run_postgres_source(source, app, stop);
    });
    auto log = app.log_backend();

    // The snapshot.
    wait_for_table(app, rows_in_postgres());
    click_everyone(*log, "/after-snapshot", rows_in_postgres());
    // Updates, deletes and inserts, committed together and apart.
    exec("UPDATE profiles SET tier = 'gold' WHERE user_id % 3 = 0");
    exec(
        "BEGIN; DELETE FROM profiles WHERE user_id % 5 = 0; "
        "INSERT INTO profiles SELECT g, 'new ' || g, 'bronze' FROM generate_series(41, 45) g; "
        "COMMIT");
    wait_for_table(app, rows_in_postgres());
    click_everyone(*log, "/after-changes", rows_in_postgres());
    // A row deleted and one renamed.
    exec("DELETE FROM profiles WHERE user_id = 1");
    exec("UPDATE profiles SET name = 'renamed' WHERE user_id = 2");
    wait_for_table(app, rows_in_postgres());
    click_everyone(*log, "/after-more", rows_in_postgres());
    check_output(*log);

    cdc.request_stop();
    cdc.join();
    EXPECT_TRUE(source_status.ok()) << source_status.to_string();
    EXPECT_TRUE(app.close().ok());
  }

  static constexpr std::int64_t kUsers = 50;  // 40 rows at first, 45 ids at most
  std::map<std::pair<std::int64_t, std::string>, EnrichedClick> expected_;
};

TEST_F(ProfileEnrichmentTest, ClicksFollowTheRowsOfPostgresOnTheEmbeddedLog) {
  brook::testing::ScratchDir scratch("brook-profile-enrichment");
  run_scenario({{"data.dir", (scratch.path() / "log").string()}}, 1);
}

TEST_F(ProfileEnrichmentTest, ClicksFollowTheRowsOfPostgresOnKafka) {
  // Two partitions: clicks keyed as Debezium keys the rows meet them in the same partition.
  run_scenario({{"bootstrap.servers", brook::testing::kafka_bootstrap()}}, 2);
}

}  // namespace
}  // namespace profile_enrichment
