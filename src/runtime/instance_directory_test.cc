#include "runtime/instance_directory.h"

#include <gtest/gtest.h>

namespace brook::internal {
namespace {

StreamsMetadata instance(std::string server, std::vector<std::int32_t> counts_partitions,
                         std::vector<std::int32_t> standby_partitions = {}) {
  StreamsMetadata out{.server = std::move(server),
                      .state = "RUNNING",
                      .store_partitions = {{"counts", std::move(counts_partitions)}},
                      .tasks = {{0, 1}, {1, 3}}};
  if (!standby_partitions.empty()) {
    out.standby_store_partitions = {{"counts", std::move(standby_partitions)}};
  }
  return out;
}

TEST(InstanceDirectory, AnAnnouncementReadsBackAsItWasSent) {
  const Announcement sent{instance("10.0.0.1:8080", {1, 3}, {0, 2}), 1'700'000'000'123};
  auto read = decode_announcement(encode_announcement(sent));
  ASSERT_TRUE(read) << read.error().to_string();
  EXPECT_EQ(read->metadata, sent.metadata);
  EXPECT_EQ(read->sent_ms, sent.sent_ms);
}

TEST(InstanceDirectory, AnAnnouncementWithoutStandbysReadsAsKeepingNone) {
  auto read = decode_announcement(
      R"({"server": "b:1", "state": "RUNNING", "stores": {"counts": [1]}, "tasks": [[0, 1]],)"
      R"( "sent_ms": 5})");
  ASSERT_TRUE(read) << read.error().to_string();
  EXPECT_EQ(read->metadata.store_partitions.at("counts"), std::vector<std::int32_t>{1});
  EXPECT_TRUE(read->metadata.standby_store_partitions.empty());
}

TEST(InstanceDirectory, ARecordThatIsNoAnnouncementIsRefusedNamingWhy) {
  for (const char* bad : {"", "{}", "[1]", R"({"server": 3})"}) {
    auto read = decode_announcement(bad);
    ASSERT_FALSE(read) << bad;
    EXPECT_EQ(read.error().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(read.error().message().find("not an instance announcement"), std::string::npos);
  }
}

TEST(InstanceDirectory, ThisInstanceOwnsWhatItHoldsAndTheNewestClaimOfTheOthersWins) {
  const auto local = instance("a:1", {0});
  // b was killed holding partition 2; c took it over and announced itself since.
  const std::vector<Announcement> others{{instance("c:1", {1, 2}), 2000},
                                         {instance("b:1", {2, 3}), 1000}};
  EXPECT_EQ(owner_of(local, others, "counts", 0), "a:1");
  EXPECT_EQ(owner_of(local, others, "counts", 2), "c:1");
  EXPECT_EQ(owner_of(local, others, "counts", 3), "b:1");
  EXPECT_EQ(owner_of(local, others, "counts", 4), std::nullopt);
  EXPECT_EQ(owner_of(local, others, "other-store", 0), std::nullopt);
}

TEST(InstanceDirectory, TheStandbysOfAPartitionAreThisInstanceFirstThenTheOthers) {
  const auto local = instance("a:1", {0}, {1, 2});
  const std::vector<Announcement> others{{instance("c:1", {1}, {0, 2}), 2000},
                                         {instance("b:1", {2}, {0}), 1000}};
  EXPECT_EQ(standbys_of(local, others, "counts", 0), (std::vector<std::string>{"c:1", "b:1"}));
  EXPECT_EQ(standbys_of(local, others, "counts", 2), (std::vector<std::string>{"a:1", "c:1"}));
  EXPECT_EQ(standbys_of(local, others, "counts", 1), std::vector<std::string>{"a:1"});
  EXPECT_TRUE(standbys_of(local, others, "counts", 3).empty());
  EXPECT_TRUE(standbys_of(local, others, "other-store", 1).empty());
}

}  // namespace
}  // namespace brook::internal
