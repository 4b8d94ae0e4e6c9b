// The `brook` command, run as a real process on a fresh embedded data dir.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "backend/log_backend.h"
#include "brook/brook.h"
#include "brook/streams.h"
#include "embedded_fixture.h"
#include "run_process.h"

namespace brook::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using CliResult = ProcessResult;

class CliTest : public EmbeddedFixture {
 protected:
  void SetUp() override {
    EmbeddedFixture::SetUp();
    io_ = dir_.string() + "-io";
    std::filesystem::create_directories(io_);
  }
  void TearDown() override {
    EmbeddedFixture::TearDown();
    std::filesystem::remove_all(io_);
  }

  // Runs `brook args...` with `input` on stdin; waits for it to exit.
  CliResult run_brook(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), BROOK_CLI_PATH);
    return run_process(args, input, io_);
  }

  // `brook args... --data-dir <the test's dir>`.
  CliResult brook(std::vector<std::string> args, const std::string& input = "") {
    args.push_back("--data-dir");
    args.push_back(dir_.string());
    return run_brook(args, input);
  }

  // Creates `topic`; fails the test unless that worked.
  void create(const std::string& topic, int partitions) {
    auto r = brook({"topics", "create", topic, "--partitions", std::to_string(partitions)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // Runs application.id `application_id` counting the words (values) of topic "words" into
  // the store "word-counts" (through a repartition topic) and topic "counts", until idle.
  void run_word_count(const std::string& application_id) {
    StreamsBuilder builder;
    builder.stream<std::string, std::string>("words")
        .group_by([](const std::string&, const std::string& word) { return word; })
        .count({.name = "word-counts"})
        .to_stream()
        .to("counts");
    Streams app(*builder.build(), config({{"application.id", application_id}}));
    ASSERT_TRUE(app.start().ok());
    wait_until_idle(app);
    ASSERT_TRUE(app.close().ok());
  }

  std::filesystem::path io_;
};

TEST_F(CliTest, CreatesListsDescribesAndDeletesTopics) {
  auto created = brook({"topics", "create", "orders", "--partitions", "3", "--config",
                        "cleanup.policy=compact", "--config", "retention.ms=60000"});
  EXPECT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(created.out, "created topic orders with 3 partitions\n");
  create("logs", 1);

  auto list = brook({"topics", "list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.out, "logs\norders\n");

  produce("orders", {{"k", "v"}});  // partition murmur2("k") % 3
  const int p = internal::partition_for_key("k", 3).value();
  std::string expected =
      "Topic: orders\tPartitions: 3\tConfigs: cleanup.policy=compact "
      "retention.ms=60000\n";
  for (int i = 0; i < 3; ++i) {
    expected += fmt::format("\tPartition: {}\tStart: 0\tEnd: {}\n", i, i == p ? 1 : 0);
  }
  auto describe = brook({"topics", "describe", "orders"});
  EXPECT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_EQ(describe.out, expected);

  auto all = brook({"topics", "describe"});
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.out,
            "Topic: logs\tPartitions: 1\tConfigs: (defaults)\n"
            "\tPartition: 0\tStart: 0\tEnd: 0\n" +
                expected);

  auto deleted = brook({"topics", "delete", "logs"});
  EXPECT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(deleted.out, "deleted topic logs\n");
  EXPECT_EQ(brook({"topics", "list"}).out, "orders\n");
}

TEST_F(CliTest, ProducesLinesWithAndWithoutKeysAndConsumesThemBack) {
  create("events", 1);
  auto produced = brook({"produce", "events", "--timestamp", "42"}, "a\t1\nb\t2\tx\nplain\n\n");
  EXPECT_EQ(produced.exit_code, 0) << produced.err;
  EXPECT_EQ(produced.err, "produced 4 records to events\n");

  const auto records = read_all("events");
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].key, "a");
  EXPECT_EQ(records[1].value, "2\tx");  // split at the first separator only
  EXPECT_EQ(records[2].key, std::nullopt);
  EXPECT_EQ(records[2].value, "plain");
  EXPECT_EQ(records[3].value, "");
  EXPECT_EQ(records[0].timestamp, Timestamp(42));

  auto all_fields =
      brook({"consume", "events", "--from-beginning", "--timeout-ms", "0", "--print-partition",
             "--print-offset", "--print-timestamp", "--print-key"});
  EXPECT_EQ(all_fields.exit_code, 0) << all_fields.err;
  EXPECT_EQ(all_fields.out,
            "0\t0\t42\ta\t1\n"
            "0\t1\t42\tb\t2\tx\n"
            "0\t2\t42\tnull\tplain\n"
            "0\t3\t42\tnull\t\n");
  EXPECT_EQ(all_fields.err, "consumed 4 records from events\n");

  auto values = brook({"consume", "events", "--from-beginning", "--timeout-ms", "0"});
  EXPECT_EQ(values.out, "1\n2\tx\nplain\n\n");
}

// One process writes any number of timestamps: --format jsonl, or --timestamp-field.
TEST_F(CliTest, ProducesJsonLinesWithTheirOwnTimestampsHeadersAndPartitions) {
  create("events", 2);
  auto produced =
      brook({"produce", "events", "--format", "jsonl", "--timestamp", "7"},
            R"({"key":"a","value":{"n":1},"timestamp":1000,"headers":{"h":"x","z":null}})"
            "\n"
            R"({"key":{"id":7},"value":"text","partition":1})"
            "\n"
            R"({"key":"a","value":null})"
            "\n");
  ASSERT_EQ(produced.exit_code, 0) << produced.err;
  EXPECT_EQ(produced.err, "produced 3 records to events\n");
  auto records = read_all("events");
  ASSERT_EQ(records.size(), 3u);
  std::sort(records.begin(), records.end(),
            [](const auto& a, const auto& b) { return a.timestamp < b.timestamp; });
  EXPECT_EQ(records[0].timestamp, Timestamp(7));  // --timestamp where a line gives none
  EXPECT_EQ(records[2].key, "a");
  EXPECT_EQ(records[2].value, R"({"n":1})");  // a JSON value as its JSON text
  EXPECT_EQ(records[2].timestamp, Timestamp(1000));
  EXPECT_EQ(records[2].headers, (Headers{{"h", "x"}, {"z", std::nullopt}}));
  const auto text =
      std::find_if(records.begin(), records.end(), [](const auto& r) { return r.value == "text"; });
  ASSERT_NE(text, records.end());
  EXPECT_EQ(text->key, R"({"id":7})");
  EXPECT_EQ(text->partition, Partition(1));
  EXPECT_EQ(std::count_if(records.begin(), records.end(),
                          [](const auto& r) { return r.key == "a" && !r.value; }),
            1);  // the tombstone

  create("trades", 1);
  std::string lines;
  for (int i = 0; i < 1000; ++i) lines += fmt::format("sym{}\t{{\"ts\":{}}}\n", i % 7, 5000 + i);
  ASSERT_EQ(brook({"produce", "trades", "--timestamp-field", "ts"}, lines).exit_code, 0);
  const auto trades = read_all("trades");
  ASSERT_EQ(trades.size(), 1000u);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(trades[i].timestamp, Timestamp(5000 + i));
}

// consume --format jsonl writes what produce --format jsonl reads: binary keys, values and
// headers (base64), repeated header names, tombstones, partitions and timestamps survive the
// round trip.
TEST_F(CliTest, ConsumedJsonLinesProduceTheSameRecordsAgain) {
  create("a", 2);
  create("b", 2);
  ASSERT_EQ(brook({"produce", "a", "--format", "jsonl"},
                  R"({"key":"k1","value":{"n":1},"timestamp":5,"headers":{"h":"x","z":null}})"
                  "\n"
                  R"({"key_base64":"AP8=","value_base64":"gIE=","timestamp":6,"partition":1,)"
                  R"("headers":[{"key":"r","value":"1"},{"key":"r","value_base64":"/w=="}]})"
                  "\n"
                  R"({"key":"k2","value":null,"timestamp":7})"
                  "\n")
                .exit_code,
            0);
  auto consumed = brook({"consume", "a", "--from-beginning", "--timeout-ms", "0", "--format",
                         "jsonl", "--partition", "1"});
  ASSERT_EQ(consumed.exit_code, 0) << consumed.err;
  EXPECT_THAT(consumed.out,
              HasSubstr(R"({"headers":[{"key":"r","value":"1"},{"key":"r","value_base64":"/w=="}],)"
                        R"("key_base64":"AP8=","offset":1,"partition":1,"timestamp":6,)"
                        R"("value_base64":"gIE="})"));
  auto all = brook({"consume", "a", "--from-beginning", "--timeout-ms", "0", "--format", "jsonl"});
  ASSERT_EQ(brook({"produce", "b", "--format", "jsonl"}, all.out).exit_code, 0);
  auto again =
      brook({"consume", "b", "--from-beginning", "--timeout-ms", "0", "--format", "jsonl"});
  EXPECT_EQ(again.out, all.out);
  const auto records = read_all("b");
  ASSERT_EQ(records.size(), 3u);
  const auto binary = std::find_if(records.begin(), records.end(),
                                   [](const auto& r) { return r.timestamp == Timestamp(6); });
  ASSERT_NE(binary, records.end());
  EXPECT_EQ(binary->key, std::string("\x00\xff", 2));
  EXPECT_EQ(binary->value, std::string("\x80\x81", 2));
  EXPECT_EQ(binary->headers, (Headers{{"r", "1"}, {"r", std::string("\xff", 1)}}));
}

// Binary keys and values print as what they encode: Kafka's big-endian numbers, windowed and
// session keys ([key@start], [key@start/end]); bytes that do not fit are an error naming the
// record.
TEST_F(CliTest, ConsumePrintsNumbersAndWindowedKeysInTheFormatsGiven) {
  create("stats", 1);
  // Key: int64 7 in the window starting at 1000; value: int64 42. Key: "key" in the session
  // 1000..2000; value: the double 3.141592653589793. Key and value of 2 bytes.
  ASSERT_EQ(brook({"produce", "stats", "--format", "jsonl"},
                  R"({"key_base64":"AAAAAAAAAAcAAAAAAAAD6A==","value_base64":"AAAAAAAAACo="})"
                  "\n"
                  R"({"key_base64":"a2V5AAAAAAAAB9AAAAAAAAAD6A==","value_base64":"QAkh+1RELRg="})"
                  "\n"
                  R"({"key_base64":"AP8=","value_base64":"AP8="})"
                  "\n")
                .exit_code,
            0);
  auto consume = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"consume",      "stats", "--from-beginning",
                                     "--timeout-ms", "0",     "--print-key"};
    args.insert(args.end(), extra.begin(), extra.end());
    return brook(args);
  };
  EXPECT_EQ(
      consume({"--max", "1", "--key-format", "windowed:int64", "--value-format", "int64"}).out,
      "[7@1000]\t42\n");
  auto session = consume({"--key-format", "session:string", "--value-format", "double"});
  EXPECT_THAT(session.out, HasSubstr("[key@1000/2000]\t3.141592653589793\n"));
  EXPECT_EQ(session.exit_code, 1);
  EXPECT_THAT(session.err, HasSubstr("the key of stats-0@2: 2 bytes are too short for a session "
                                     "key (16 bytes of window after the key)"));
  EXPECT_EQ(consume({"--key-format", "hex", "--value-format", "base64"}).out,
            "000000000000000700000000000003e8\tAAAAAAAAACo=\n"
            "6b657900000000000007d000000000000003e8\tQAkh+1RELRg=\n"
            "00ff\tAP8=\n");
  auto int32 = consume({"--value-format", "int32"});
  EXPECT_EQ(int32.exit_code, 1);
  EXPECT_THAT(int32.err, HasSubstr("the value of stats-0@0: "));
}

