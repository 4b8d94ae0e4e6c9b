// Windowed count per key (DESIGN.md pattern 7) next to the same non-windowed count, as
// Streams applications over the embedded log, measured in the same run.
//
//   Input:     BROOK_WINDOW_RECORDS records (default 1 M) in topic "in", 1 partition (one
//              task), keys "key-0000000".. drawn uniformly at random from BROOK_WINDOW_KEYS
//              keys (default 10 k; seed 42, state_workload.h), 16-byte values. Record i has
//              event time i ms (1,000 records per second of event time); 10 % of them (drawn
//              with seed 7) are out of order: up to 5 s earlier, within the grace period, so
//              none is dropped. Written once, untimed.
//   Brook:     stream<string, string>("in").group_by_key()
//                .windowed_by(TimeWindows::of_size_and_grace(60 s, 10 s) [.advance_by(10 s)])
//                .count({.name = "counts"}).to_stream().to("out"),
//              RocksDB window store, record cache on (10 MiB), 1 stream thread, at_least_once,
//              commit.interval.ms=100. Tumbling: each record updates one window; hopping:
//              six. TumblingEmitOnClose: tumbling with .emit_strategy(kOnWindowClose), each
//              window's count once, when stream time passes its end + grace (the windows
//              still open at the end of the input emit nothing). Timed from RUNNING until
//              every record is processed and committed.
//   Baseline:  the same application without windows (group_by_key().count() into a
//              key-value store), over the same records: what windowing costs on top.
// Each run checks, untimed, every window's count (or every key's) against a count computed
// here from the records. Wall-clock (UseManualTime), one iteration, 3 repetitions (median).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/embedded/embedded_log.h"
#include "bench_log.h"
#include "brook/kstream.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "compare.h"
#include "state_workload.h"
#include "streams_timing.h"

