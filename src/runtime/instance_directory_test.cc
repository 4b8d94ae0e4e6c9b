#include "runtime/instance_directory.h"

#include <gtest/gtest.h>

namespace brook::internal {
namespace {

StreamsMetadata instance(std::string server, std::vector<std::int32_t> counts_partitions) {
  return {.server = std::move(server),
          .state = "RUNNING",
          .store_partitions = {{"counts", std::move(counts_partitions)}},
          .tasks = {{0, 1}, {1, 3}}};
}

TEST(InstanceDirectory, AnAnnouncementReadsBackAsItWasSent) {
  const Announcement sent{instance("10.0.0.1:8080", {1, 3}), 1'700'000'000'123};
  auto read = decode_announcement(encode_announcement(sent));
  ASSERT_TRUE(read) << read.error().to_string();
  EXPECT_EQ(read->metadata, sent.metadata);
  EXPECT_EQ(read->sent_ms, sent.sent_ms);
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

}  // namespace
}  // namespace brook::internal
