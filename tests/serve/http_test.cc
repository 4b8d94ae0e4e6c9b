// The HTTP interface of one instance on the embedded log, through a real HTTP client on
// loopback: values, windows, ranges page by page, instances, health, topology, and what it
// refuses (unknown stores and keys, bad input, huge pages, writes, long paths, a missing
// token, a taken port), and 503 with Retry-After while a store restores.
#include <gmock/gmock.h>

#include <condition_variable>
#include <mutex>
#include <set>

#include "brook/serve.h"
#include "brook/streams_builder.h"
#include "http_support.h"
#include "integration/embedded_fixture.h"

namespace brook::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kHttpKeys = 10;

class HttpTest : public EmbeddedFixture {
 protected:
  void SetUp() override {
    create_topics({{"words", 4}, {"counts-out", 4}});
    std::vector<std::pair<std::string, std::string>> records;
    for (int i = 0; i < 4 * kHttpKeys; ++i) records.emplace_back(key(i % kHttpKeys), "v");
    produce("words", records);
  }

  static std::string key(int i) { return "key-" + std::to_string(i); }

  static Topology counting() {
    StreamsBuilder builder;
    auto grouped = builder.stream<std::string, std::string>("words").group_by_key();
    grouped.count({.name = "counts"}).to_stream().to("counts-out");
    grouped.windowed_by(TimeWindows::of_size_with_no_grace(std::chrono::hours(1)))
        .count({.name = "hourly"});
    return *builder.build();
  }

  // Starts the application (with `extra` configuration) and serves it on a free port.
  void start(std::map<std::string, std::string> extra = {}) {
    extra.emplace("application.id", "http");
    extra.emplace("application.server", "127.0.0.1:1");  // one instance: never forwarded to
    extra.emplace("serve.listen", "127.0.0.1:0");
    app_ = std::make_unique<Streams>(counting(), config(std::move(extra)));
    ASSERT_TRUE(app_->start().ok());
    auto server = serve(*app_);
    ASSERT_TRUE(server) << server.error().to_string();
    server_ = std::move(*server);
    wait_until_idle(*app_);
    ASSERT_TRUE(app_->wait_for_state(Streams::State::kRunning, std::chrono::seconds(30)).ok());
  }

  HttpAnswer get(const std::string& target, httplib::Headers headers = {}) {
    return http_get(server_->port(), target, std::move(headers));
  }

  // An error answer: its status, and a JSON error whose message contains `says`.
  void expect_error(const HttpAnswer& answer, int status, const std::string& says) {
    EXPECT_EQ(answer.status, status) << answer.body;
    const auto json = answer.json();
    ASSERT_TRUE(json.contains("error")) << answer.body;
    EXPECT_EQ(json["error"]["status"], status);
    EXPECT_THAT(json["error"]["message"].get<std::string>(), HasSubstr(says));
  }

  std::unique_ptr<Streams> app_;
  std::unique_ptr<Server> server_;
};

TEST_F(HttpTest, AKeysValueIsAnsweredFromItsStoreNamingTheInstance) {
  start();
  for (int i = 0; i < kHttpKeys; ++i) {
    auto answer = get("/v1/stores/counts/keys/" + key(i));
    ASSERT_EQ(answer.status, 200) << answer.body;
    const auto json = answer.json();
    EXPECT_EQ(json["key"], key(i));
    EXPECT_EQ(json["value"]["value"], 4);
    EXPECT_EQ(json["partition"], internal::partition_for_key(key(i), 4).value());
    EXPECT_EQ(json["server"], "127.0.0.1:1");
    EXPECT_EQ(answer.header("X-Brook-Answered-By"), "127.0.0.1:1");
  }
  auto encoded = get("/v1/stores/counts/keys/key%2D1");  // percent-encoded: the same key
  EXPECT_EQ(encoded.status, 200);
  EXPECT_EQ(encoded.json()["key"], "key-1");
}

TEST_F(HttpTest, MissingKeysStoresAndEndpointsAre404WithAJsonError) {
  start();
  expect_error(get("/v1/stores/counts/keys/nobody"), 404, "store counts has no key nobody");
  expect_error(get("/v1/stores/nope/keys/x"), 404, "no store named 'nope'");
  expect_error(get("/v1/nothing"), 404, "no such endpoint");
  expect_error(get("/../../etc/passwd"), 404, "no such endpoint");
}

