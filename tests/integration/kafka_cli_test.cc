// The `brook` command on the shared Kafka broker (tests/kafka_cluster.h), and its
// interoperability with Kafka's own clients: kcat and the Java console producer and consumer.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app_waits.h"
#include "backend/log_backend.h"
#include "brook/brook.h"
#include "brook/streams.h"
#include "kafka_cluster.h"
#include "kafka_tools.h"
#include "run_process.h"
#include "scratch_dir.h"

namespace brook::testing {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> sorted(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  return lines;
}

class KafkaCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bootstrap_ = kafka_bootstrap();
    ASSERT_FALSE(bootstrap_.empty());
    std::filesystem::create_directories(io_.path());
  }
  void TearDown() override {
    for (const auto& topic : topics_) (void)brook({"topics", "delete", topic});
  }

  // Runs `argv` with `input` on stdin; waits for it to exit.
  ProcessResult run(const std::vector<std::string>& argv, const std::string& input = "") {
    return run_process(argv, input, io_.path());
  }

  // Runs `brook args...` with `input` on stdin.
  ProcessResult run_brook(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), BROOK_CLI_PATH);
    return run(args, input);
  }

  // `brook args... --bootstrap-servers <the broker>`.
  ProcessResult brook(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.end(), {"--bootstrap-servers", bootstrap_});
    return run_brook(args, input);
  }

  // Creates a topic named uniquely after `prefix` with `brook topics create`, deleted at the
  // end of the test; returns its name.
  // Kept forever: the tests write records timestamped 1970, which the broker's time-based
  // retention (checked every few seconds) would otherwise delete before they are read.
  std::string create(const std::string& prefix, int partitions) {
    const std::string topic = unique_name(prefix);
    topics_.push_back(topic);
    auto r = brook({"topics", "create", topic, "--partitions", std::to_string(partitions),
                    "--config", "retention.ms=-1"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return topic;
  }

  // `brook consume TOPIC --from-beginning --timeout-ms 0 extra...`: everything there is.
  ProcessResult consume_all(const std::string& topic, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"consume", topic, "--from-beginning", "--timeout-ms", "0"};
    args.insert(args.end(), extra.begin(), extra.end());
    return brook(args);
  }

  std::string bootstrap_;
  ScratchDir io_{"brook-kafka-cli"};
  std::vector<std::string> topics_;
};

TEST_F(KafkaCliTest, CreatesListsDescribesAndDeletesTopics) {
  const std::string topic = unique_name("cli-orders");
  topics_.push_back(topic);
  auto created = brook({"topics", "create", topic, "--partitions", "3", "--config",
                        "cleanup.policy=compact", "--config", "retention.ms=60000"});
  EXPECT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(created.out, fmt::format("created topic {} with 3 partitions\n", topic));

  auto list = brook({"topics", "list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(lines_of(list.out), ::testing::Contains(topic));

  ASSERT_EQ(brook({"produce", topic}, "k\tv\nk\tw\n").exit_code, 0);
  const int p = internal::partition_for_key("k", 3).value();
  std::string expected = fmt::format(
      "Topic: {}\tPartitions: 3\tConfigs: cleanup.policy=compact retention.ms=60000\n", topic);
  for (int i = 0; i < 3; ++i) {
    expected += fmt::format("\tPartition: {}\tStart: 0\tEnd: {}\n", i, i == p ? 2 : 0);
  }
  auto describe = brook({"topics", "describe", topic});
  EXPECT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_EQ(describe.out, expected);

  auto deleted = brook({"topics", "delete", topic});
  EXPECT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(deleted.out, fmt::format("deleted topic {}\n", topic));
  // Kafka deletes in the background: the topic leaves the metadata soon after.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    auto now = brook({"topics", "list"});
    ASSERT_EQ(now.exit_code, 0) << now.err;
    if (!::testing::Matches(::testing::Contains(topic))(lines_of(now.out))) return;
  }
  ADD_FAILURE() << topic << " is still listed 30 s after its deletion";
}

TEST_F(KafkaCliTest, ProducesLinesWithAndWithoutKeysAndConsumesThemBack) {
  const std::string topic = create("cli-events", 1);
  auto produced = brook({"produce", topic, "--timestamp", "42"}, "a\t1\nb\t2\tx\nplain\n\n");
  EXPECT_EQ(produced.exit_code, 0) << produced.err;
  // Last on stderr, after any warning librdkafka logs (a coordinator still loading, say).
  EXPECT_THAT(produced.err, EndsWith(fmt::format("produced 4 records to {}\n", topic)));

  auto all_fields = consume_all(
      topic, {"--print-partition", "--print-offset", "--print-timestamp", "--print-key"});
  EXPECT_EQ(all_fields.exit_code, 0) << all_fields.err;
  EXPECT_EQ(all_fields.out,
            "0\t0\t42\ta\t1\n"
            "0\t1\t42\tb\t2\tx\n"
            "0\t2\t42\tnull\tplain\n"
            "0\t3\t42\tnull\t\n");
  EXPECT_THAT(all_fields.err, EndsWith(fmt::format("consumed 4 records from {}\n", topic)));
}

TEST_F(KafkaCliTest, ProducesJsonLinesWithTheirOwnTimestampsAndPartitions) {
  const std::string topic = create("cli-jsonl", 2);
  auto produced = brook({"produce", topic, "--format", "jsonl"},
                        R"({"key":"a","value":{"n":1},"timestamp":1000,"partition":1})"
                        "\n"
                        R"({"key":"b","value":"two","timestamp":2000,"partition":0})"
                        "\n"
                        R"({"key":"a","value":null,"timestamp":3000,"partition":1})"
                        "\n");
  ASSERT_EQ(produced.exit_code, 0) << produced.err;
  auto consumed = consume_all(topic, {"--print-partition", "--print-timestamp", "--print-key"});
  EXPECT_EQ(consumed.exit_code, 0) << consumed.err;
  std::vector<std::string> lines;
  std::istringstream out(consumed.out);
  for (std::string line; std::getline(out, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"0\t2000\tb\ttwo", "1\t1000\ta\t{\"n\":1}",
                                             "1\t3000\ta\tnull"}));
}

