// How the HTTP layer renders what stores hold: values of a type without a JSON form are a 500
// naming the fix until a renderer is registered for the type, keys of a type without a text
// form are a 415, and a session store's key answers its sessions.
#include <gmock/gmock.h>

#include "brook/serve.h"
#include "brook/streams_builder.h"
#include "http_support.h"
#include "integration/embedded_fixture.h"

namespace brook::testing {
namespace {

using ::testing::HasSubstr;

// A type with a serde but neither to_json nor a text form.
struct Tally {
  std::int64_t n = 0;
};

class TallySerde final : public Serde<Tally> {
 public:
  std::string_view name() const override { return "tally"; }
  Result<std::string> serialize(const Tally& t) const override { return std::to_string(t.n); }
  Result<Tally> deserialize(std::string_view bytes) const override {
    return Tally{std::stoll(std::string(bytes))};
  }
};

class RenderingTest : public EmbeddedFixture {
 protected:
  void SetUp() override {
    create_topics({{"words", 2}});
    std::vector<std::pair<std::string, std::string>> records;
    for (int i = 0; i < 8; ++i) records.emplace_back("key-" + std::to_string(i % 2), "v");
    produce("words", records);  // timestamps 1 to 8
  }

  static Topology topology() {
    StreamsBuilder builder;
    auto words = builder.stream<std::string, std::string>("words");
    auto grouped = words.group_by_key();
    grouped.aggregate([] { return Tally{}; },
                      [](const std::string&, const std::string&, Tally t) {
                        ++t.n;
                        return t;
                      },
                      {.name = "tallies", .value_serde = std::make_shared<TallySerde>()});
    grouped.windowed_by(SessionWindows::of_inactivity_gap_with_no_grace(std::chrono::hours(1)))
        .count({.name = "sessions"});
    words  // keyed by a Tally: the length of the word's key
        .group_by([](const std::string& key,
                     const std::string&) { return Tally{static_cast<std::int64_t>(key.size())}; },
                  {.key_serde = std::make_shared<TallySerde>()})
        .count({.name = "by-length", .key_serde = std::make_shared<TallySerde>()});
    auto topology = builder.build();
    if (!topology) throw std::runtime_error(topology.error().to_string());
    return std::move(*topology);
  }

  // Starts the application and serves it with `renderers` on a free port.
  void start(std::vector<ValueRenderer> renderers = {}) {
    app_ = std::make_unique<Streams>(topology(), config({{"application.id", "rendering"}}));
    ASSERT_TRUE(app_->start().ok());
    auto server = serve(*app_, {.listen = "127.0.0.1:0", .renderers = std::move(renderers)});
    ASSERT_TRUE(server) << server.error().to_string();
    server_ = std::move(*server);
    wait_until_idle(*app_);
    ASSERT_TRUE(app_->wait_for_state(Streams::State::kRunning, std::chrono::seconds(30)).ok());
  }

  HttpAnswer get(const std::string& target) { return http_get(server_->port(), target); }

  std::unique_ptr<Streams> app_;
  std::unique_ptr<Server> server_;
};

TEST_F(RenderingTest, AValueWithoutAJsonFormIs500UntilARendererIsGivenForItsType) {
  start();
  auto answer = get("/v1/stores/tallies/keys/key-0");
  EXPECT_EQ(answer.status, 500) << answer.body;
  EXPECT_THAT(answer.json()["error"]["message"].get<std::string>(),
              HasSubstr("which have no JSON form: give it to_json, or a renderer"));
  ASSERT_TRUE(app_->close().ok());

  start(render_values<Tally>([](const Tally& t) { return nlohmann::json{{"tally", t.n}}; }));
  answer = get("/v1/stores/tallies/keys/key-0");
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(answer.json()["value"]["value"], (nlohmann::json{{"tally", 4}})) << answer.body;
  auto all = get("/v1/stores/tallies/all");
  ASSERT_EQ(all.status, 200) << all.body;
  const nlohmann::json listed = all.json();  // the loop below iterates into it
  ASSERT_EQ(listed["entries"].size(), 2u) << all.body;
  for (const auto& entry : listed["entries"]) {
    EXPECT_EQ(entry["value"]["value"], (nlohmann::json{{"tally", 4}})) << entry;
  }
}

TEST_F(RenderingTest, AKeyTypeWithoutATextFormIs415) {
  start();
  auto answer = get("/v1/stores/by-length/keys/5");
  EXPECT_EQ(answer.status, 415) << answer.body;
  EXPECT_THAT(answer.json()["error"]["message"].get<std::string>(),
              HasSubstr("store by-length has keys of type"));
  // Listed all the same, their keys' bytes as hex: Tally{5} serialised is "5".
  auto all = get("/v1/stores/by-length/all");
  ASSERT_EQ(all.status, 200) << all.body;
  ASSERT_EQ(all.json()["entries"].size(), 1u) << all.body;
  EXPECT_EQ(all.json()["entries"][0]["key"], "35");
  EXPECT_EQ(all.json()["entries"][0]["value"]["value"], 8);
}

TEST_F(RenderingTest, ASessionStoresKeyAnswersItsSessions) {
  start();
  auto answer = get("/v1/stores/sessions/keys/key-1/windows?from=0&to=100");
  ASSERT_EQ(answer.status, 200) << answer.body;
  const auto windows = answer.json()["windows"];
  ASSERT_EQ(windows.size(), 1u) << answer.body;
  EXPECT_EQ(windows[0]["start"], 2);  // key-1's records have timestamps 2, 4, 6 and 8
  EXPECT_EQ(windows[0]["end"], 8);
  EXPECT_EQ(windows[0]["value"]["value"], 4) << answer.body;
  EXPECT_EQ(get("/v1/stores/sessions/keys/key-1/windows?from=9").json()["windows"].size(), 0u);
}

}  // namespace
}  // namespace brook::testing
