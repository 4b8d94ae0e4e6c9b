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

using Sample = std::tuple<std::string, std::map<std::string, std::string>, nlohmann::json>;

// The samples of family `name` (every one named `sample`, if given); fails the test if there is
// no such family.
std::vector<Sample> samples_of(const nlohmann::json& families, const std::string& name,
                               const std::string& sample = "") {
  if (!families.contains(name)) {
    ADD_FAILURE() << "no metric family " << name;
    return {};
  }
  std::vector<Sample> out;
  for (const auto& s : families.at(name)["samples"].get<std::vector<Sample>>()) {
    if (sample.empty() || std::get<0>(s) == sample) out.push_back(s);
  }
  return out;
}

// The sum of the values of `samples`; fails the test for a value that is not a number.
double sum_of(const std::vector<Sample>& samples) {
  double sum = 0;
  for (const auto& [name, labels, value] : samples) {
    EXPECT_TRUE(value.is_number()) << name << " is " << value;
    if (value.is_number()) sum += value.get<double>();
  }
  return sum;
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
  std::set<std::string> tasks;
  const auto samples = samples_of(families, "kafka_streams_stream_task_metrics_process");
  for (const auto& [name, labels, value] : samples) {
    EXPECT_EQ(name, "kafka_streams_stream_task_metrics_process_total");
    tasks.insert(labels.at("task_id"));
  }
  EXPECT_EQ(sum_of(samples), 40);
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

TEST_F(MetricsTest, SensorsMeasureTheThreadTheRecordCacheAndAtDebugLevelEveryStoreCall) {
  create_topics({{"words", 4}, {"counts-out", 4}});
  std::vector<std::pair<std::string, std::string>> records;
  for (int i = 0; i < 40; ++i) records.emplace_back("key-" + std::to_string(i % 10), "v");
  produce("words", records);
  Streams app(counting_topology(), config({{"application.id", "sensors"},
                                           {"metrics.recording.level", "DEBUG"},
                                           {"rocksdb.memory.max.bytes", "33554432"}}));
  ASSERT_TRUE(app.start().ok());
  auto server = serve(app, {.listen = "127.0.0.1:0"});
  ASSERT_TRUE(server) << server.error().to_string();
  wait_until_idle(app);
  // Lag falls with the commit, which its sensor then records.
  const std::string thread = "kafka_streams_stream_thread_metrics_";
  auto answer = wait_for([&] { return http_get((*server)->port(), "/metrics"); },
                         [&](const HttpAnswer& a) {
                           return a.body.find(thread + "commit_total{thread_id=\"0\"} 0\n") ==
                                  std::string::npos;
                         });
  ASSERT_EQ(answer.status, 200);
  const auto families = parse_prometheus(answer.body, scratch_.path());
  ASSERT_TRUE(families.is_object()) << answer.body;

  // The thread: every record processed once, polls and commits made, each with a latency.
  EXPECT_EQ(sum_of(samples_of(families, thread + "process", thread + "process_total")), 40);
  EXPECT_GT(sum_of(samples_of(families, thread + "process_rate")), 0);
  EXPECT_GE(sum_of(samples_of(families, thread + "poll", thread + "poll_total")), 1);
  EXPECT_GE(sum_of(samples_of(families, thread + "commit", thread + "commit_total")), 1);
  for (const char* latency :
       {"process_latency_avg", "process_latency_max", "poll_latency_max", "commit_latency_avg"}) {
    const auto samples = samples_of(families, thread + latency);
    ASSERT_EQ(samples.size(), 1u) << latency;
    EXPECT_EQ(std::get<1>(samples[0]).at("thread_id"), "0");
    EXPECT_GE(sum_of(samples), 0) << latency;
  }

  // At DEBUG, each record's count made one get and one put on its task's store. The first get
  // of each of the 10 keys missed the record cache; the other 30 hit it.
  const std::string state = "kafka_streams_stream_state_metrics_";
  const auto gets = samples_of(families, state + "get", state + "get_total");
  ASSERT_EQ(gets.size(), 4u);
  EXPECT_EQ(sum_of(gets), 40);
  EXPECT_EQ(sum_of(samples_of(families, state + "put", state + "put_total")), 40);
  std::map<std::string, double> gets_of_task;
  for (const auto& [name, labels, value] : gets) {
    EXPECT_EQ(labels.at("rocksdb_state_id"), "counts");
    gets_of_task[labels.at("task_id")] = value.get<double>();
  }
  EXPECT_EQ(samples_of(families, state + "get_latency_avg").size(), 4u);
  double hits = 0;
  for (const auto& [name, labels, value] :
       samples_of(families, "kafka_streams_stream_record_cache_metrics_hit_ratio_avg")) {
    EXPECT_EQ(labels.at("record_cache_id"), "counts");
    ASSERT_TRUE(value.is_number()) << labels.at("task_id") << ": " << value;
    hits += value.get<double>() * gets_of_task.at(labels.at("task_id"));
  }
  EXPECT_NEAR(hits, 30, 1e-9);

  // RocksDB's memory: the shared block cache with the memtables charged to it.
  EXPECT_EQ(sum_of(samples_of(families, state + "block_cache_capacity")), 33554432);
  const double usage = sum_of(samples_of(families, state + "block_cache_usage"));
  EXPECT_GT(usage, 0);
  EXPECT_LE(usage, 2 * 33554432);
  ASSERT_TRUE(app.close().ok());
}

}  // namespace
}  // namespace brook::testing