// The same records on the embedded log and on Kafka compare equal across the two logs; a
// changed value on one side is a difference.
TEST_F(KafkaCliTest, TopicsDiffComparesATopicOnTheEmbeddedLogWithOneOnKafka) {
  const std::string topic = create("cli-diff", 3);
  const std::string data_dir = (io_.path() / "data").string();
  const std::string input = "a\t{\"n\":1}\nb\t{\"n\":2}\na\t{\"n\":3}\n";
  ASSERT_EQ(run_brook({"topics", "create", "local", "--partitions", "1", "--data-dir", data_dir})
                .exit_code,
            0);
  ASSERT_EQ(run_brook({"produce", "local", "--data-dir", data_dir}, input).exit_code, 0);
  ASSERT_EQ(brook({"produce", topic}, input).exit_code, 0);
  auto equal = run_brook({"topics", "diff", "local", topic, "--data-dir", data_dir,
                          "--b-bootstrap-servers", bootstrap_, "--value-format", "json"});
  EXPECT_EQ(equal.exit_code, 0) << equal.err;
  EXPECT_THAT(equal.out, EndsWith("equal: 2, only in A: 0, only in B: 0, different: 0\n"));

  ASSERT_EQ(brook({"produce", topic}, "b\t{\"n\":20}\n").exit_code, 0);
  auto different = run_brook({"topics", "diff", "local", topic, "--data-dir", data_dir,
                              "--b-bootstrap-servers", bootstrap_, "--value-format", "json"});
  EXPECT_EQ(different.exit_code, 1) << different.err;
  EXPECT_THAT(different.out, HasSubstr("  b\n    A: {\"n\":2}\n    B: {\"n\":20}\n"
                                       "    replace /n: 2 -> 20\n"));
}

