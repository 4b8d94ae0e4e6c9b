// Interactive queries over HTTP across two instances on a real Kafka broker, through a real
// HTTP client: every key answers through either instance with its owner's value (one forward
// at most, naming the owner); ranges gather both instances' partitions; an unreachable owner
// is a 503 to retry; after an instance leaves, the other answers every key itself. With standby
// replicas, stale=true answers from the instance asked if it keeps a copy, saying how far behind
// it is, and falls back to a key's standby when its owner cannot answer; stale listings the same
// per partition.
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
    auto answer = wait_for_instances_holding(instance.http->port(), "counts", count);
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
    auto answer =
        wait_for([&] { return http_get(a.http->port(), "/v1/stores/counts/keys/" + key(i)); },
                 [](const HttpAnswer& x) { return x.status == 200; });
    ASSERT_EQ(answer.status, 200) << answer.body;
    EXPECT_EQ(answer.json()["value"]["value"], 3);
    EXPECT_EQ(answer.json()["server"], a.server);
  }
  a.http->stop();
  ASSERT_TRUE(a.app->close().ok());
}

TEST_F(KafkaHttpTest, WithStaleTrueStandbysAnswerSayingHowFarBehindAndStandInForAnOwnerGone) {
  const std::map<std::string, std::string> one_standby{{"num.standby.replicas", "1"}};
  Instance instances[] = {start("a", one_standby), start("b", one_standby),
                          start("c", one_standby)};
  for (const auto& instance : instances) ASSERT_TRUE(instance.http);
  for (const auto& instance : instances) wait_until_idle(*instance.app);
  for (const auto& instance : instances) wait_for_instances(instance, 3);

  // Who answers a stale read of `k` asked through `through`, by its metadata now: itself if it
  // keeps a copy (active or standby), else the owner. The group may still rebalance at first.
  auto answerer_of = [](const Instance& through, const std::string& k) -> std::string {
    auto where = through.app->query_metadata_for_key("counts", k);
    if (!where) return "";
    const auto& standbys = where->standby_servers;
    const bool copy_here = where->local || (!standbys.empty() && standbys[0] == through.server);
    return copy_here ? through.server : where->active_server;
  };
  // Every key's partition has its standby, announced (they open once the group is stable).
  for (int i = 0; i < kKeys; ++i) {
    auto has_standby = [&] {  // announcements are records
      auto where = instances[0].app->query_metadata_for_key("counts", key(i));
      return where && where->standby_servers.size() == 1;
    };
    ASSERT_TRUE(wait_for(has_standby, [](bool has) { return has; })) << key(i);
  }
  // Each instance answers from its own copy, active or standby, and forwards the rest to the
  // owner; every answer says how far behind it is. One round asks for `k` through every
  // instance: the answers, and whether they are all as the instances' metadata says, caught up,
  // and one of them from a standby. Rounds repeat while the standbys settle (the placement
  // follows the group's last rebalances).
  struct Round {
    std::vector<HttpAnswer> answers;
    bool as_expected = true;
  };
  auto ask_round = [&](const std::string& k) {
    Round round;
    bool from_a_standby = false;
    for (const auto& through : instances) {
      auto answer = http_get(through.http->port(), "/v1/stores/counts/keys/" + k + "?stale=true");
      auto where = through.app->query_metadata_for_key("counts", k);
      const bool ok = answer.status == 200 && where && answer.json()["lag"] == 0 &&
                      answer.json()["value"]["value"] == 3 &&
                      answer.header("X-Brook-Answered-By") == answerer_of(through, k) &&
                      answer.json()["standby"] ==
                          (answer.header("X-Brook-Answered-By") != where->active_server);
      round.as_expected = round.as_expected && ok;
      from_a_standby = from_a_standby || (ok && answer.json()["standby"] == true);
      round.answers.push_back(std::move(answer));
    }
    round.as_expected = round.as_expected && from_a_standby;
    return round;
  };
  for (int i = 0; i < kKeys; ++i) {
    const std::string k = key(i);
    const Round round =  // standbys open, catch up
        wait_for([&] { return ask_round(k); }, [](const Round& r) { return r.as_expected; });
    EXPECT_TRUE(round.as_expected) << k << ": " << round.answers[0].body << " "
                                   << round.answers[1].body << " " << round.answers[2].body;
    // Without stale=true the owner answers, as ever, without a lag.
    auto fresh = http_get(instances[0].http->port(), "/v1/stores/counts/keys/" + k);
    ASSERT_EQ(fresh.status, 200) << fresh.body;
    EXPECT_FALSE(fresh.json().contains("lag")) << fresh.body;
  }

  // Each instance lists its standby stores: with one standby per task, every partition is kept
  // twice over all instances (an instance's list reaches the others with its announcements).
  auto kept_twice = [](const HttpAnswer& x) {
    if (x.status != 200) return false;
    std::multiset<int> active, standby;
    const auto json = x.json();
    for (const auto& instance : json["instances"]) {
      for (int p : instance["stores"].value("counts", std::vector<int>{})) active.insert(p);
      for (int p : instance["standby_stores"].value("counts", std::vector<int>{})) {
        standby.insert(p);
      }
    }
    return active == std::multiset<int>{0, 1, 2, 3} && standby == active;
  };
  auto listed =
      wait_for([&] { return http_get(instances[0].http->port(), "/v1/instances"); }, kept_twice);
  EXPECT_TRUE(kept_twice(listed)) << listed.body;
  EXPECT_EQ(http_get(instances[0].http->port(), "/v1/stores/counts/keys/key-0?stale=yes").status,
            400);
  EXPECT_EQ(http_get(instances[0].http->port(), "/v1/stores/counts/all?stale=yes").status, 400);

  // A stale listing through each instance: every key once, caught up, the partitions this
  // instance keeps a copy of read here, and the answer saying where each partition came from.
  for (const auto& through : instances) {
    auto listed_here = [&](const HttpAnswer& x) {
      if (x.status != 200) return false;
      const auto json = x.json();
      std::set<std::string> keys;
      for (const auto& entry : json["entries"]) {
        if (entry["value"]["value"] != 3 || !keys.insert(entry["key"].get<std::string>()).second)
          return false;
      }
      std::set<int> read_here;
      for (const auto& copy : json["partitions"]) {
        if (copy["lag"] != 0) return false;
        if (copy["server"] == through.server) read_here.insert(copy["partition"].get<int>());
      }
      std::set<int> kept_here;
      for (const auto& instance : through.app->metadata_for_all_clients()) {
        if (!instance.local) continue;
        for (const auto* held : {&instance.store_partitions, &instance.standby_store_partitions}) {
          if (auto it = held->find("counts"); it != held->end()) {
            kept_here.insert(it->second.begin(), it->second.end());
          }
        }
      }
      return keys.size() == kKeys && json["partitions"].size() == kPartitions &&
             read_here == kept_here;
    };
    auto listing =
        wait_for([&] { return http_get(through.http->port(), "/v1/stores/counts/all?stale=true"); },
                 listed_here);
    EXPECT_TRUE(listed_here(listing)) << through.server << ": " << listing.body;
  }

  // b's HTTP server stops: a stale read of one of its keys through the third instance falls
  // back to the key's standby; a fresh one is a 503.
  Instance& b = instances[1];
  b.http->stop();
  int stood_in = 0;
  for (int i = 0; i < kKeys; ++i) {
    const std::string k = key(i);
    auto where = instances[0].app->query_metadata_for_key("counts", k);
    // Keys whose standby moves just now are left out.
    if (!where || where->standby_servers.size() != 1 || where->active_server != b.server) continue;
    const std::string& standby = where->standby_servers[0];
    for (const auto& through : instances) {
      if (through.server == b.server || through.server == standby) continue;
      auto answer = http_get(through.http->port(), "/v1/stores/counts/keys/" + k + "?stale=true");
      ASSERT_EQ(answer.status, 200) << answer.body;
      EXPECT_EQ(answer.header("X-Brook-Answered-By"), standby) << k;
      EXPECT_EQ(answer.json()["value"]["value"], 3) << k;
      EXPECT_EQ(answer.json()["standby"], true) << answer.body;
      EXPECT_EQ(http_get(through.http->port(), "/v1/stores/counts/keys/" + k).status, 503);
      ++stood_in;
    }
  }
  EXPECT_GT(stood_in, 0) << "b runs no task of counts";
  // The same for a listing: with stale=true, b's partitions come from their standbys, every key
  // once; without it, the listing is a 503.
  auto whole_without_b = [&](const HttpAnswer& x) {
    if (x.status != 200) return false;
    std::set<std::string> keys;
    const auto json = x.json();
    for (const auto& entry : json["entries"]) {
      if (entry["server"] == b.server || entry["value"]["value"] != 3) return false;
      keys.insert(entry["key"].get<std::string>());
    }
    return keys.size() == kKeys;
  };
  auto listing = wait_for(
      [&] { return http_get(instances[0].http->port(), "/v1/stores/counts/all?stale=true"); },
      whole_without_b);
  EXPECT_TRUE(whole_without_b(listing)) << listing.body;
  EXPECT_EQ(http_get(instances[0].http->port(), "/v1/stores/counts/all").status, 503);

  for (auto& instance : instances) {
    if (instance.server != b.server) instance.http->stop();
  }
  for (auto& instance : instances) ASSERT_TRUE(instance.app->close().ok());
}

}  // namespace
}  // namespace brook::testing