// Reprocessing in place: an application counting words runs, is reset (input offsets to the
// start, internal topics and local state deleted) and runs again: its second run writes the
// same final counts (without the reset's state deletion they would double), and a dry run
// changes nothing.
TEST_F(CliTest, AppResetThenRerunGivesTheSameOutputs) {
  create("words", 2);
  create("counts", 2);
  std::string lines;
  for (int i = 0; i < 200; ++i) lines += fmt::format("{}\tw{}\n", i, i * 7 % 13);
  ASSERT_EQ(brook({"produce", "words"}, lines).exit_code, 0);
  // The latest count per word in the records at or past `from` (per partition), and the end of
  // each partition.
  using Ends = std::map<Partition, std::int64_t>;
  auto final_counts = [&](const Ends& from) {
    std::map<std::string, std::int64_t> counts;
    Ends ends;
    for (const auto& record : read_all("counts")) {
      ends[record.partition] = record.offset.value() + 1;
      auto start = from.find(record.partition);
      if (start != from.end() && record.offset.value() < start->second) continue;
      counts[*record.key] = *Int64Serde().deserialize(*record.value);
    }
    return std::pair(counts, ends);
  };
  run_word_count("wc");
  const auto [first, first_ends] = final_counts({});
  ASSERT_EQ(first.size(), 13u);
  std::int64_t total = 0;
  for (const auto& [word, count] : first) total += count;
  EXPECT_EQ(total, 200);

  const std::string state = (dir_ / "state").string();
  auto dry = brook({"app", "reset", "--application-id", "wc", "--input-topics", "words",
                    "--local-state-dir", state, "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_THAT(dry.out, HasSubstr("would reset the offset of words-0 to 0\n"));
  EXPECT_THAT(dry.out, HasSubstr("would delete internal topic wc-word-counts-changelog\n"));
  EXPECT_THAT(dry.out, HasSubstr("would delete internal topic wc-word-counts-repartition\n"));
  EXPECT_THAT(dry.out, HasSubstr("would delete local state " + state + "/wc\n"));
  EXPECT_THAT(brook({"topics", "list"}).out, HasSubstr("wc-word-counts-changelog"));

  // Without --local-state-dir: the embedded log's default, <data dir>/state.
  auto reset = brook({"app", "reset", "--application-id", "wc", "--input-topics", "words"});
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  EXPECT_THAT(reset.out, HasSubstr("reset application wc\n"));
  EXPECT_EQ(brook({"topics", "list"}).out, "counts\nwords\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state" / "wc"));

  run_word_count("wc");
  const auto [second, second_ends] = final_counts(first_ends);
  EXPECT_EQ(second, first);
}

// `brook groups` and `brook app describe` on an application that has processed 200 words,
// after 30 more were written: its committed offsets, the lag of 30, its internal topics with
// their record counts, and its store with its changelog and the bytes of its local state.
TEST_F(CliTest, GroupsAndAppDescribeShowOffsetsLagTopicsAndStores) {
  create("words", 2);
  create("counts", 2);
  auto words = [](int from, int to) {
    std::string lines;
    for (int i = from; i < to; ++i) lines += fmt::format("{}\tw{}\n", i, i % 13);
    return lines;
  };
  ASSERT_EQ(brook({"produce", "words"}, words(0, 200)).exit_code, 0);
  run_word_count("wc");
  ASSERT_EQ(brook({"produce", "words"}, words(200, 230)).exit_code, 0);

  EXPECT_EQ(brook({"groups", "list"}).out, "wc\n");
  // The group has committed, per partition of "words", the first 200 lines (keys 0..199),
  // which come before the 30 later ones: the lag.
  std::map<Partition, std::int64_t> first_run, now;
  for (const auto& record : read_all("words")) {
    (std::stoi(*record.key) < 200 ? first_run : now)[record.partition]++;
  }
  std::string words_lines;
  for (std::int32_t p = 0; p < 2; ++p) {
    const std::int64_t committed = first_run[Partition(p)];
    words_lines += fmt::format("\tTopic: words\tPartition: {}\tCommitted: {}\tEnd: {}\tLag: {}\n",
                               p, committed, committed + now[Partition(p)], now[Partition(p)]);
  }
  auto group = brook({"groups", "describe", "wc"});
  ASSERT_EQ(group.exit_code, 0) << group.err;
  EXPECT_THAT(group.out, StartsWith("Group: wc\tMembers: none\tLag: 30\n"));
  EXPECT_THAT(group.out, HasSubstr(words_lines));

  auto app = brook({"app", "describe", "--application-id", "wc"});
  ASSERT_EQ(app.exit_code, 0) << app.err;
  EXPECT_THAT(app.out, StartsWith("Application: wc\tMembers: none\tLag: 30\nInternal topics:\n"));
  EXPECT_THAT(app.out,
              HasSubstr(fmt::format("\twc-word-counts-changelog\tPartitions: 2\tRecords: {}\n",
                                    read_all("wc-word-counts-changelog").size())));
  EXPECT_THAT(app.out, HasSubstr("\twc-word-counts-repartition\tPartitions: 2\tRecords: "));
  std::uintmax_t bytes = 0;
  for (const auto& task : {"1_0", "1_1"}) {
    for (const auto& file : std::filesystem::recursive_directory_iterator(dir_ / "state" / "wc" /
                                                                          task / "word-counts")) {
      if (file.is_regular_file()) bytes += file.file_size();
    }
  }
  EXPECT_THAT(app.out, HasSubstr(fmt::format("Stores:\n\tword-counts\tChangelog: "
                                             "wc-word-counts-changelog\tLocal: {} bytes in tasks "
                                             "1_0, 1_1\nOffsets:\n",
                                             bytes)));
  EXPECT_THAT(app.out, HasSubstr(words_lines));

  auto unknown = brook({"groups", "describe", "nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err,
            "brook: NotFound: consumer group nope has no committed offsets or members\n");
  auto no_app = brook({"app", "describe", "--application-id", "nope"});
  EXPECT_EQ(no_app.exit_code, 1);
  EXPECT_EQ(no_app.err, fmt::format("brook: NotFound: application nope has no consumer group, "
                                    "internal topic or local state in {}/state\n",
                                    dir_.string()));
}

// A line that cannot be read stops the command; the lines before it are written and the
// message says which line and how many records.
TEST_F(CliTest, ABadLineNamesItselfAndWhatWasWritten) {
  create("events", 1);
  auto r = brook({"produce", "events", "--format", "jsonl"},
                 "{\"value\":1}\n{\"value\":2}\n{\"value\":3,\"extra\":0}\n{\"value\":4}\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "brook: InvalidArgument: line 3: unknown field \"extra\" (a line has key, value, "
            "timestamp, headers, partition); produced 2 records to events (the lines before it), "
            "line 3 and the lines after it not written\n");
  EXPECT_EQ(read_all("events").size(), 2u);
  for (const auto& [args, input, problem] :
       std::vector<std::tuple<std::vector<std::string>, std::string, std::string>>{
           {{"--format", "jsonl"}, "{oops\n", "line 1: not valid JSON"},
           {{"--format", "jsonl"}, "[1]\n", "line 1: not a JSON object"},
           {{"--format", "jsonl"},
            "{\"key\":\"k\"}\n",
            "line 1: no \"value\" (write \"value\": null for a tombstone)"},
           {{"--format", "jsonl"},
            "{\"value\":1,\"timestamp\":-5}\n",
            "line 1: \"timestamp\" is -5, not an integer >= 0 (ms since the Unix epoch)"},
           {{"--format", "jsonl"},
            "{\"value\":1,\"headers\":{\"h\":1}}\n",
            "line 1: header \"h\" is 1, not a string or null"},
           {{"--timestamp-field", "ts"},
            "k\tnot json\n",
            "line 1: the value has no field \"ts\" for --timestamp-field (it must be a JSON "
            "object)"},
       }) {
    std::vector<std::string> command = {"produce", "events"};
    command.insert(command.end(), args.begin(), args.end());
    auto bad = brook(command, input);
    EXPECT_EQ(bad.exit_code, 1) << input;
    EXPECT_THAT(bad.err, HasSubstr(problem)) << input;
  }
  EXPECT_EQ(read_all("events").size(), 2u);
}

// The final value per key of two topics: equal, only in one, different (as bytes, or as JSON
// documents); exit 0 equal, 1 different, 2 could not compare.
TEST_F(CliTest, TopicsDiffComparesTheFinalValuePerKey) {
  create("v1", 2);
  create("v2", 1);
  ASSERT_EQ(
      brook({"produce", "v1", "--null-marker", "NULL"},
            "a\t{\"x\":1,\"y\":2}\nb\t{\"x\":1}\nb\t{\"x\":9}\nc\t{\"x\":3}\nd\t{}\nd\tNULL\n")
          .exit_code,
      0);
  ASSERT_EQ(
      brook({"produce", "v2"}, "a\t{\"y\":2, \"x\":1}\nb\t{\"x\":2}\nc\t{\"x\":3}\ne\t{\"x\":5}\n")
          .exit_code,
      0);

  auto bytes = brook({"topics", "diff", "v1", "v2"});
  EXPECT_EQ(bytes.exit_code, 1) << bytes.err;
  EXPECT_EQ(bytes.out,
            "only in B (1 key):\n"
            "  e\t{\"x\":5}\n"
            "different (2 keys):\n"
            "  a\n    A: {\"x\":1,\"y\":2}\n    B: {\"y\":2, \"x\":1}\n"
            "  b\n    A: {\"x\":9}\n    B: {\"x\":2}\n"
            "A: v1, 3 keys (6 records); B: v2, 4 keys (4 records)\n"
            "equal: 1, only in A: 0, only in B: 1, different: 2\n");

  auto json = brook({"topics", "diff", "v1", "v2", "--value-format", "json"});
  EXPECT_EQ(json.exit_code, 1) << json.err;
  EXPECT_THAT(json.out, HasSubstr("different (1 key):\n  b\n    A: {\"x\":9}\n    B: {\"x\":2}\n"
                                  "    replace /x: 9 -> 2\n"));
  EXPECT_THAT(json.out, HasSubstr("equal: 2, only in A: 0, only in B: 1, different: 1\n"));

  auto document = brook({"topics", "diff", "v1", "v2", "--value-format", "json", "--json"});
  EXPECT_EQ(document.exit_code, 1) << document.err;
  const auto parsed = nlohmann::json::parse(document.out);
  EXPECT_EQ(parsed["equal"], false);
  EXPECT_EQ(parsed["counts"],
            nlohmann::json::parse(R"({"equal":2,"only_in_a":0,"only_in_b":1,"different":1})"));
  EXPECT_EQ(parsed["only_in_b"][0], nlohmann::json::parse(R"({"key":"e","value":{"x":5}})"));
  EXPECT_EQ(parsed["different"][0]["patch"],
            nlohmann::json::parse(R"([{"op":"replace","path":"/x","value":2}])"));

  auto same = brook({"topics", "diff", "v1", "v1"});
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_THAT(same.out, HasSubstr("equal: 3, only in A: 0, only in B: 0, different: 0\n"));

  auto limited = brook({"topics", "diff", "v1", "v2", "--limit", "1"});
  EXPECT_THAT(limited.out, HasSubstr("  a\n    A: {\"x\":1,\"y\":2}\n    B: {\"y\":2, \"x\":1}\n"
                                     "  ... and 1 more\n"));

  auto unknown = brook({"topics", "diff", "v1", "nope"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err, "brook: NotFound: topic 'nope' does not exist\n");
  ASSERT_EQ(brook({"produce", "v2"}, "f\tnot json\n").exit_code, 0);
  auto not_json = brook({"topics", "diff", "v1", "v2", "--value-format", "json"});
  EXPECT_EQ(not_json.exit_code, 2);
  EXPECT_THAT(not_json.err,
              HasSubstr("the value of key 'f' in topic 'v2' is not JSON (--value-format json)"));
}

TEST_F(CliTest, ProducesWithNowAsTimestampByDefault) {
  create("events", 1);
  const auto before = std::chrono::system_clock::now();
  ASSERT_EQ(brook({"produce", "events"}, "v\n").exit_code, 0);
  const auto records = read_all("events");
  ASSERT_EQ(records.size(), 1u);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(before.time_since_epoch()).count();
  EXPECT_GE(records[0].timestamp.value(), ms);
  EXPECT_LT(records[0].timestamp.value(), ms + 60'000);
}

TEST_F(CliTest, KeyedRecordsGoToTheirMurmur2Partition) {
  create("keyed", 4);
  std::string input;
  for (int i = 0; i < 20; ++i) input += fmt::format("key-{}\tv{}\n", i, i);
  ASSERT_EQ(brook({"produce", "keyed"}, input).exit_code, 0);
  auto consumed = brook({"consume", "keyed", "--from-beginning", "--timeout-ms", "0",
                         "--print-partition", "--print-key"});
  ASSERT_EQ(consumed.exit_code, 0) << consumed.err;
  std::istringstream lines(consumed.out);
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    const auto tab = line.find('\t');
    const int partition = std::stoi(line.substr(0, tab));
    const std::string key = line.substr(tab + 1, line.find('\t', tab + 1) - tab - 1);
    EXPECT_EQ(partition, internal::partition_for_key(key, 4).value()) << line;
  }
  EXPECT_EQ(count, 20);
}

TEST_F(CliTest, ProducesToAPartitionWithOtherSeparatorAndNullMarker) {
  create("table", 2);
  auto produced = brook(
      {"produce", "table", "--partition", "1", "--key-separator", "::", "--null-marker", "NULL"},
      "a::1\nb::NULL\nNULL::x\n");
  ASSERT_EQ(produced.exit_code, 0) << produced.err;
  auto consumed = brook({"consume", "table", "--from-beginning", "--timeout-ms", "0",
                         "--print-partition", "--print-key"});
  EXPECT_EQ(consumed.out, "1\ta\t1\n1\tb\tnull\n1\tnull\tx\n");
  const auto records = read_all("table");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1].value, std::nullopt);  // a tombstone
  EXPECT_EQ(records[2].key, std::nullopt);

  auto only_zero =
      brook({"consume", "table", "--from-beginning", "--timeout-ms", "0", "--partition", "0"});
  EXPECT_EQ(only_zero.exit_code, 0) << only_zero.err;
  EXPECT_EQ(only_zero.out, "");
}

TEST_F(CliTest, PrintsBinaryValuesByteForByte) {
  create("bin", 1);
  const std::string value("\x00\x01\xff\r bytes", 9);
  ASSERT_EQ(brook({"produce", "bin"}, "k\t" + value + "\n").exit_code, 0);
  auto consumed = brook({"consume", "bin", "--from-beginning", "--timeout-ms", "0"});
  EXPECT_EQ(consumed.out, value + "\n");
}

TEST_F(CliTest, ConsumeWithoutFromBeginningOrGroupStartsAtTheEnd) {
  create("events", 1);
  produce("events", {{"k", "old"}});
  const auto start = std::chrono::steady_clock::now();
  auto consumed = brook({"consume", "events", "--timeout-ms", "200"});
  EXPECT_EQ(consumed.exit_code, 0) << consumed.err;
  EXPECT_EQ(consumed.out, "");
  EXPECT_EQ(consumed.err, "consumed 0 records from events\n");
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(200));
}

