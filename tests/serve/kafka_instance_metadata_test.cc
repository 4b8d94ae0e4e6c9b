// Instance metadata on a real Kafka broker: two instances of one application in this process
// learn each other's store partitions through the application's instances topic, agree on the
// owner of every key, and follow the partitions when one instance leaves.
#include <gmock/gmock.h>

#include <set>
#include <thread>

#include "app_waits.h"
#include "http_support.h"
#include "kafka_cluster.h"

namespace brook::testing {
namespace {

constexpr int kMetadataPartitions = 4;
constexpr int kMetadataKeys = 20;
constexpr auto kDeadline = std::chrono::seconds(60);

class KafkaInstanceMetadataTest : public KafkaFixture {
 protected:
  void SetUp() override {
    KafkaFixture::SetUp();
    if (HasFatalFailure()) return;
    create_topic(input_, kMetadataPartitions);
    create_topic(output_, kMetadataPartitions);
    KeyValues records;
    for (int i = 0; i < 3 * kMetadataKeys; ++i) records.emplace_back(key(i % kMetadataKeys), "v");
    produce(input_, records);
  }

  static std::string key(int i) { return "key-" + std::to_string(i); }

  std::unique_ptr<Streams> start(const std::string& instance, const std::string& server) {
    auto cfg = config(app_, instance);
    cfg["application.server"] = server;
    auto app = std::make_unique<Streams>(counting_topology(input_, output_), cfg);
    EXPECT_TRUE(app->start().ok());
    return app;
  }

  // Waits until `app` sees exactly `servers`, RUNNING, whose store partitions together are
  // every partition once.
  static void wait_for_instances(const Streams& app, const std::set<std::string>& servers) {
    const auto deadline = std::chrono::steady_clock::now() + kDeadline;
    std::string last;
    while (std::chrono::steady_clock::now() < deadline) {
      std::set<std::string> seen;
      std::multiset<std::int32_t> partitions;
      bool running = true;
      for (const auto& instance : app.metadata_for_all_clients()) {
        seen.insert(instance.server);
        running = running && instance.state == "RUNNING";
        if (auto it = instance.store_partitions.find("counts");
            it != instance.store_partitions.end()) {
          partitions.insert(it->second.begin(), it->second.end());
        }
      }
      if (seen == servers && running && partitions == std::multiset<std::int32_t>{0, 1, 2, 3}) {
        return;
      }
      last = ::testing::PrintToString(seen) + " holding " + ::testing::PrintToString(partitions);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // announcements arrive
    }
    FAIL() << "instances seen: " << last << "; wanted " << ::testing::PrintToString(servers);
  }

  const std::string app_ = unique_name("meta-app");
  const std::string input_ = unique_name("meta-in");
  const std::string output_ = unique_name("meta-out");
};

TEST_F(KafkaInstanceMetadataTest, InstancesAgreeOnTheOwnerOfEveryKeyAndFollowAnInstanceLeaving) {
  const std::string a_server = "127.0.0.1:38101", b_server = "127.0.0.1:38102";
  auto a = start("a", a_server);
  auto b = start("b", b_server);
  for (auto* app : {a.get(), b.get()}) wait_until_idle(*app);
  wait_for_instances(*a, {a_server, b_server});
  wait_for_instances(*b, {a_server, b_server});

  std::set<std::string> owners;
  for (int i = 0; i < kMetadataKeys; ++i) {
    auto from_a = a->query_metadata_for_key("counts", key(i));
    auto from_b = b->query_metadata_for_key("counts", key(i));
    ASSERT_TRUE(from_a && from_b);
    EXPECT_EQ(from_a->active_server, from_b->active_server) << key(i);
    EXPECT_EQ(from_a->partition, internal::partition_for_key(key(i), kMetadataPartitions));
    EXPECT_NE(from_a->local, from_b->local) << key(i);
    auto& owner = from_a->local ? *a : *b;
    auto count = owner.store<std::string, std::int64_t>("counts")->get(key(i));
    ASSERT_TRUE(count) << count.error().to_string();
    EXPECT_EQ(*count, 3) << key(i);
    owners.insert(from_a->active_server);
  }
  EXPECT_EQ(owners.size(), 2u);  // the keys spread over both

  ASSERT_TRUE(b->close().ok());  // its announcement is withdrawn, its partitions move to a
  wait_for_instances(*a, {a_server});
  for (int i = 0; i < kMetadataKeys; ++i) {
    auto where = a->query_metadata_for_key("counts", key(i));
    ASSERT_TRUE(where) << where.error().to_string();
    EXPECT_TRUE(where->local);
    EXPECT_EQ(where->active_server, a_server);
  }
  ASSERT_TRUE(a->close().ok());
}

}  // namespace
}  // namespace brook::testing
