// profile_enrichment through the test driver, fed Debezium change events as the PostgreSQL
// source writes them: clicks follow the rows' creates, updates and deletes.
// tests/cdc/profile_enrichment_test.cc runs it against a real PostgreSQL server.
#include "profile_enrichment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "brook/testing/topology_test_driver.h"

namespace profile_enrichment {
namespace {

using brook::Timestamp;

// A change event of user `id`'s row: op c, u or d, with the row's name and tier after it.
std::string change(const std::string& op, std::int64_t id, const std::string& name,
                   const std::string& tier) {
  const std::string row = R"({"user_id":)" + std::to_string(id) + R"(,"name":")" + name +
                          R"(","tier":")" + tier + R"("})";
  return R"({"before":)" + (op == "c" ? "null" : row) + R"(,"after":)" +
         (op == "d" ? "null" : row) +
         R"(,"source":{"connector":"postgresql","name":"pg","db":"shop","schema":"public",)"
         R"("table":"profiles","snapshot":"false","ts_ms":1,"txId":7,"lsn":100},"op":")" +
         op + R"(","ts_ms":2})";
}

TEST(ProfileEnrichment, ClicksFollowTheRowsCreatesUpdatesAndDeletes) {
  brook::testing::TopologyTestDriver driver(*build_topology());
  auto clicks = driver.create_input_topic<UserKey, Click>(kClicksTopic);
  auto out = driver.create_output_topic<UserKey, EnrichedClick>(kOutputTopic);
  const std::string key = R"({"user_id":7})";
  clicks.pipe_input({7}, {"/home"}, Timestamp(1));
  driver.pipe_raw_input(kProfilesTopic, key, change("c", 7, "Ada", "silver"), Timestamp(2));
  clicks.pipe_input({7}, {"/cart"}, Timestamp(3));
  driver.pipe_raw_input(kProfilesTopic, key, change("u", 7, "Ada", "gold"), Timestamp(4));
  clicks.pipe_input({7}, {"/pay"}, Timestamp(5));
  driver.pipe_raw_input(kProfilesTopic, key, change("d", 7, "Ada", "gold"), Timestamp(6));
  driver.pipe_raw_input(kProfilesTopic, key, std::nullopt, Timestamp(6));  // the tombstone
  clicks.pipe_input({7}, {"/bye"}, Timestamp(7));
  EXPECT_THAT(out.read_values_to_list(),
              ::testing::ElementsAre(
                  EnrichedClick{"/home", "", "unknown"}, EnrichedClick{"/cart", "Ada", "silver"},
                  EnrichedClick{"/pay", "Ada", "gold"}, EnrichedClick{"/bye", "", "unknown"}));
}

}  // namespace
}  // namespace profile_enrichment