namespace {

using namespace std::chrono_literals;
using brook::bench::StateWorkload;

const std::int64_t kRecords = brook::bench::env_or("BROOK_WINDOW_RECORDS", 1'000'000);
const std::int64_t kKeys = brook::bench::env_or("BROOK_WINDOW_KEYS", 10'000);
constexpr std::int64_t kSize = 60'000, kHop = 10'000, kGrace = 10'000, kMaxDisorder = 5'000;

const StateWorkload& workload() {
  static const StateWorkload w = brook::bench::make_workload(kRecords, kKeys);
  return w;
}

// The event time of each record: its index, or for 10 % of them up to kMaxDisorder earlier.
const std::vector<std::int64_t>& times() {
  static const std::vector<std::int64_t> t = [] {
    std::mt19937_64 random(7);
    std::vector<std::int64_t> out(kRecords);
    for (std::int64_t i = 0; i < kRecords; ++i) {
      const bool late = random() % 10 == 0;
      out[i] = late ? std::max<std::int64_t>(
                          0, i - 1 - static_cast<std::int64_t>(random() % kMaxDisorder))
                    : i;
    }
    return out;
  }();
  return t;
}

// "<key>@<window start>" -> count, for windows of kSize every `advance`, computed here; with
// `closed_only`, only the windows that close within the input (end + grace <= its largest
// event time).
std::unordered_map<std::string, std::int64_t> expected_windows(std::int64_t advance,
                                                               bool closed_only = false) {
  const auto& w = workload();
  const std::int64_t stream_time = *std::max_element(times().begin(), times().end());
  std::unordered_map<std::string, std::int64_t> out;
  for (std::int64_t i = 0; i < kRecords; ++i) {
    const std::int64_t t = times()[i];
    for (std::int64_t start = t - t % advance; start >= 0 && start > t - kSize; start -= advance) {
      if (closed_only && start + kSize + kGrace > stream_time) continue;
      ++out[w.keys[w.sequence[i]] + "@" + std::to_string(start)];
    }
  }
  return out;
}

// The data dir, with topic "in" holding the records (written on first use).
const brook::bench::BenchData& data() {
  static const brook::bench::BenchData data("window-bench", [](brook::internal::EmbeddedLog& log) {
    (void)log.admin().create_topic({"in", 1});
    auto producer = std::move(*log.make_producer({}));
    const std::string value(16, 'v');
    const auto& w = workload();
    for (std::int64_t i = 0; i < kRecords; ++i) {
      (void)producer->send({.topic = "in",
                            .timestamp = brook::Timestamp(times()[i]),
                            .key = w.keys[w.sequence[i]],
                            .value = value});
    }
    (void)producer->flush();
  });
  return data;
}

// The newest count per "<key>@<window start>" in topic "out" (keys [key][8-byte start]): the
// windows' final results, as a compacted topic keeps them. The store only keeps the windows
// its retention needs.
std::unordered_map<std::string, std::int64_t> newest_results() {
  auto log = data().open();
  auto consumer = std::move(*log->make_consumer({}));
  (void)consumer->assign({{"out", brook::Partition(0)}});
  const brook::TimeWindowedSerde<std::string> keys(std::make_shared<brook::StringSerde>(),
                                                   std::chrono::milliseconds(kSize));
  std::unordered_map<std::string, std::int64_t> out;
  while (true) {
    auto records = consumer->poll(std::chrono::milliseconds(0));
    if (!records || records->empty()) break;
    for (const auto& r : *records) {
      auto key = keys.deserialize(r.key.value_or(""));
      auto count = brook::Int64Serde().deserialize(r.value.value_or(""));
      if (!key || !count) return {};
      out[key->key + "@" + std::to_string(key->window.start.value())] = *count;
    }
  }
  return out;
}

// A fresh application over the data dir: new application id, topic "out", no state.
std::unique_ptr<brook::Streams> make_app(brook::StreamsBuilder& builder) {
  const std::string id = "window-count-" + std::to_string(brook::bench::next_run());
  data().recreate("out");
  return std::make_unique<brook::Streams>(
      *builder.build(), std::map<std::string, std::string>{{"application.id", id},
                                                           {"data.dir", data().dir().string()},
                                                           {"num.stream.threads", "1"},
                                                           {"commit.interval.ms", "100"}});
}

void run_windowed(benchmark::State& state, std::int64_t advance,
                  brook::EmitStrategy emit = brook::EmitStrategy::kOnWindowUpdate) {
  const auto expected = expected_windows(advance, emit == brook::EmitStrategy::kOnWindowClose);
  for (auto _ : state) {
    brook::StreamsBuilder builder;
    builder.stream<std::string, std::string>("in")
        .group_by_key()
        .windowed_by(brook::TimeWindows::of_size_and_grace(std::chrono::milliseconds(kSize),
                                                           std::chrono::milliseconds(kGrace))
                         .advance_by(std::chrono::milliseconds(advance)))
        .emit_strategy(emit)
        .count({.name = "counts"})
        .to_stream()
        .to("out");
    auto app = make_app(builder);
    auto seconds = brook::bench::run_until_idle(*app);
    if (!seconds) return state.SkipWithError(seconds.error().to_string().c_str());
    state.SetIterationTime(*seconds);

    if (app->metrics().total("dropped-records-total") != 0) {
      return state.SkipWithError("records were dropped");
    }
    (void)app->close();
    app.reset();
    if (newest_results() != expected) return state.SkipWithError("wrong window counts");
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

void BM_BrookWindowedCount_Tumbling(benchmark::State& state) { run_windowed(state, kSize); }
void BM_BrookWindowedCount_Hopping(benchmark::State& state) { run_windowed(state, kHop); }
void BM_BrookWindowedCount_TumblingEmitOnClose(benchmark::State& state) {
  run_windowed(state, kSize, brook::EmitStrategy::kOnWindowClose);
}

void BM_BaselineWindowedCount(benchmark::State& state) {
  for (auto _ : state) {
    brook::StreamsBuilder builder;
    builder.stream<std::string, std::string>("in")
        .group_by_key()
        .count({.name = "counts"})
        .to_stream()
        .to("out");
    auto app = make_app(builder);
    auto seconds = brook::bench::run_and_check_counts(*app, workload());
    if (!seconds) return state.SkipWithError(seconds.error().to_string().c_str());
    state.SetIterationTime(*seconds);
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

BENCHMARK(BM_BrookWindowedCount_Tumbling)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BrookWindowedCount_Hopping)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BrookWindowedCount_TumblingEmitOnClose)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineWindowedCount)->Apply(brook::bench::one_timed_iteration);

}  // namespace

int main(int argc, char** argv) {
  return brook::bench::run_and_compare(argc, argv, {"--benchmark_repetitions=3"});
}