TEST_F(CliTest, GroupConsumeCommitsWhatItPrinted) {
  create("events", 2);
  ASSERT_EQ(brook({"produce", "events", "--partition", "0"}, "a\nb\nc\n").exit_code, 0);
  ASSERT_EQ(brook({"produce", "events", "--partition", "1"}, "d\ne\n").exit_code, 0);
  const std::vector<std::string> group = {
      "consume",      "events", "--group",           "g",
      "--timeout-ms", "0",      "--print-partition", "--print-offset"};
  auto first = brook([&] {
    auto args = group;
    args.insert(args.end(), {"--max", "1"});
    return args;
  }());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(std::count(first.out.begin(), first.out.end(), '\n'), 1);

  auto rest = brook(group);
  ASSERT_EQ(rest.exit_code, 0) << rest.err;
  EXPECT_EQ(std::count(rest.out.begin(), rest.out.end(), '\n'), 4);
  std::vector<std::string> lines;
  std::istringstream all(first.out + rest.out);
  for (std::string line; std::getline(all, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines,
            (std::vector<std::string>{"0\t0\ta", "0\t1\tb", "0\t2\tc", "1\t0\td", "1\t1\te"}));

  auto again = brook(group);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, "");  // nothing new for g

  with_log([](internal::EmbeddedLog& log) {
    auto consumer = std::move(*log.make_consumer({.group_id = "g"}));
    EXPECT_EQ(consumer->committed({"events", Partition(0)}).value(), Offset(3));
    EXPECT_EQ(consumer->committed({"events", Partition(1)}).value(), Offset(2));
  });

  auto other = brook({"consume", "events", "--group", "other", "--timeout-ms", "0"});
  EXPECT_EQ(std::count(other.out.begin(), other.out.end(), '\n'), 5);
}

