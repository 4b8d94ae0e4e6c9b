// Interactive queries over HTTP across two instances on a real Kafka broker, through a real
// HTTP client: every key answers through either instance with its owner's value (one forward
// at most, naming the owner); ranges gather both instances' partitions; an unreachable owner
// is a 503 to retry; after an instance leaves, the other answers every key itself. With standby
// replicas, stale=true answers every key from the instance asked, saying how far behind it is.
#include <gmock/gmock.h>

#include <set>

#include "app_waits.h"
#include "brook/serve.h"
#include "http_support.h"
#include "kafka_cluster.h"

namespace brook::testing {
namespace {

constexpr int kPartitions = 4;
constexpr int kKeys = 20;

class KafkaHttpTest : public KafkaFixture {
 protected:
  struct Instance {
    std::string server;
    std::unique_ptr<Streams> app;
    std::unique_ptr<Server> http;
  };

  void SetUp() override {
    KafkaFixture::SetUp();
    if (HasFatalFailure()) return;
    create_topic(input_, kPartitions);
    create_topic(output_, kPartitions);
    KeyValues records;
    for (int i = 0; i < 3 * kKeys; ++i) records.emplace_back(key(i % kKeys), "v");
    produce(input_, records);
  }

  static std::string key(int i) { return "key-" + std::to_string(i); }

  Instance start(const std::string& name, const std::map<std::string, std::string>& extra = {}) {
    Instance instance{.server = "127.0.0.1:" + std::to_string(free_port())};
    auto cfg = config(app_, name);
    cfg["application.server"] = instance.server;
    for (const auto& [k, v] : extra) cfg[k] = v;
    instance.app = std::make_unique<Streams>(counting_topology(input_, output_), cfg);
    EXPECT_TRUE(instance.app->start().ok());
    auto http = serve(*instance.app);
    EXPECT_TRUE(http) << http.error().to_string();
    if (http) instance.http = std::move(*http);
    return instance;
  }

  // Waits until `instance` lists `count` instances and every partition of counts has an owner.
  static void wait_for_instances(const Instance& instance, std::size_t count) {
    auto answer = wait_for_answer(
        [&] { return http_get(instance.http->port(), "/v1/instances"); },
        [&](const HttpAnswer& a) {
          if (a.status != 200) return false;
          const auto instances = a.json()["instances"];
          std::multiset<int> partitions;
          for (const auto& i : instances) {
            if (i["state"] != "RUNNING") return false;
            if (i["stores"].contains("counts")) {
              for (int p : i["stores"]["counts"]) partitions.insert(p);
            }
          }
          return instances.size() == count && partitions == std::multiset<int>{0, 1, 2, 3};
        });
    ASSERT_EQ(answer.json()["instances"].size(), count) << answer.body;
  }