// On Kafka: a running application's group refuses the reset, naming its member; once it is
// closed, the reset and a second run give the same final counts.
TEST_F(KafkaCliTest, AppResetRefusesARunningAppThenRerunGivesTheSameOutputs) {
  const std::string words = create("cli-words", 2);
  const std::string counts = create("cli-counts", 2);
  const std::string application_id = unique_name("cli-wc");
  std::string lines;
  for (int i = 0; i < 200; ++i) lines += fmt::format("{}\tw{}\n", i, i * 7 % 13);
  ASSERT_EQ(brook({"produce", words}, lines).exit_code, 0);
  auto start = [&] {
    StreamsBuilder builder;
    builder.stream<std::string, std::string>(words)
        .group_by([](const std::string&, const std::string& word) { return word; })
        .count({.name = "word-counts"})
        .to_stream()
        .to(counts);
    auto app = std::make_unique<Streams>(
        *builder.build(),
        std::map<std::string, std::string>{{"application.id", application_id},
                                           {"bootstrap.servers", bootstrap_},
                                           {"commit.interval.ms", "50"},
                                           {"state.dir", (io_.path() / "state").string()}});
    EXPECT_TRUE(app->start().ok());
    wait_until_idle(*app);
    return app;
  };
  // The latest count per word in `counts` at or past offset `from` (per partition), and the
  // end of each partition.
  using Ends = std::map<std::string, std::int64_t>;
  auto final_counts = [&](const Ends& from) {
    auto printed = consume_all(
        counts, {"--print-partition", "--print-offset", "--print-key", "--value-format", "int64"});
    EXPECT_EQ(printed.exit_code, 0) << printed.err;
    std::map<std::string, std::string> out;
    Ends ends;
    for (const auto& line : lines_of(printed.out)) {
      std::istringstream fields(line);
      std::string partition, word, count;
      std::int64_t offset = 0;
      std::getline(fields, partition, '\t');
      fields >> offset;
      fields.ignore();
      std::getline(fields, word, '\t');
      std::getline(fields, count);
      ends[partition] = offset + 1;
      if (auto begin = from.find(partition); begin == from.end() || offset >= begin->second) {
        out[word] = count;
      }
    }
    return std::pair(out, ends);
  };
  auto app = start();
  auto refused =
      brook({"app", "reset", "--application-id", application_id, "--input-topics", words});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr(fmt::format("application {} is running: its group has 1 "
                                                 "active member(s): ",
                                                 application_id)));
  // While it runs, `brook groups describe` and `brook app describe` name its member.
  const std::string running = fmt::format("\tMembers: 1: {}-", application_id);
  EXPECT_THAT(brook({"groups", "describe", application_id}).out,
              StartsWith("Group: " + application_id + running));
  auto described = brook({"app", "describe", "--application-id", application_id});
  EXPECT_THAT(described.out, StartsWith("Application: " + application_id + running));
  EXPECT_THAT(described.out,
              HasSubstr(fmt::format("\t{}-word-counts-changelog\tPartitions: 2\tRecords: ",
                                    application_id)));
  ASSERT_TRUE(app->close().ok());
  app.reset();
  EXPECT_THAT(lines_of(brook({"groups", "list"}).out), ::testing::Contains(application_id));
  // Closed, it has committed all 200 words: no lag, no members.
  auto group = brook({"groups", "describe", application_id});
  EXPECT_THAT(group.out,
              StartsWith(fmt::format("Group: {}\tMembers: none\tLag: 0\n", application_id)));
  std::int64_t committed = 0;
  for (const auto& line : lines_of(group.out)) {
    const auto prefix = fmt::format("\tTopic: {}\tPartition: ", words);
    if (!line.starts_with(prefix)) continue;
    const auto at = line.find("Committed: ") + std::string_view("Committed: ").size();
    committed += std::stoll(line.substr(at));
  }
  EXPECT_EQ(committed, 200);
  const auto [first, first_ends] = final_counts({});
  ASSERT_EQ(first.size(), 13u);

  auto reset = brook({"app", "reset", "--application-id", application_id, "--input-topics", words,
                      "--local-state-dir", (io_.path() / "state").string()});
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  EXPECT_THAT(reset.out, HasSubstr(fmt::format("delete internal topic {}-word-counts-changelog\n",
                                               application_id)));
  // Kafka deletes in the background: the second run must not find the old topics.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (brook({"topics", "list"}).out.find(application_id) != std::string::npos) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "internal topics still listed";
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  app = start();
  ASSERT_TRUE(app->close().ok());
  // The second run wrote every word again, each ending with the first run's count.
  EXPECT_EQ(final_counts(first_ends).first, first);
}

TEST_F(KafkaCliTest, ProducesToAPartitionWithNullMarkerAndConsumesOnePartition) {
  const std::string topic = create("cli-table", 2);
  auto produced =
      brook({"produce", topic, "--partition", "1", "--null-marker", "NULL"}, "a\t1\nb\tNULL\n");
  ASSERT_EQ(produced.exit_code, 0) << produced.err;
  auto consumed = consume_all(topic, {"--print-partition", "--print-key"});
  EXPECT_EQ(consumed.out, "1\ta\t1\n1\tb\tnull\n");
  auto only_zero = consume_all(topic, {"--partition", "0"});
  EXPECT_EQ(only_zero.exit_code, 0) << only_zero.err;
  EXPECT_EQ(only_zero.out, "");
}