TEST_F(HttpTest, AWindowStoresKeyAnswersItsWindows) {
  start();
  auto answer = get("/v1/stores/hourly/keys/key-3/windows?from=0&to=3600000");
  ASSERT_EQ(answer.status, 200) << answer.body;
  const auto windows = answer.json()["windows"];
  ASSERT_EQ(windows.size(), 1u) << answer.body;
  EXPECT_EQ(windows[0]["start"], 0);
  EXPECT_EQ(windows[0]["end"], 3600000);
  EXPECT_EQ(windows[0]["value"]["value"], 4);
  EXPECT_EQ(get("/v1/stores/hourly/keys/key-3/windows?from=7200000").json()["windows"].size(), 0u);
  expect_error(get("/v1/stores/hourly/keys/key-3"), 400, "is a window store");
  expect_error(get("/v1/stores/counts/keys/key-3/windows"), 400, "is a key-value store");
  expect_error(get("/v1/stores/hourly/keys/key-3/windows?from=yesterday"), 400,
               "from: 'yesterday' is not a time");
}

TEST_F(HttpTest, AllEntriesComePageByPageEachOnceWithContinuationTokens) {
  start();
  std::map<std::string, std::int64_t> seen;
  std::string target = "/v1/stores/counts/all?limit=3";
  int pages = 0;
  while (true) {
    auto answer = get(target);
    ASSERT_EQ(answer.status, 200) << answer.body;
    const auto json = answer.json();
    EXPECT_LE(json["entries"].size(), 3u);
    for (const auto& entry : json["entries"]) {
      EXPECT_TRUE(seen.emplace(entry["key"], entry["value"]["value"]).second) << entry;
    }
    ++pages;
    ASSERT_LT(pages, 20) << "the pages do not end";
    if (json["next"].is_null()) break;
    target = "/v1/stores/counts/all?limit=3&after=" + json["next"].get<std::string>();
  }
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(kHttpKeys));
  for (const auto& [k, count] : seen) EXPECT_EQ(count, 4) << k;

  auto range = get("/v1/stores/counts?from=key-2&to=key-4&limit=100");
  ASSERT_EQ(range.status, 200) << range.body;
  std::set<std::string> keys;
  const auto entries = range.json()["entries"];
  for (const auto& entry : entries) keys.insert(entry["key"]);
  EXPECT_EQ(keys, (std::set<std::string>{"key-2", "key-3", "key-4"})) << range.body;
  EXPECT_TRUE(range.json()["next"].is_null());
}

TEST_F(HttpTest, HugePagesAndMalformedInputAre400NamingWhatIsWrong) {
  start();
  expect_error(get("/v1/stores/counts/all?limit=1000000"), 400,
               "limit: '1000000' is not a number from 1 to 1000");
  expect_error(get("/v1/stores/counts/all?limit=0"), 400, "limit: '0'");
  expect_error(get("/v1/stores/counts/all?after=zz"), 400, "not a continuation token");
  expect_error(get("/v1/stores/counts/keys/%zz"), 400, "malformed percent-escape");
  expect_error(get("/v1/stores/counts/all?limit=1&limit=2"), 400, "given twice");
  expect_error(get("/v1/instances/for-key?store=counts"), 400,
               "needs the parameters store and key");
  expect_error(get("/v1/stores/counts/keys/" + std::string(3000, 'k')), 414, "more than 2048");
}

TEST_F(HttpTest, OnlyGetIsAllowed) {
  start();
  httplib::Client client("127.0.0.1", server_->port());
  auto expect_refused = [](const httplib::Result& response) {
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 405);
    EXPECT_EQ(response->get_header_value("Allow"), "GET, HEAD");
  };
  expect_refused(client.Post("/v1/stores/counts/keys/key-1", "1", "text/plain"));
  expect_refused(client.Delete("/v1/stores/counts/keys/key-1"));
  expect_refused(client.Put("/v1/stores", "", "text/plain"));
  auto count = app_->store<std::string, std::int64_t>("counts")->get("key-1");
  ASSERT_TRUE(count);
  EXPECT_EQ(*count, std::optional<std::int64_t>(4));
}

