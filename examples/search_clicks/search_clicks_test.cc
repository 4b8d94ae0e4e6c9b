#include "search_clicks.h"

#include <brook/testing/topology_test_driver.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>

namespace search_clicks {
namespace {

using ::testing::ElementsAre;
using Top = brook::KeyValue<std::string, std::optional<TopResult>>;

class SearchClicks : public ::testing::Test {
 protected:
  SearchClicks()
      : topology_(*build_topology()),
        driver_(topology_, {.application_id = "search-clicks"}),
        searches_(driver_.create_input_topic<std::string, Search>(kSearchTopic)),
        clicks_(driver_.create_input_topic<std::string, Click>(kClickTopic)),
        top_(driver_.create_output_topic<std::string, std::optional<TopResult>>(kOutputTopic)) {}

  void search(const std::string& user, const std::string& query, std::int64_t at) {
    searches_.pipe_input(user, Search{query, {"r1", "r2", "r3"}}, brook::Timestamp(at));
  }
  void click(const std::string& user, const std::string& result, std::int64_t at) {
    clicks_.pipe_input(user, Click{result}, brook::Timestamp(at));
  }

  brook::Topology topology_;
  brook::testing::TopologyTestDriver driver_;
  brook::testing::TestInputTopic<std::string, Search> searches_;
  brook::testing::TestInputTopic<std::string, Click> clicks_;
  brook::testing::TestOutputTopic<std::string, std::optional<TopResult>> top_;
};

TEST_F(SearchClicks, CountsClicksOnShownResultsWithinFiveSecondsAfterTheSearch) {
  search("ann", "boots", 10'000);
  click("ann", "r2", 10'000);  // at the search: in
  click("ann", "r9", 11'000);  // not shown: no hit
  click("bob", "r1", 12'000);  // another user: no hit
  click("ann", "r1", 15'000);  // exactly 5 s after: in
  click("ann", "r3", 15'001);  // too late for the search
  EXPECT_THAT(top_.read_key_values_to_list(),
              ElementsAre(Top{"boots", TopResult{"r2", 1}}, Top{"boots", TopResult{"r1", 1}}));
  search("cat", "boots", 20'000);
  click("cat", "r2", 21'000);
  EXPECT_THAT(top_.read_key_values_to_list(), ElementsAre(Top{"boots", TopResult{"r2", 2}}));
}

TEST_F(SearchClicks, AClickJoinsEverySearchItFollowsAndAClickBeforeTheSearchNone) {
  click("ann", "r3", 999);
  search("ann", "boots", 1'000);
  search("ann", "hats", 2'000);
  click("ann", "r3", 3'000);
  EXPECT_THAT(top_.read_key_values_to_list(),
              ElementsAre(Top{"boots", TopResult{"r3", 1}}, Top{"hats", TopResult{"r3", 1}}));
}

TEST(SearchClicksRecompute, EqualsTheTopologyOnRandomInputs) {
  std::mt19937 random(3);
  std::vector<Timed<Search>> searches;
  std::vector<Timed<Click>> clicks;
  const std::vector<std::string> queries = {"boots", "hats", "scarf"};
  for (std::int64_t t = 0; t < 200'000; t += 250) {
    const std::string user = "u" + std::to_string(random() % 5);
    if (random() % 2) {
      searches.push_back({user, {queries[random() % 3], {"r1", "r2", "r3"}}, t});
    } else {
      clicks.push_back({user, {"r" + std::to_string(1 + random() % 4)}, t});
    }
  }
  brook::testing::TopologyTestDriver driver(*build_topology());
  auto s = driver.create_input_topic<std::string, Search>(kSearchTopic);
  auto c = driver.create_input_topic<std::string, Click>(kClickTopic);
  std::size_t i = 0, j = 0;
  while (i < searches.size() || j < clicks.size()) {  // in time order
    if (j == clicks.size() || (i < searches.size() && searches[i].at <= clicks[j].at)) {
      s.pipe_input(searches[i].user, searches[i].value, brook::Timestamp(searches[i].at));
      ++i;
    } else {
      c.pipe_input(clicks[j].user, clicks[j].value, brook::Timestamp(clicks[j].at));
      ++j;
    }
  }
  std::map<std::string, TopResult> latest;
  for (auto& [query, top] :
       driver.create_output_topic<std::string, std::optional<TopResult>>(kOutputTopic)
           .read_key_values_to_list()) {
    latest[query] = *top;
  }
  const auto expected = recompute(searches, clicks);
  EXPECT_EQ(expected.size(), 3u);
  EXPECT_EQ(latest, expected);
}

}  // namespace
}  // namespace search_clicks