TEST_F(KafkaCliTest, GroupConsumeCommitsWhatItPrinted) {
  const std::string topic = create("cli-group", 2);
  ASSERT_EQ(brook({"produce", topic, "--partition", "0"}, "a\nb\nc\n").exit_code, 0);
  ASSERT_EQ(brook({"produce", topic, "--partition", "1"}, "d\ne\n").exit_code, 0);
  const std::vector<std::string> group = {"consume",           topic,           "--group",
                                          unique_name("g"),    "--timeout-ms",  "0",
                                          "--print-partition", "--print-offset"};
  auto first_args = group;
  first_args.insert(first_args.end(), {"--max", "1"});
  auto first = brook(first_args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(lines_of(first.out).size(), 1u);

  auto rest = brook(group);
  ASSERT_EQ(rest.exit_code, 0) << rest.err;
  auto lines = lines_of(first.out + rest.out);
  EXPECT_EQ(sorted(lines),
            (std::vector<std::string>{"0\t0\ta", "0\t1\tb", "0\t2\tc", "1\t0\td", "1\t1\te"}));

  auto again = brook(group);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, "");  // nothing new for the group
}

TEST_F(KafkaCliTest, ConsumeWithoutFromBeginningPrintsOnlyNewRecords) {
  const std::string topic = create("cli-tail", 1);
  ASSERT_EQ(brook({"produce", topic}, "old\n").exit_code, 0);
  auto consumed = brook({"consume", topic, "--timeout-ms", "0"});
  EXPECT_EQ(consumed.exit_code, 0) << consumed.err;
  EXPECT_EQ(consumed.out, "");
}

TEST_F(KafkaCliTest, UnknownTopicIsAnErrorNamingIt) {
  const std::string topic = unique_name("cli-nope");
  // Each command gives a new topic time to reach every broker (about 10 s) before it calls
  // the topic unknown: the three wait together, each with files of its own.
  auto start = [&](const std::string& io_name, std::vector<std::string> args,
                   std::string input = "") {
    const auto io_dir = io_.path() / io_name;
    std::filesystem::create_directories(io_dir);
    args.insert(args.begin(), BROOK_CLI_PATH);
    args.insert(args.end(), {"--bootstrap-servers", bootstrap_});
    return std::async(std::launch::async,
                      [args, input, io_dir] { return run_process(args, input, io_dir); });
  };
  auto consuming = start("consume", {"consume", topic});
  auto producing = start("produce", {"produce", topic}, "v\n");
  auto describing = start("describe", {"topics", "describe", topic});

  auto consume = consuming.get();
  EXPECT_EQ(consume.exit_code, 1);
  EXPECT_THAT(consume.err, StartsWith("brook: NotFound: "));
  EXPECT_THAT(consume.err, HasSubstr(topic));

  auto produce = producing.get();
  EXPECT_EQ(produce.exit_code, 1);
  EXPECT_THAT(produce.err, HasSubstr(topic));

  auto describe = describing.get();
  EXPECT_EQ(describe.exit_code, 1);
  EXPECT_THAT(describe.err, HasSubstr(topic));

  const std::string existing = create("cli-twice", 1);
  auto twice = brook({"topics", "create", existing, "--partitions", "1"});
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_THAT(twice.err, StartsWith("brook: AlreadyExists: "));
  EXPECT_THAT(twice.err, HasSubstr(existing));
}

TEST_F(KafkaCliTest, DataDirWithBootstrapServersIsAUsageError) {
  for (const auto& command : std::vector<std::vector<std::string>>{
           {"topics", "list"}, {"produce", "t"}, {"consume", "t"}}) {
    auto args = command;
    args.insert(args.end(), {"--data-dir", io_.path().string()});
    auto r = brook(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("--data-dir and --bootstrap-servers name two logs"));
    EXPECT_EQ(r.out, "");
  }
  auto empty = run_brook({"topics", "list", "--bootstrap-servers="});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_THAT(empty.err, StartsWith("brook topics list: --bootstrap-servers must not be empty"));
}

// "KEY:VALUE" lines for `count` keys, values telling who wrote them.
std::string keyed_lines(const std::string& writer, int count) {
  std::string lines;
  for (int i = 0; i < count; ++i) lines += fmt::format("key-{}:{}-{}\n", i, writer, i);
  return lines;
}

