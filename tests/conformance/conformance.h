// Conformance with Kafka Streams (tests/conformance/README.md): an example program and its Kafka
// Streams twin (twins/, a Java application per example with the same topology, topics, serdes
// and names) run on the same input on the test broker, and what each wrote is compared.
//
// The input is written once, with explicit partitions, timestamps and headers, and both
// applications read it. Kafka's own Java client writes the input and reads the outputs: what the
// tests see passes through a client independent of Brook's. Each runs until idle (--until-idle:
// every input record processed and committed) under an application id of its own; the output topics
// are created anew, empty, before the twin runs. Differences are test failures; each comparison is
// also a line of the report scripts/conformance.sh prints (BROOK_CONFORMANCE_REPORT names its
// file).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "kafka_cluster.h"
#include "scratch_dir.h"

namespace brook::testing {

// A record as the two applications' outputs are compared.
struct OutputRecord {
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::int64_t timestamp = 0;
  Headers headers;
  friend bool operator==(const OutputRecord&, const OutputRecord&) = default;
  friend std::ostream& operator<<(std::ostream& out, const OutputRecord& r);
};

// Partition -> its records in offset order.
using PartitionRecords = std::map<int, std::vector<OutputRecord>>;

// How values are compared: as bytes, or as JSON values (object members in any order, numbers
// by value: Brook writes its JSON with nlohmann's library, the twins with Jackson).
enum class ValueFormat { kBytes, kJson };

// What one application did.
struct AppRun {
  std::string description;                             // its topology's describe()
  std::map<std::string, PartitionRecords> outputs;     // by output topic
  std::map<std::string, PartitionRecords> changelogs;  // by store name
  std::optional<std::int64_t> dropped_records;         // its tasks' dropped-records-total
};

// An example and the topics and stores of its topology.
struct ExampleTopics {
  std::string name;                         // the program in examples/ and the twin's name
  std::vector<internal::NewTopic> inputs;   // what the test writes
  std::vector<internal::NewTopic> outputs;  // what the applications write
  std::vector<std::string> stores;          // whose changelogs are compared
};

// The flags that build both applications' topologies with every optimisation, and what the
// report calls their descriptions then.
inline const std::vector<std::string> kEveryOptimization = {"--config",
                                                            "topology.optimization=all"};
inline const std::string kWithEveryOptimization = "describe() with topology.optimization=all";

// Key (its text) -> last value of `records` read as a table, for the tests that pin a
// documented difference.
std::map<std::string, std::string> last_values(const PartitionRecords& records, ValueFormat format);

class ConformanceTest : public KafkaFixture {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Creates the example's input and output topics anew, empty, and keeps their records forever.
  void create_topics(const ExampleTopics& example);

  // Writes `records` in order, each to its own partition, and flushes.
  void produce(const std::vector<ProducerRecord>& records);

  // Runs the example's program, then its twin, each until idle; `flags` go to both
  // (e.g. --config KEY=VALUE). Fails the test if either does not exit 0.
  std::pair<AppRun, AppRun> run_both(const ExampleTopics& example,
                                     const std::vector<std::string>& flags = {});

  // A restart: runs the example's program, then its twin, each until idle on the input written
  // so far; calls `between` (which writes more input); then runs both again under the same
  // application ids and state directories, so each resumes from its committed offsets and local
  // state. The outputs are what each wrote in both runs (the output topics are not recreated
  // between them); changelogs as after the second run; dropped_records the second run's count.
  std::pair<AppRun, AppRun> run_both_with_restart(const ExampleTopics& example,
                                                  const std::function<void()>& between,
                                                  const std::vector<std::string>& flags = {});

  // The descriptions of the example's program and of its twin, each built with `flags` (e.g.
  // --config topology.optimization=all), without running either: AppRuns with a description
  // only.
  std::pair<AppRun, AppRun> describe_both(const ExampleTopics& example,
                                          const std::vector<std::string>& flags);

  // The two topology descriptions are equal, byte for byte. `what` names them in the report.
  void expect_same_description(const ExampleTopics& example, const AppRun& brook,
                               const AppRun& twin, const std::string& what = "describe()");

  // Both dropped as many records (late, without a key where one is needed, with an invalid
  // timestamp): the sum of their tasks' dropped-records-total.
  void expect_same_dropped_records(const ExampleTopics& example, const AppRun& brook,
                                   const AppRun& twin);

  // A difference of the descriptions documented in docs/compatibility.md#<section>: the twin's
  // description with each of `edits` made (a text, and what replaces it) is Brook's; without
  // edits, only that they differ. Fails if they are equal: then the entry is to go.
  void expect_documented_description(
      const ExampleTopics& example, const AppRun& brook, const AppRun& twin,
      const std::string& section,
      const std::vector<std::pair<std::string, std::string>>& edits = {},
      const std::string& what = "describe()");

  // The output topic `topic` as a stream: in every partition, the same keyed records (key,
  // value, timestamp, headers) in the same order per key; and the same records without a key,
  // in any partition and order (the producer's sticky partitioner places them by its batches).
  void expect_same_stream(const ExampleTopics& example, const std::string& topic,
                          const AppRun& brook, const AppRun& twin,
                          ValueFormat format = ValueFormat::kBytes);

  // The output topic `topic` as a table: the same last record (partition, value, timestamp,
  // headers) per key. For aggregations, whose intermediate updates depend on when caches flush.
  // The keys `except` are left out: a documented difference, which the test pins itself.
  void expect_same_table(const ExampleTopics& example, const std::string& topic,
                         const AppRun& brook, const AppRun& twin,
                         ValueFormat format = ValueFormat::kBytes,
                         const std::set<std::string>& except = {});

  // The changelog of `store`: the same last record per key (partition, value, timestamp),
  // leaving out the keys `except` as expect_same_table().
  void expect_same_changelog(const ExampleTopics& example, const std::string& store,
                             const AppRun& brook, const AppRun& twin,
                             ValueFormat format = ValueFormat::kBytes,
                             const std::set<std::string>& except = {});

  // The changelog of `store`, a stream-stream join's window store, as a multiset per partition
  // of records (key, value, timestamp, headers) whose keys, [record key][8-byte timestamp]
  // [4-byte sequence number], are cut before the sequence number: each library numbers a key's
  // duplicates its own way. Records whose record key is in `except` are left out (a documented
  // difference, which the test pins itself).
  void expect_same_join_changelog(const ExampleTopics& example, const std::string& store,
                                  const AppRun& brook, const AppRun& twin, ValueFormat format,
                                  const std::set<std::string>& except);

  // A line of the report: `what` differs as docs/compatibility.md#<section> documents.
  static void report_documented(const std::string& example, const std::string& what,
                                const std::string& section);

 private:
  // Kafka's Java client (twins/.../Records.java) running `command` (produce, consume) on `topic`.
  std::vector<std::string> java_records(const std::string& command, const std::string& topic) const;

  // Every record of `topic`, read with Kafka's Java client.
  PartitionRecords read_records(const std::string& topic);

  // The description `program` prints with `flags` (its topology built with them).
  std::string describe(std::vector<std::string> program, const std::vector<std::string>& flags);

  // Runs one application until idle; what it wrote to the example's outputs and changelogs,
  // and its description with the same flags.
  AppRun run(const ExampleTopics& example, std::vector<std::string> program,
             const std::string& application_id, const std::vector<std::string>& flags);

  ScratchDir state_dir_{"brook-conformance-state"};
  ScratchDir io_{"brook-conformance-io"};
  const std::string application_prefix_ = unique_name("conformance") + "-";
  std::vector<internal::NewTopic> topics_;
};

}  // namespace brook::testing