TEST_F(CliTest, LogErrorsPrintTheStatusAndExit1) {
  auto missing_dir = brook({"topics", "list"});
  EXPECT_EQ(missing_dir.exit_code, 1);
  EXPECT_THAT(missing_dir.err, HasSubstr("does not exist"));

  // An empty cluster address is refused, not read as "no cluster: the embedded log".
  auto no_servers = run_brook({"topics", "list", "--bootstrap-servers", ""});
  EXPECT_EQ(no_servers.exit_code, 2);
  EXPECT_THAT(no_servers.err, HasSubstr("--bootstrap-servers must not be empty"));

  create("events", 1);
  auto consume = brook({"consume", "nope"});
  EXPECT_EQ(consume.exit_code, 1);
  EXPECT_EQ(consume.err, "brook: NotFound: topic 'nope' does not exist\n");

  auto produce = brook({"produce", "nope"}, "v\n");
  EXPECT_EQ(produce.exit_code, 1);
  EXPECT_EQ(produce.err, "brook: NotFound: topic 'nope' does not exist\n");

  auto existing = brook({"topics", "create", "events", "--partitions", "1"});
  EXPECT_EQ(existing.exit_code, 1);
  EXPECT_EQ(existing.err, "brook: AlreadyExists: topic 'events' already exists\n");

  auto bad_config = brook({"topics", "create", "x", "--partitions", "1", "--config", "foo=1"});
  EXPECT_EQ(bad_config.exit_code, 1);
  EXPECT_THAT(bad_config.err, HasSubstr("unknown topic config 'foo'"));

  auto bad_partition = brook({"produce", "events", "--partition", "5"}, "v\n");
  EXPECT_EQ(bad_partition.exit_code, 1);
  EXPECT_EQ(bad_partition.err,
            "brook: InvalidArgument: topic 'events' has no partition 5 (it has 1)\n");
}