  const std::string app_ = unique_name("http-app");
  const std::string input_ = unique_name("http-in");
  const std::string output_ = unique_name("http-out");
};

TEST_F(KafkaHttpTest, EveryKeyAnswersThroughEitherInstanceWithItsOwnersValue) {
  auto a = start("a");
  auto b = start("b");
  ASSERT_TRUE(a.http && b.http);
  wait_until_idle(*a.app);
  wait_until_idle(*b.app);
  wait_for_instances(a, 2);
  wait_for_instances(b, 2);

  std::set<std::string> owners;
  for (int i = 0; i < kKeys; ++i) {
    auto where = a.app->query_metadata_for_key("counts", key(i));
    ASSERT_TRUE(where) << where.error().to_string();
    const auto& owner = where->active_server == a.server ? a : b;
    auto local = owner.app->store<std::string, std::int64_t>("counts")->get(key(i));
    ASSERT_TRUE(local && *local);
    for (const auto* through : {&a, &b}) {
      auto answer = http_get(through->http->port(), "/v1/stores/counts/keys/" + key(i));
      ASSERT_EQ(answer.status, 200) << answer.body;
      EXPECT_EQ(answer.json()["value"]["value"], **local) << key(i);
      EXPECT_EQ(answer.json()["value"]["value"], 3) << key(i);  // the recomputation
      EXPECT_EQ(answer.json()["server"], owner.server) << key(i);
      EXPECT_EQ(answer.header("X-Brook-Answered-By"), owner.server);
    }
    owners.insert(owner.server);
  }
  EXPECT_EQ(owners.size(), 2u);

  // /all through a gathers both instances' partitions, each key once.
  std::map<std::string, std::string> answered_by;
  std::string target = "/v1/stores/counts/all?limit=7";
  for (int page = 0; page < 10; ++page) {
    auto answer = http_get(a.http->port(), target);
    ASSERT_EQ(answer.status, 200) << answer.body;
    const auto json = answer.json();
    for (const auto& entry : json["entries"]) {
      EXPECT_TRUE(answered_by.emplace(entry["key"], entry["server"]).second) << entry;
      EXPECT_EQ(entry["value"]["value"], 3);
    }
    if (json["next"].is_null()) break;
    target = "/v1/stores/counts/all?limit=7&after=" + json["next"].get<std::string>();
  }
  ASSERT_EQ(answered_by.size(), static_cast<std::size_t>(kKeys));
  std::set<std::string> servers;
  for (const auto& [k, server] : answered_by) servers.insert(server);
  EXPECT_EQ(servers, (std::set<std::string>{a.server, b.server}));

  // b's HTTP server stops: its keys answer 503 through a, to retry, never a wrong answer.
  b.http->stop();
  for (int i = 0; i < kKeys; ++i) {
    auto where = a.app->query_metadata_for_key("counts", key(i));
    ASSERT_TRUE(where);
    if (where->local) continue;
    auto answer = http_get(a.http->port(), "/v1/stores/counts/keys/" + key(i));
    EXPECT_EQ(answer.status, 503) << answer.body;
    EXPECT_EQ(answer.header("Retry-After"), "1");
  }
  EXPECT_EQ(http_get(a.http->port(), "/v1/stores/counts/all").status, 503);

  // b leaves: a takes its partitions over (restoring them) and answers every key itself.
  ASSERT_TRUE(b.app->close().ok());
  wait_for_instances(a, 1);
  for (int i = 0; i < kKeys; ++i) {
    auto answer = wait_for_answer(
        [&] { return http_get(a.http->port(), "/v1/stores/counts/keys/" + key(i)); },
        [](const HttpAnswer& x) { return x.status == 200; });
    ASSERT_EQ(answer.status, 200) << answer.body;
    EXPECT_EQ(answer.json()["value"]["value"], 3);
    EXPECT_EQ(answer.json()["server"], a.server);
  }
  a.http->stop();
  ASSERT_TRUE(a.app->close().ok());
}

TEST_F(KafkaHttpTest, WithStaleTrueEachInstanceAnswersEveryKeyFromItsStandbysSayingHowFarBehind) {
  const std::map<std::string, std::string> standby{{"num.standby.replicas", "1"}};
  auto a = start("a", standby);
  auto b = start("b", standby);
  ASSERT_TRUE(a.http && b.http);
  wait_until_idle(*a.app);
  wait_until_idle(*b.app);
  wait_for_instances(a, 2);
  wait_for_instances(b, 2);

  int from_standbys = 0;
  for (int i = 0; i < kKeys; ++i) {
    auto where = a.app->query_metadata_for_key("counts", key(i));
    ASSERT_TRUE(where) << where.error().to_string();
    for (const auto* through : {&a, &b}) {
      const std::string target = "/v1/stores/counts/keys/" + key(i) + "?stale=true";
      // Until the instance keeps the key's partition, it forwards the request to the owner;
      // a standby opens once the group is stable and then catches up with its changelog.
      auto answer = wait_for_answer([&] { return http_get(through->http->port(), target); },
                                    [&](const HttpAnswer& x) {
                                      return x.status == 200 && x.json()["lag"] == 0 &&
                                             x.header("X-Brook-Answered-By") == through->server;
                                    });
      ASSERT_EQ(answer.status, 200) << answer.body;
      const auto json = answer.json();
      EXPECT_EQ(answer.header("X-Brook-Answered-By"), through->server) << "forwarded";
      EXPECT_EQ(json["lag"], 0) << answer.body;
      EXPECT_EQ(json["value"]["value"], 3) << key(i);
      const bool standby_here = where->active_server != through->server;
      EXPECT_EQ(json["standby"], standby_here) << answer.body;
      from_standbys += standby_here;
    }
    // Without stale=true the owner answers, as ever.
    auto fresh = http_get(b.http->port(), "/v1/stores/counts/keys/" + key(i));
    ASSERT_EQ(fresh.status, 200) << fresh.body;
    EXPECT_EQ(fresh.json()["server"], where->active_server);
    EXPECT_FALSE(fresh.json().contains("lag")) << fresh.body;
  }
  EXPECT_EQ(from_standbys, kKeys) << "each key has one owner and one standby";

  // Each instance lists as its standby stores the partitions the other runs (b's list reaches
  // a with b's next announcement).
  auto complementary = [](const HttpAnswer& x) {
    if (x.status != 200) return false;
    for (const auto& instance : x.json()["instances"]) {
      std::set<int> all;
      for (int p : instance["stores"].value("counts", std::vector<int>{})) all.insert(p);
      for (int p : instance["standby_stores"].value("counts", std::vector<int>{})) {
        if (!all.insert(p).second) return false;
      }
      if (all != std::set<int>{0, 1, 2, 3}) return false;
    }
    return true;
  };
  auto instances =
      wait_for_answer([&] { return http_get(a.http->port(), "/v1/instances"); }, complementary);
  EXPECT_TRUE(complementary(instances)) << instances.body;
  EXPECT_EQ(http_get(a.http->port(), "/v1/stores/counts/keys/key-0?stale=yes").status, 400);

  a.http->stop();
  b.http->stop();
  ASSERT_TRUE(b.app->close().ok());
  ASSERT_TRUE(a.app->close().ok());
}

}  // namespace
}  // namespace brook::testing