TEST_F(KafkaCliTest, ReadsWhatKcatAndTheJavaProducerWrote) {
  const std::string topic = create("cli-from-others", 3);
  const auto kcat = run(kcat_producer(bootstrap_, topic), keyed_lines("kcat", 10));
  ASSERT_EQ(kcat.exit_code, 0) << kcat.err;
  const auto java = run(java_console_producer(bootstrap_, topic), keyed_lines("java", 10));
  ASSERT_EQ(java.exit_code, 0) << java.err;

  auto consumed = consume_all(topic, {"--print-key"});
  ASSERT_EQ(consumed.exit_code, 0) << consumed.err;
  std::vector<std::string> expected;
  for (const auto& line : lines_of(keyed_lines("kcat", 10) + keyed_lines("java", 10))) {
    expected.push_back(line.substr(0, line.find(':')) + "\t" + line.substr(line.find(':') + 1));
  }
  EXPECT_EQ(sorted(lines_of(consumed.out)), sorted(expected));
}

TEST_F(KafkaCliTest, KcatAndTheJavaConsumerReadWhatBrookWrote) {
  const std::string topic = create("cli-to-others", 3);
  std::string input;
  std::vector<std::string> expected;  // KEY:VALUE
  for (int i = 0; i < 12; ++i) {
    input += fmt::format("key-{}\tvalue {}: with a colon\n", i, i);
    expected.push_back(fmt::format("key-{}:value {}: with a colon", i, i));
  }
  ASSERT_EQ(brook({"produce", topic}, input).exit_code, 0);

  auto kcat = run(kcat_consumer(bootstrap_, topic));
  ASSERT_EQ(kcat.exit_code, 0) << kcat.err;
  std::vector<std::string> kcat_lines;
  for (const auto& line : lines_of(kcat.out)) {
    const auto last = line.rfind(':');  // KEY:VALUE:PARTITION
    const std::string key = line.substr(0, line.find(':'));
    EXPECT_EQ(std::stoi(line.substr(last + 1)), internal::partition_for_key(key, 3).value())
        << line;
    kcat_lines.push_back(line.substr(0, last));
  }
  EXPECT_EQ(sorted(kcat_lines), sorted(expected));

  auto java = run(java_console_consumer(bootstrap_, topic, 12));
  ASSERT_EQ(java.exit_code, 0) << java.err;
  EXPECT_EQ(sorted(lines_of(java.out)), sorted(expected));
}

// Every client puts a key in the partition murmur2 picks, as the Java client does.
TEST_F(KafkaCliTest, KcatJavaAndBrookPartitionKeysIdentically) {
  const std::string by_kcat = create("cli-part-kcat", 6);
  const std::string by_java = create("cli-part-java", 6);
  const std::string by_brook = create("cli-part-brook", 6);
  constexpr int kKeys = 60;
  std::string brook_input;
  for (int i = 0; i < kKeys; ++i) brook_input += fmt::format("key-{}\tbrook-{}\n", i, i);
  ASSERT_EQ(run(kcat_producer(bootstrap_, by_kcat), keyed_lines("kcat", kKeys)).exit_code, 0);
  ASSERT_EQ(run(java_console_producer(bootstrap_, by_java), keyed_lines("java", kKeys)).exit_code,
            0);
  ASSERT_EQ(brook({"produce", by_brook}, brook_input).exit_code, 0);

  std::map<std::string, std::map<std::string, int>> partitions;  // writer -> key -> partition
  for (const auto& [writer, topic] :
       {std::pair{"kcat", by_kcat}, std::pair{"java", by_java}, std::pair{"brook", by_brook}}) {
    auto consumed = consume_all(topic, {"--print-partition", "--print-key"});
    ASSERT_EQ(consumed.exit_code, 0) << consumed.err;
    for (const auto& line : lines_of(consumed.out)) {
      const auto tab = line.find('\t');
      const std::string key = line.substr(tab + 1, line.find('\t', tab + 1) - tab - 1);
      partitions[writer][key] = std::stoi(line.substr(0, tab));
    }
    EXPECT_EQ(partitions[writer].size(), static_cast<std::size_t>(kKeys)) << writer;
  }
  std::set<int> used;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = fmt::format("key-{}", i);
    const int expected = internal::partition_for_key(key, 6).value();
    used.insert(expected);
    EXPECT_EQ(partitions["kcat"][key], expected) << key;
    EXPECT_EQ(partitions["java"][key], expected) << key;
    EXPECT_EQ(partitions["brook"][key], expected) << key;
  }
  EXPECT_EQ(used.size(), 6u);  // the keys cover every partition: the check means something
}

}  // namespace
}  // namespace brook::testing
