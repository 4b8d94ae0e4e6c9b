// A map/filter pipeline as a Streams application over the embedded log, next to a hand-written
// loop that reads the same input with the same consumer API and writes the same output with
// the same producer API (DESIGN.md: Conventions; issue "embedded log and runtime").
//
//   Pipeline: read string key/value -> filter (drop DEBUG lines, 1 in 4) -> map_values (tag the
//   line with its length) -> write to topic "out". 100-byte values, 4 input partitions.
//   Brook:    brook::Streams, 1 stream thread, at_least_once, commit.interval.ms=20, timed from
//             the RUNNING state (data dir open, partitions assigned) until every input record
//             is processed and committed.
//   Baseline: one thread; Consumer::poll, the same two lambdas, Producer::send, a flush after
//             each poll and an offset commit every 20 ms, until every record is read.
// Both run on a freshly written log in the page cache; records/s counts input records.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "backend/embedded/embedded_log.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "compare.h"
#include "log_lines_input.h"
#include "streams_timing.h"

namespace {

using namespace std::chrono_literals;
using brook::bench::Clock;
using brook::internal::TopicPartition;

constexpr int kPartitions = 4;
// 1 M records; the smoke test sets BROOK_PIPELINE_RECORDS lower (sanitizer builds are slow).
const std::int64_t kRecords = [] {
  const char* env = std::getenv("BROOK_PIPELINE_RECORDS");
  return env ? std::atoll(env) : 1'000'000;
}();

bool keep(const std::string&, const std::string& line) { return !line.starts_with("DEBUG"); }
std::string tag(const std::string& line) { return std::to_string(line.size()) + " " + line; }

// kRecords log lines in topic "in", keyed by host, and an empty topic "out".
class Input : public brook::bench::LogLinesInput {
 public:
  Input()
      : LogLinesInput("pipeline-bench", kRecords, kPartitions,
                      [](std::int64_t i) { return "host-" + std::to_string(i % 64); }, {"out"}) {}
};

void BM_BrookMapFilterPipeline(benchmark::State& state) {
  for (auto _ : state) {
    Input input;
    brook::StreamsBuilder builder;
    builder.stream<std::string, std::string>("in").filter(keep).map_values(tag).to("out");
    brook::Streams app(*builder.build(), {{"application.id", "bench"},
                                          {"data.dir", input.dir().string()},
                                          {"num.stream.threads", "1"},
                                          {"commit.interval.ms", "20"}});
    auto seconds = brook::bench::run_until_idle(app);
    if (!seconds) return state.SkipWithError(seconds.error().to_string().c_str());
    state.SetIterationTime(*seconds);
    (void)app.close();
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

void BM_BaselineMapFilterPipeline(benchmark::State& state) {
  for (auto _ : state) {
    Input input;
    auto log = std::move(*brook::internal::open_embedded_log({.data_dir = input.dir()}));
    auto consumer = std::move(*log->make_consumer({.group_id = "bench"}));
    auto producer = std::move(*log->make_producer({}));
    std::vector<TopicPartition> partitions;
    for (int p = 0; p < kPartitions; ++p) partitions.push_back({"in", brook::Partition(p)});
    (void)consumer->assign(partitions);
    const auto start = Clock::now();
    auto last_commit = start;
    std::map<TopicPartition, brook::Offset> offsets;
    std::int64_t seen = 0;
    while (seen < kRecords) {
      auto records = consumer->poll(100ms);
      if (!records) return state.SkipWithError(records.error().to_string().c_str());
      for (auto& r : *records) {
        offsets[{r.topic, r.partition}] = brook::Offset(r.offset.value() + 1);
        ++seen;
        if (!keep(*r.key, *r.value)) continue;
        (void)producer->send({.topic = "out",
                              .timestamp = r.timestamp,
                              .key = std::move(r.key),
                              .value = tag(*r.value),
                              .headers = std::move(r.headers)});
      }
      (void)producer->flush();
      if (Clock::now() - last_commit >= 20ms) {
        (void)consumer->commit(offsets);
        last_commit = Clock::now();
      }
    }
    (void)consumer->commit(offsets);
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - start).count());
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

BENCHMARK(BM_BrookMapFilterPipeline)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BaselineMapFilterPipeline)
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) { return brook::bench::run_and_compare(argc, argv); }
