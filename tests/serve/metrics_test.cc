// GET /metrics through a real HTTP client, parsed by a real Prometheus text-format parser
// (prometheus_client's, Debian's python3-prometheus-client): Kafka Streams' names and labels,
// values that match the application's.
#include <gmock/gmock.h>

#include <fstream>

#include "brook/serve.h"
#include "http_support.h"
#include "integration/embedded_fixture.h"

namespace brook::testing {
namespace {

// The metric families of `text` as parse_metrics.py prints them; fails the test if the parser
// refuses the text or is missing.
nlohmann::json parse_prometheus(const std::string& text, const std::filesystem::path& scratch) {
  const auto input = scratch / "metrics.txt";
  std::ofstream(input) << text;
  const std::string command = std::string("/usr/bin/python3 ") + BROOK_SERVE_TESTS_DIR +
                              "/parse_metrics.py < " + input.string() + " 2>&1";
  const auto [status, out] = run_command(command);
  if (status == -1) {
    ADD_FAILURE()
        << "cannot run /usr/bin/python3 (apt-get install python3 python3-prometheus-client)";
    return {};
  }
  EXPECT_EQ(status, 0) << "the Prometheus parser refused /metrics: " << out;
  auto json = nlohmann::json::parse(out, nullptr, false);
  EXPECT_FALSE(json.is_discarded()) << out;
  return json;
}

class MetricsTest : public EmbeddedFixture {};

TEST_F(MetricsTest, APrometheusParserReadsKafkaStreamsNamesWithTheApplicationsValues) {
  create_topics({{"words", 4}, {"counts-out", 4}});
  std::vector<std::pair<std::string, std::string>> records;
  for (int i = 0; i < 40; ++i) records.emplace_back("key-" + std::to_string(i % 10), "v");
  produce("words", records);
  Streams app(counting_topology(), config({{"application.id", "metrics"}}));
  ASSERT_TRUE(app.start().ok());
  auto server = serve(app, {.listen = "127.0.0.1:0"});
  ASSERT_TRUE(server) << server.error().to_string();
  wait_until_idle(app);
  ASSERT_TRUE(app.wait_for_state(Streams::State::kRunning, std::chrono::seconds(30)).ok());

  auto answer = http_get((*server)->port(), "/metrics");
  ASSERT_EQ(answer.status, 200);
  EXPECT_EQ(answer.header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  const auto families = parse_prometheus(answer.body, scratch_.path());
  ASSERT_TRUE(families.is_object()) << answer.body;

  // Counters lose their _total in the family name, as the parser reads them.
  const auto& processed = families.at("kafka_streams_stream_task_metrics_process");
  EXPECT_EQ(processed["type"], "counter");
  double total = 0;
  std::set<std::string> tasks;
  for (const auto& [name, labels, value] :
       processed["samples"]
           .get<std::vector<
               std::tuple<std::string, std::map<std::string, std::string>, double>>>()) {
    EXPECT_EQ(name, "kafka_streams_stream_task_metrics_process_total");
    tasks.insert(labels.at("task_id"));
    total += value;
  }
  EXPECT_EQ(total, 40);
  EXPECT_EQ(tasks, (std::set<std::string>{"0_0", "0_1", "0_2", "0_3"}));

  std::map<std::string, double> states;
  for (const auto& sample : families.at("kafka_streams_stream_metrics_state")["samples"]) {
    states[sample[1]["state"]] = sample[2];
  }
  EXPECT_EQ(states.at("RUNNING"), 1);
  EXPECT_EQ(states.at("REBALANCING"), 0);

  const auto& lag = families.at("kafka_streams_consumer_fetch_manager_metrics_records_lag");
  ASSERT_EQ(lag["samples"].size(), 4u);
  for (const auto& sample : lag["samples"]) {
    EXPECT_EQ(sample[1]["topic"], "words");
    EXPECT_EQ(sample[2], 0);
  }
  const auto& offsets = families.at("kafka_streams_stream_state_metrics_changelog_offset");
  ASSERT_EQ(offsets["samples"].size(), 4u);
  for (const auto& sample : offsets["samples"]) EXPECT_EQ(sample[1]["store"], "counts");
  EXPECT_TRUE(
      families.contains("kafka_streams_stream_state_metrics_restore_remaining_records_total") ||
      families.contains("kafka_streams_stream_state_metrics_restore_remaining_records"));
  ASSERT_TRUE(app.close().ok());
}

}  // namespace
}  // namespace brook::testing