TEST_F(CliTest, LockedDataDirIsReported) {
  with_log([&](internal::EmbeddedLog&) {
    auto r = brook({"topics", "list"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_THAT(r.err, StartsWith("brook: FailedPrecondition: data dir "));
    EXPECT_THAT(r.err, HasSubstr(fmt::format("is locked by another process (pid {})", ::getpid())));
  });
}

TEST_F(CliTest, BadCommandLinesExitWith2NamingTheProblem) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "brook: missing command"},
      {{"bogus"}, "brook: unknown command 'bogus'"},
      {{"topics"}, "brook topics: missing subcommand"},
      {{"topics", "rename"},
       "brook topics: unknown subcommand 'rename' (list, create, describe, delete, diff)"},
      {{"topics", "create", "t"}, "brook topics create: missing --partitions N"},
      {{"topics", "create", "--partitions", "1"}, "brook topics create: missing NAME"},
      {{"topics", "create", "t", "--partitions", "abc"},
       "brook topics create: --partitions: 'abc' is not an integer from 1 to 2147483647"},
      {{"topics", "create", "t", "--partitions", "0"},
       "brook topics create: --partitions: '0' is not an integer from 1 to 2147483647"},
      {{"topics", "create", "t", "--partitions", "1", "--config", "retention.ms"},
       "brook topics create: --config: 'retention.ms' is not KEY=VALUE"},
      {{"topics", "delete", "a", "b"}, "brook topics delete: unexpected argument 'b'"},
      {{"topics", "list", "--data-dir"}, "brook topics list: option '--data-dir' needs a value"},
      {{"topics", "diff", "a"}, "brook topics diff: missing TOPIC_B"},
      {{"topics", "diff", "a", "b", "--value-format", "xml"},
       "brook topics diff: --value-format: 'xml' is not string, json or hex"},
      {{"topics", "diff", "a", "b", "--b-data-dir", "x", "--b-bootstrap-servers", "y"},
       "brook topics diff: --b-data-dir and --b-bootstrap-servers name two logs: give one (the "
       "embedded data dir or a Kafka cluster)"},
      {{"produce"}, "brook produce: missing TOPIC"},
      {{"produce", "t", "--timestamp", "-1"},
       "brook produce: --timestamp: '-1' is not an integer >= 0"},
      {{"produce", "t", "--format", "csv"}, "brook produce: --format: 'csv' is not text or jsonl"},
      {{"produce", "t", "--format", "jsonl", "--key-separator", ","},
       "brook produce: --key-separator is for --format text (a JSON line has null)"},
      {{"consume", "t", "--format", "jsonl", "--print-key"},
       "brook consume: --print-key is for --format text (a JSON line has every field)"},
      {{"consume", "t", "--format", "csv"}, "brook consume: --format: 'csv' is not text or jsonl"},
      {{"consume", "t", "--key-format", "int16"},
       "brook consume: --key-format: 'int16' is not a format (string, int32, int64, double, hex, "
       "base64, or windowed:<one of them>, session:<one of them>)"},
      {{"app", "reset"}, "brook app reset: missing --application-id ID"},
      {{"app", "reset", "--application-id", "a", "--to-latest", "--by-duration", "60"},
       "brook app reset: give one of --to-earliest, --to-latest, --to-offset, --to-datetime, "
       "--by-duration"},
      {{"app", "rewind"}, "brook app: unknown subcommand 'rewind' (describe, reset)"},
      {{"app", "describe"}, "brook app describe: missing --application-id ID"},
      {{"groups", "describe"}, "brook groups describe: missing GROUP"},
      {{"groups", "list", "x"}, "brook groups list: unexpected argument 'x'"},
      {{"groups", "drop"}, "brook groups: unknown subcommand 'drop' (list, describe)"},
      {{"consume", "t", "--nope"}, "brook consume: unknown option '--nope'"},
      {{"consume", "t", "-x"}, "brook consume: unknown option '-x'"},
      {{"consume", "t", "--max", "0"}, "brook consume: --max: '0' is not an integer >= 1"},
      {{"consume", "t", "--print-key=yes"}, "brook consume: option '--print-key' takes no value"},
      {{"consume", "t", "--group", "a", "--group", "b"},
       "brook consume: option '--group' given twice"},
  };
  for (const auto& [args, message] : cases) {
    auto r = run_brook(args);
    EXPECT_EQ(r.exit_code, 2) << message;
    EXPECT_THAT(r.err, StartsWith(message + "\nTry 'brook"));
    EXPECT_EQ(r.out, "");
  }
  EXPECT_FALSE(std::filesystem::exists(dir_));  // nothing was opened
}

TEST_F(CliTest, HelpPrintsUsageAndExits0) {
  const std::vector<std::vector<std::string>> cases = {
      {"--help"},
      {"-h"},
      {"help"},
      {"topics", "--help"},
      {"topics", "list", "--help"},
      {"topics", "create", "--help"},
      {"topics", "describe", "-h"},
      {"topics", "delete", "--help"},
      {"produce", "--help"},
      {"consume", "t", "--bogus", "--help"},
      {"groups", "--help"},
      {"groups", "list", "--help"},
      {"groups", "describe", "-h"},
      {"app", "--help"},
      {"app", "describe", "--help"},
      {"app", "reset", "--help"},
  };
  for (const auto& args : cases) {
    auto r = run_brook(args);
    EXPECT_EQ(r.exit_code, 0) << fmt::format("{}", fmt::join(args, " "));
    EXPECT_THAT(r.out, StartsWith("usage: brook")) << fmt::format("{}", fmt::join(args, " "));
    EXPECT_EQ(r.err, "");
  }
  EXPECT_THAT(run_brook({"consume", "--help"}).out, HasSubstr("--print-key"));
}

}  // namespace
}  // namespace brook::testing