TEST_F(HttpTest, InstancesHealthTopologyAndStoresDescribeTheApplication) {
  start();
  auto instances = get("/v1/instances").json()["instances"];
  ASSERT_EQ(instances.size(), 1u);
  EXPECT_EQ(instances[0]["server"], "127.0.0.1:1");
  EXPECT_EQ(instances[0]["stores"]["counts"], nlohmann::json({0, 1, 2, 3}));
  auto for_key = get("/v1/instances/for-key?store=counts&key=key-1").json();
  EXPECT_EQ(for_key["active_server"], "127.0.0.1:1");
  EXPECT_EQ(for_key["partition"], internal::partition_for_key("key-1", 4).value());

  auto health = get("/health");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.json()["state"], "RUNNING");
  EXPECT_EQ(health.json()["lag"], 0);

  auto topology = get("/topology");
  EXPECT_EQ(topology.status, 200);
  EXPECT_EQ(topology.body, app_->topology().describe());
  EXPECT_THAT(get("/topology?format=dot").body, HasSubstr("digraph"));

  auto stores = get("/v1/stores").json()["stores"];
  std::map<std::string, std::string> kinds;
  for (const auto& store : stores) kinds[store["name"]] = store["kind"];
  EXPECT_EQ(kinds.at("counts"), "key-value");
  EXPECT_EQ(kinds.at("hourly"), "window");

  ASSERT_TRUE(app_->close().ok());
  health = get("/health");
  EXPECT_EQ(health.status, 503);
  EXPECT_EQ(health.json()["state"], "NOT_RUNNING");
  auto after_close = get("/v1/stores/counts/keys/key-1");
  EXPECT_EQ(after_close.status, 503);
  EXPECT_EQ(after_close.header("Retry-After"), "1");
}

TEST_F(HttpTest, ABearerTokenIsRequiredWhenConfigured) {
  start({{"serve.auth.token", "s3cret"}});
  expect_error(get("/v1/stores/counts/keys/key-1"), 401, "Authorization: Bearer");
  expect_error(get("/metrics", {{"Authorization", "Bearer wrong"}}), 401, "serve.auth.token");
  EXPECT_EQ(get("/v1/stores/counts/keys/key-1", {{"Authorization", "Bearer s3cret"}}).status, 200);
  EXPECT_EQ(get("/").status, 200);  // the page itself holds no data
}

TEST_F(HttpTest, ATakenPortIsAClearError) {
  start();
  ServeOptions options{.listen = "127.0.0.1:" + std::to_string(server_->port())};
  auto second = serve(*app_, options);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(second.error().message(),
              HasSubstr("cannot listen on 127.0.0.1:" + std::to_string(server_->port())));
  EXPECT_THAT(second.error().message(), HasSubstr("Address already in use"));
}

TEST_F(HttpTest, UnknownServeSettingsAreRefusedNamingEach) {
  Streams app(counting(), config({{"application.id", "http"},
                                  {"application.server", "127.0.0.1:1"},
                                  {"serve.threds", "4"},
                                  {"serve.max.page", "0"}}));
  auto server = serve(app);
  ASSERT_FALSE(server);
  EXPECT_THAT(server.error().message(), HasSubstr("unknown configuration key 'serve.threds'"));
  EXPECT_THAT(server.error().message(), HasSubstr("serve.max.page: '0' is not an integer"));
}

// Holds the stream thread at the start of a restoration of store counts until released: until
// then no store restores, and the application stays REBALANCING.
class HeldRestoration : public StateRestoreListener {
 public:
  void on_restore_start(const std::string& store, TaskId, Offset, Offset) override {
    if (store != "counts") return;
    std::unique_lock lock(mutex_);
    started_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return released_; });
  }
  void wait_started() {
    std::unique_lock lock(mutex_);
    ASSERT_TRUE(changed_.wait_for(lock, std::chrono::seconds(60), [&] { return started_; }));
  }
  void release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool started_ = false, released_ = false;
};

TEST_F(HttpTest, WhileAStoreRestoresItsKeysAre503WithRetryAfter) {
  start();
  ASSERT_TRUE(app_->close().ok());
  server_->stop();
  ASSERT_TRUE(app_->cleanup().ok());  // the next start restores every store from its changelog

  auto held = std::make_shared<HeldRestoration>();
  app_ = std::make_unique<Streams>(
      counting(), config({{"application.id", "http"}, {"application.server", "127.0.0.1:1"}}));
  app_->set_restore_listener(held);
  struct ReleaseAtEnd {
    HeldRestoration& held;
    ~ReleaseAtEnd() { held.release(); }
  } release_at_end{*held};
  ASSERT_TRUE(app_->start().ok());
  auto server = serve(*app_, {.listen = "127.0.0.1:0"});
  ASSERT_TRUE(server) << server.error().to_string();
  server_ = std::move(*server);
  held->wait_started();
  auto answer = get("/v1/stores/counts/keys/key-1");
  EXPECT_EQ(answer.status, 503) << answer.body;
  EXPECT_EQ(answer.header("Retry-After"), "1");
  EXPECT_EQ(get("/health").status, 503);
  held->release();
  auto restored = wait_for([&] { return get("/v1/stores/counts/keys/key-1"); },
                           [](const HttpAnswer& a) { return a.status == 200; });
  ASSERT_EQ(restored.status, 200) << restored.body;
  EXPECT_EQ(restored.json()["value"]["value"], 4);
}

}  // namespace
}  // namespace brook::testing
