// The web page at / in a real headless browser (Debian's chromium, --headless --dump-dom): it
// loads with no external assets, draws the topology, lists the instances and their tasks, and
// its store browser fetches a value through the HTTP interface.
#include <gmock/gmock.h>

#include "brook/serve.h"
#include "http_support.h"
#include "integration/embedded_fixture.h"

namespace brook::testing {
namespace {

using ::testing::HasSubstr;

// The DOM chromium renders of `url` once the page's scripts have run (its virtual time
// budget); fails the test naming the package if chromium is missing.
std::string rendered_dom(const std::string& url, const std::filesystem::path& profile) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0) {
    ADD_FAILURE() << "chromium is not installed: apt-get install chromium (or run scripts/test.sh, "
                     "which installs it)";
    return "";
  }
  const std::string command =
      "chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir=" +
      profile.string() + " --virtual-time-budget=5000 --dump-dom '" + url + "' 2>/dev/null";
  auto [status, out] = run_command(command);
  EXPECT_EQ(status, 0) << "chromium failed on " << url;
  return out;
}

class WebPageTest : public EmbeddedFixture {};

TEST_F(WebPageTest, ShowsTheTopologyAndInstancesAndFetchesAValue) {
  create_topics({{"words", 4}, {"counts-out", 4}});
  std::vector<std::pair<std::string, std::string>> records;
  for (int i = 0; i < 20; ++i) records.emplace_back("key-" + std::to_string(i % 5), "v");
  produce("words", records);
  Streams app(counting_topology(),
              config({{"application.id", "page"}, {"application.server", "127.0.0.1:1"}}));
  ASSERT_TRUE(app.start().ok());
  auto server = serve(app, {.listen = "127.0.0.1:0"});
  ASSERT_TRUE(server) << server.error().to_string();
  wait_until_idle(app);
  ASSERT_TRUE(app.wait_for_state(Streams::State::kRunning, std::chrono::seconds(30)).ok());

  const auto page = http_get((*server)->port(), "/");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_THAT(page.body, ::testing::Not(HasSubstr("src=\"http")));  // no external assets
  EXPECT_THAT(page.body, ::testing::Not(HasSubstr("href=\"http")));

  const std::string url =
      "http://127.0.0.1:" + std::to_string((*server)->port()) + "/#store=counts&key=key-3";
  const auto dom = rendered_dom(url, scratch_.path() / "chromium");
  ASSERT_THAT(dom, HasSubstr("data-loaded=\"true\"")) << dom;
  // The topology as a picture: its sub-topology and nodes, the store named.
  EXPECT_THAT(dom, HasSubstr("<svg id=\"topology-svg\""));
  EXPECT_THAT(dom, HasSubstr("Sub-topology 0"));
  EXPECT_THAT(dom, HasSubstr("KSTREAM-SOURCE-0000000000"));
  // The instances and their tasks.
  EXPECT_THAT(dom, HasSubstr("127.0.0.1:1 (this one)"));
  EXPECT_THAT(dom, HasSubstr("0_0 0_1 0_2 0_3"));
  EXPECT_THAT(dom, HasSubstr("counts: 0,1,2,3"));
  // The store browser's answer for key-3: its count, and who answered.
  EXPECT_THAT(dom, HasSubstr("answered by 127.0.0.1:1"));
  EXPECT_THAT(dom, HasSubstr("\"key\": \"key-3\""));
  EXPECT_THAT(dom, HasSubstr("\"value\": 4"));
  EXPECT_THAT(dom, HasSubstr("<option value=\"counts\" data-kind=\"key-value\""));
  ASSERT_TRUE(app.close().ok());
}

}  // namespace
}  // namespace brook::testing
