#include "conformance.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "cli/json_record.h"
#include "integration/run_process.h"

namespace brook::testing {
namespace {

// The Kafka Streams twins' classpath, which scripts/test.sh exports. Fails the test (with what
// to do) when it is not set.
std::string twins_classpath() {
  const char* classpath = std::getenv("BROOK_CONFORMANCE_CLASSPATH");
  if (classpath == nullptr || *classpath == '\0') {
    ADD_FAILURE() << "BROOK_CONFORMANCE_CLASSPATH is not set: run the tests with "
                     "scripts/test.sh or scripts/conformance.sh, which build the Kafka Streams "
                     "twins (tests/conformance/twins, with Maven: Debian's maven and "
                     "openjdk-17-jdk-headless) and export it";
    return "";
  }
  return classpath;
}

// The command running the example's program, and its twin's.
std::vector<std::string> brook_program(const ExampleTopics& example) {
  return {fmt::format("{}/{}/{}", BROOK_EXAMPLES_DIR, example.name, example.name)};
}

// `java` running `main_class` of the twins' jar with `args`. Each of these JVMs lives a few
// seconds over small inputs: compiled by C1 only (no C2) and with the serial collector, it takes
// less CPU, which the other tests running beside it share.
std::vector<std::string> java(const std::string& main_class, std::vector<std::string> args) {
  std::vector<std::string> command = {"java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                                      "-cp",  twins_classpath(),         main_class};
  command.insert(command.end(), std::make_move_iterator(args.begin()),
                 std::make_move_iterator(args.end()));
  return command;
}

std::vector<std::string> twin_program(const ExampleTopics& example) {
  return java("dev.brook.conformance.Twin", {example.name});
}

// Appends "example <TAB> what <TAB> equal|different" to the report, if one is asked for.
void report_result(const std::string& example, const std::string& what, const std::string& result) {
  const char* path = std::getenv("BROOK_CONFORMANCE_REPORT");
  if (path == nullptr || *path == '\0') return;
  std::ofstream(path, std::ios::app) << example << '\t' << what << '\t' << result << '\n';
}
void report(const std::string& example, const std::string& what, bool equal) {
  report_result(example, what, equal ? "equal" : "different");
}

// `value` as compared in `format`: JSON parsed and written again with sorted members.
std::optional<std::string> canonical(const std::optional<std::string>& value, ValueFormat format) {
  if (!value || format == ValueFormat::kBytes) return value;
  auto json = nlohmann::json::parse(*value, nullptr, false);
  if (json.is_discarded()) return "not JSON: " + *value;
  return json.dump();
}

std::vector<OutputRecord> canonical(std::vector<OutputRecord> records, ValueFormat format) {
  for (auto& r : records) r.value = canonical(r.value, format);
  return records;
}

// A key as a map key: "<null>" for none.
std::string key_text(const std::optional<std::string>& key) { return key.value_or("<null>"); }

// The keyed records of one partition by key, each key's in order.
std::map<std::string, std::vector<OutputRecord>> by_key(const std::vector<OutputRecord>& records) {
  std::map<std::string, std::vector<OutputRecord>> out;
  for (const auto& r : records) {
    if (r.key) out[*r.key].push_back(r);
  }
  return out;
}

// Key -> (partition, its last record) of a topic read as a table; a tombstone removes the key.
std::map<std::string, std::pair<int, OutputRecord>> table_of(const PartitionRecords& records,
                                                             ValueFormat format) {
  std::map<std::string, std::pair<int, OutputRecord>> out;
  for (const auto& [partition, list] : records) {
    for (const auto& r : canonical(list, format)) {
      if (r.value) {
        out.insert_or_assign(key_text(r.key), std::pair{partition, r});
      } else {
        out.erase(key_text(r.key));
      }
    }
  }
  return out;
}

// The first `limit` lines of `lines`, and how many more there are.
std::string first_lines(const std::vector<std::string>& lines, std::size_t limit = 10) {
  std::string out;
  for (std::size_t i = 0; i < lines.size() && i < limit; ++i) out += lines[i] + "\n";
  if (lines.size() > limit) out += fmt::format("... and {} more\n", lines.size() - limit);
  return out;
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const OutputRecord& r) {
  out << key_text(r.key) << " -> " << r.value.value_or("<null>") << " @" << r.timestamp;
  for (const auto& h : r.headers) out << " [" << h.key << "=" << h.value.value_or("<null>") << "]";
  return out;
}

void ConformanceTest::SetUp() {
  KafkaFixture::SetUp();
  if (HasFatalFailure()) return;
  ASSERT_FALSE(twins_classpath().empty());
  std::filesystem::create_directories(io_.path());
}

void ConformanceTest::TearDown() {
  if (!kafka_) return;
  for (const auto& topic : topics_) (void)kafka_->admin().delete_topic(topic.name);
  auto all = kafka_->admin().list_topics();
  if (!all) return;
  for (const auto& name : *all) {  // the internal topics of this test's applications
    if (name.starts_with(application_prefix_)) (void)kafka_->admin().delete_topic(name);
  }
}

void ConformanceTest::create_topics(const ExampleTopics& example) {
  topics_ = example.inputs;
  topics_.insert(topics_.end(), example.outputs.begin(), example.outputs.end());
  for (auto& topic : topics_) topic.configs.emplace("retention.ms", "-1");
  create_topics_anew(*kafka_, topics_);
}

void ConformanceTest::produce(const std::vector<ProducerRecord>& records) {
  std::map<std::string, std::string> lines;  // topic -> its records' JSON lines, in order
  for (const auto& r : records) {
    ASSERT_TRUE(r.partition) << "conformance inputs name their partitions";
    lines[r.topic] += cli::json_line({.topic = r.topic,
                                      .partition = *r.partition,
                                      .timestamp = r.timestamp,
                                      .key = r.key,
                                      .value = r.value,
                                      .headers = r.headers}) +
                      "\n";
  }
  for (const auto& [topic, input] : lines) {
    const auto wrote = run_process(java_records("produce", topic), input, io_.path());
    ASSERT_EQ(wrote.exit_code, 0) << "writing " << topic << ": " << wrote.err;
  }
}

std::vector<std::string> ConformanceTest::java_records(const std::string& command,
                                                       const std::string& topic) const {
  return java("dev.brook.conformance.Records",
              {command, "--bootstrap-servers", bootstrap_, "--topic", topic});
}

PartitionRecords ConformanceTest::read_records(const std::string& topic) {
  PartitionRecords out;
  const auto read = run_process(java_records("consume", topic), "", io_.path());
  EXPECT_EQ(read.exit_code, 0) << "reading " << topic << ": " << read.err;
  std::istringstream lines(read.out);
  for (std::string line; std::getline(lines, line);) {
    ProducerRecord r;
    const auto s = cli::read_json_line(line, r);
    EXPECT_TRUE(s.ok()) << s.to_string();
    if (!s.ok() || !r.partition) return out;
    out[r.partition->value()].push_back(
        {std::move(r.key), std::move(r.value), r.timestamp.value(), std::move(r.headers)});
  }
  return out;
}

std::string ConformanceTest::describe(std::vector<std::string> program,
                                      const std::vector<std::string>& flags) {
  program.insert(program.end(), flags.begin(), flags.end());
  program.push_back("--describe");
  const auto described = run_process(program, "", io_.path());
  EXPECT_EQ(described.exit_code, 0)
      << fmt::format("{}: {}", fmt::join(program, " "), described.err);
  return described.out;
}

AppRun ConformanceTest::run(const ExampleTopics& example, std::vector<std::string> program,
                            const std::string& application_id,
                            const std::vector<std::string>& flags) {
  AppRun out;
  out.description = describe(program, flags);

  program.insert(program.end(),
                 {"--bootstrap-servers", bootstrap_, "--application-id", application_id,
                  "--state-dir", (state_dir_.path() / application_id).string()});
  // Window changelogs keep every record until they are read: the broker would otherwise delete
  // those whose windows ended more than a day ago, at a time of its own.
  constexpr std::int64_t kCentury = 100LL * 365 * 24 * 60 * 60 * 1000;
  program.insert(
      program.end(),
      {"--config", fmt::format("windowstore.changelog.additional.retention.ms={}", kCentury)});
  program.insert(program.end(), flags.begin(), flags.end());
  program.push_back("--until-idle");
  const auto ran = run_process(program, "", io_.path());
  EXPECT_EQ(ran.exit_code, 0) << example.name << " as " << application_id << ": " << ran.err;
  if (ran.exit_code != 0) return out;
  // Both print "dropped-records-total: N" when idle.
  constexpr std::string_view kDropped = "dropped-records-total: ";
  if (const auto at = ran.out.rfind(kDropped); at != std::string::npos) {
    out.dropped_records = std::stoll(ran.out.substr(at + kDropped.size()));
  }
  EXPECT_TRUE(out.dropped_records) << application_id << " did not print " << kDropped;
  for (const auto& topic : example.outputs) {
    out.outputs[topic.name] = read_records(topic.name);
  }
  for (const auto& store : example.stores) {
    out.changelogs[store] = read_records(application_id + "-" + store + "-changelog");
  }
  return out;
}

std::pair<AppRun, AppRun> ConformanceTest::run_both(const ExampleTopics& example,
                                                    const std::vector<std::string>& flags) {
  AppRun brook = run(example, brook_program(example), application_prefix_ + "brook", flags);
  std::vector<internal::NewTopic> outputs = example.outputs;
  for (auto& topic : outputs) topic.configs.emplace("retention.ms", "-1");  // records of 1970
  create_topics_anew(*kafka_, outputs);
  AppRun twin = run(example, twin_program(example), application_prefix_ + "twin", flags);
  return {std::move(brook), std::move(twin)};
}

namespace {

// The records of `now` beyond the first `before` records of each partition: what was written
// since `before` was read.
PartitionRecords written_since(const PartitionRecords& before, const PartitionRecords& now) {
  PartitionRecords out;
  for (const auto& [partition, records] : now) {
    const auto it = before.find(partition);
    const std::size_t seen = it == before.end() ? 0 : it->second.size();
    if (records.size() > seen) {
      out[partition].assign(records.begin() + static_cast<std::ptrdiff_t>(seen), records.end());
    }
  }
  return out;
}

// `more` appended to `into`, partition by partition.
void append(PartitionRecords& into, const PartitionRecords& more) {
  for (const auto& [partition, records] : more) {
    auto& list = into[partition];
    list.insert(list.end(), records.begin(), records.end());
  }
}

}  // namespace

std::pair<AppRun, AppRun> ConformanceTest::run_both_with_restart(
    const ExampleTopics& example, const std::function<void()>& between,
    const std::vector<std::string>& flags) {
  // Each run's outputs hold every record written to them so far; a run's own are the new ones.
  std::map<std::string, PartitionRecords> seen;
  auto run_once = [&](const std::vector<std::string>& program, const std::string& id) {
    AppRun ran = run(example, program, application_prefix_ + id, flags);
    for (auto& [topic, records] : ran.outputs) {
      auto mine = written_since(seen[topic], records);
      seen[topic] = std::move(records);
      records = std::move(mine);
    }
    return ran;
  };
  AppRun brook = run_once(brook_program(example), "brook");
  AppRun twin = run_once(twin_program(example), "twin");
  between();
  for (auto [run, program, id] : {std::tuple{&brook, brook_program(example), "brook"},
                                  std::tuple{&twin, twin_program(example), "twin"}}) {
    AppRun again = run_once(program, id);
    for (const auto& [topic, records] : again.outputs) append(run->outputs[topic], records);
    run->changelogs = std::move(again.changelogs);
    run->dropped_records = again.dropped_records;
  }
  return {std::move(brook), std::move(twin)};
}

void ConformanceTest::expect_same_description(const ExampleTopics& example, const AppRun& brook,
                                              const AppRun& twin, const std::string& what) {
  EXPECT_EQ(brook.description, twin.description) << example.name << ": " << what;
  report(example.name, what, brook.description == twin.description);
}

std::pair<AppRun, AppRun> ConformanceTest::describe_both(const ExampleTopics& example,
                                                         const std::vector<std::string>& flags) {
  AppRun brook, twin;
  brook.description = describe(brook_program(example), flags);
  twin.description = describe(twin_program(example), flags);
  return {std::move(brook), std::move(twin)};
}

void ConformanceTest::expect_same_dropped_records(const ExampleTopics& example, const AppRun& brook,
                                                  const AppRun& twin) {
  EXPECT_EQ(brook.dropped_records, twin.dropped_records)
      << example.name << ": dropped-records-total of Brook and Kafka Streams";
  report(example.name, "dropped records", brook.dropped_records == twin.dropped_records);
}

void ConformanceTest::expect_documented_description(
    const ExampleTopics& example, const AppRun& brook, const AppRun& twin,
    const std::string& section, const std::vector<std::pair<std::string, std::string>>& edits,
    const std::string& what) {
  EXPECT_NE(brook.description, twin.description)
      << example.name << ": " << what << " is Kafka Streams' now; remove docs/compatibility.md#"
      << section;
  if (!edits.empty()) {
    std::string edited = twin.description;
    for (const auto& [text, replacement] : edits) {
      const auto at = edited.find(text);
      EXPECT_NE(at, std::string::npos) << example.name << ": no '" << text << "' in " << edited;
      if (at != std::string::npos) edited.replace(at, text.size(), replacement);
    }
    EXPECT_EQ(brook.description, edited)
        << example.name << ": " << what << " differs otherwise than docs/compatibility.md#"
        << section << " says";
  }
  report_documented(example.name, what, section);
}

void ConformanceTest::report_documented(const std::string& example, const std::string& what,
                                        const std::string& section) {
  report_result(example, what, "different, as documented (#" + section + ")");
}

void ConformanceTest::expect_same_stream(const ExampleTopics& example, const std::string& topic,
                                         const AppRun& brook, const AppRun& twin,
                                         ValueFormat format) {
  const auto& ours = brook.outputs.at(topic);
  const auto& theirs = twin.outputs.at(topic);
  std::vector<std::string> differences;
  std::set<int> partitions;
  for (const auto* run : {&ours, &theirs}) {
    for (const auto& [partition, list] : *run) partitions.insert(partition);
  }
  std::size_t records = 0;
  for (int partition : partitions) {
    auto at = [&](const PartitionRecords& run) {
      auto it = run.find(partition);
      return it == run.end() ? std::map<std::string, std::vector<OutputRecord>>{}
                             : by_key(canonical(it->second, format));
    };
    auto ours_by_key = at(ours), theirs_by_key = at(theirs);
    std::set<std::string> keys;
    for (const auto& [key, list] : ours_by_key) keys.insert(key), records += list.size();
    for (const auto& [key, list] : theirs_by_key) keys.insert(key);
    for (const auto& key : keys) {
      const auto& a = ours_by_key[key];
      const auto& b = theirs_by_key[key];
      if (a == b) continue;
      std::size_t i = 0;
      while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
      differences.push_back(fmt::format(
          "partition {} key {}: Brook {} records, Kafka Streams {}; first difference at #{}: "
          "Brook {}, Kafka Streams {}",
          partition, key, a.size(), b.size(), i,
          i < a.size() ? ::testing::PrintToString(a[i]) : "nothing",
          i < b.size() ? ::testing::PrintToString(b[i]) : "nothing"));
    }
  }
  // Records without a key, wherever the producer's partitioner put them.
  std::vector<std::string> unkeyed[2];
  for (int side = 0; side < 2; ++side) {
    for (const auto& [partition, list] : side == 0 ? ours : theirs) {
      for (const auto& r : canonical(list, format)) {
        if (!r.key) unkeyed[side].push_back(::testing::PrintToString(r));
      }
    }
    std::sort(unkeyed[side].begin(), unkeyed[side].end());
  }
  if (unkeyed[0] != unkeyed[1]) {
    differences.push_back(fmt::format("records without a key: Brook {}, Kafka Streams {}",
                                      unkeyed[0].size(), unkeyed[1].size()));
  }
  EXPECT_TRUE(differences.empty())
      << example.name << ": " << topic << " differs (" << differences.size() << " keys):\n"
      << first_lines(differences);
  EXPECT_GT(records, 0u) << example.name << ": " << topic << " is empty: nothing was compared";
  report(example.name, topic, differences.empty());
}

namespace {

// The keys on which two tables differ, with both sides; empty if they are equal.
// table_of(records, format) without the keys `except`.
std::map<std::string, std::pair<int, OutputRecord>> table_except(
    const PartitionRecords& records, ValueFormat format, const std::set<std::string>& except) {
  auto table = table_of(records, format);
  for (const auto& key : except) table.erase(key);
  return table;
}

std::vector<std::string> table_differences(
    const std::map<std::string, std::pair<int, OutputRecord>>& ours,
    const std::map<std::string, std::pair<int, OutputRecord>>& theirs, bool with_timestamps) {
  std::set<std::string> keys;
  for (const auto* table : {&ours, &theirs}) {
    for (const auto& [key, entry] : *table) keys.insert(key);
  }
  auto text = [&](const auto& table, const std::string& key) -> std::string {
    auto it = table.find(key);
    if (it == table.end()) return "nothing";
    auto record = it->second.second;
    if (!with_timestamps) record.timestamp = 0;
    return fmt::format("partition {}: {}", it->second.first, ::testing::PrintToString(record));
  };
  std::vector<std::string> out;
  for (const auto& key : keys) {
    const auto a = text(ours, key), b = text(theirs, key);
    if (a != b) out.push_back(fmt::format("key {}: Brook {}, Kafka Streams {}", key, a, b));
  }
  return out;
}

}  // namespace

void ConformanceTest::expect_same_table(const ExampleTopics& example, const std::string& topic,
                                        const AppRun& brook, const AppRun& twin, ValueFormat format,
                                        const std::set<std::string>& except) {
  const auto ours = table_except(brook.outputs.at(topic), format, except);
  const auto differences =
      table_differences(ours, table_except(twin.outputs.at(topic), format, except), true);
  EXPECT_TRUE(differences.empty())
      << example.name << ": " << topic << " differs (" << differences.size() << " keys):\n"
      << first_lines(differences);
  EXPECT_FALSE(ours.empty()) << example.name << ": " << topic << " is empty: nothing was compared";
  report(example.name, topic + " (table)", differences.empty());
}

std::map<std::string, std::string> last_values(const PartitionRecords& records,
                                               ValueFormat format) {
  std::map<std::string, std::string> out;
  for (const auto& [key, last] : table_of(records, format)) out[key] = *last.second.value;
  return out;
}

void ConformanceTest::expect_same_changelog(const ExampleTopics& example, const std::string& store,
                                            const AppRun& brook, const AppRun& twin,
                                            ValueFormat format,
                                            const std::set<std::string>& except) {
  const auto ours = table_except(brook.changelogs.at(store), format, except);
  const auto differences =
      table_differences(ours, table_except(twin.changelogs.at(store), format, except), true);
  EXPECT_TRUE(differences.empty()) << example.name << ": the changelog of " << store << " differs ("
                                   << differences.size() << " keys):\n"
                                   << first_lines(differences);
  EXPECT_FALSE(ours.empty()) << example.name << ": the changelog of " << store
                             << " is empty: nothing was compared";
  report(example.name, "changelog of " + store, differences.empty());
}

void ConformanceTest::expect_same_join_changelog(const ExampleTopics& example,
                                                 const std::string& store, const AppRun& brook,
                                                 const AppRun& twin, ValueFormat format,
                                                 const std::set<std::string>& except) {
  constexpr std::size_t kTimestamp = 8, kSequence = 4;
  // Partition -> its records as text, sorted.
  auto entries = [&](const PartitionRecords& changelog) {
    std::map<int, std::vector<std::string>> out;
    for (const auto& [partition, list] : changelog) {
      auto& texts = out[partition];
      for (auto r : canonical(list, format)) {
        if (r.key && r.key->size() >= kTimestamp + kSequence) {
          r.key->resize(r.key->size() - kSequence);
          if (except.contains(r.key->substr(0, r.key->size() - kTimestamp))) continue;
        }
        texts.push_back(::testing::PrintToString(r));
      }
      std::sort(texts.begin(), texts.end());
    }
    return out;
  };
  auto ours = entries(brook.changelogs.at(store));
  auto theirs = entries(twin.changelogs.at(store));
  std::vector<std::string> differences;
  std::size_t records = 0;
  std::set<int> partitions;
  for (const auto* run : {&ours, &theirs}) {
    for (const auto& [partition, texts] : *run) partitions.insert(partition);
  }
  for (int partition : partitions) {
    const auto& a = ours[partition];
    const auto& b = theirs[partition];
    records += a.size();
    std::vector<std::string> only_ours, only_theirs;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only_ours));
    std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(only_theirs));
    for (const auto& r : only_ours)
      differences.push_back(fmt::format("partition {}: only Brook's {}", partition, r));
    for (const auto& r : only_theirs) {
      differences.push_back(fmt::format("partition {}: only Kafka Streams' {}", partition, r));
    }
  }
  EXPECT_TRUE(differences.empty()) << example.name << ": the changelog of " << store << " differs ("
                                   << differences.size() << " records):\n"
                                   << first_lines(differences);
  EXPECT_GT(records, 0u) << example.name << ": the changelog of " << store
                         << " is empty: nothing was compared";
  report(example.name, "changelog of " + store, differences.empty());
}

}  // namespace brook::testing
