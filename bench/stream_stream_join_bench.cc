// Windowed stream-stream inner join (DESIGN.md pattern 6) as a Streams application over the
// embedded log, next to a hand-written loop doing the same join over the same log, measured in
// the same run.
//
//   Input:     BROOK_SSJOIN_RECORDS records per side (default 500 k) in topics "left" and
//              "right", 1 partition each (one task), keys "key-0000000".. drawn uniformly at
//              random from BROOK_SSJOIN_KEYS keys (default 10 k; left: seed 42, right: seed 43,
//              state_workload.h), 16-byte values. Record i of each side has event time i ms, so
//              each record finds about 2 * 10 s * 1000 / 10 k = 2 matches. Written once, untimed.
//              BROOK_SSJOIN_NUMERIC_KEYS=1: keys "0", "1", ..., "9999" instead (as numeric ids
//              are), many of which begin with another ("1", "10", "100").
//   Brook:     stream("left").join(stream("right"), concat,
//              JoinWindows::of_time_difference_and_grace(10 s, 1 s),
//              {.name = "pairs", .store_name = "pairs"}).to("out"):
//              RocksDB window stores with changelogs, 1 stream thread, at_least_once,
//              commit.interval.ms=100. Timed from RUNNING until every record is processed and
//              committed. _InMemory: the same with StoreType::kInMemory join stores.
//   Baseline:  one loop over the same log with the backend's own consumer and producer: reads
//              both topics, always the record with the smaller timestamp next (as a task does),
//              keeps each side's records per key in a std::deque (dropping those older than
//              the window), joins each record with the other side's deque and writes every
//              pair to "out-baseline". No state stores, no changelog, no commits, no fault
//              tolerance: the cost of the join itself plus the log's I/O.
// Each run checks, untimed, that the output holds as many pairs as computed here.
// Wall-clock (UseManualTime), one iteration, 3 repetitions (median).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <map>
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

using brook::bench::StateWorkload;

const std::int64_t kRecords = brook::bench::env_or("BROOK_SSJOIN_RECORDS", 500'000);
const std::int64_t kKeys = brook::bench::env_or("BROOK_SSJOIN_KEYS", 10'000);
constexpr std::int64_t kDifference = 10'000, kGrace = 1'000;

const StateWorkload& left_workload() {
  static const StateWorkload w = brook::bench::make_workload(kRecords, kKeys);
  return w;
}
// The right side: the same keys in another random order.
const std::vector<std::uint32_t>& right_sequence() {
  static const std::vector<std::uint32_t> s = [] {
    std::mt19937_64 random(43);
    std::vector<std::uint32_t> out(kRecords);
    for (auto& k : out) k = static_cast<std::uint32_t>(random() % kKeys);
    return out;
  }();
  return s;
}
const bool kNumericKeys = brook::bench::env_or("BROOK_SSJOIN_NUMERIC_KEYS", 0) != 0;
const std::string& key_of(std::uint32_t k) {
  static const std::vector<std::string> numeric = [] {
    std::vector<std::string> keys;
    for (std::int64_t i = 0; i < kKeys; ++i) keys.push_back(std::to_string(i));
    return keys;
  }();
  return kNumericKeys ? numeric[k] : left_workload().keys[k];
}

// The number of pairs (left i, right j) with equal keys and |i - j| <= kDifference.
std::int64_t expected_pairs() {
  std::unordered_map<std::uint32_t, std::vector<std::int64_t>> right_times;
  for (std::int64_t j = 0; j < kRecords; ++j) right_times[right_sequence()[j]].push_back(j);
  std::int64_t pairs = 0;
  for (std::int64_t i = 0; i < kRecords; ++i) {
    const auto& times = right_times[left_workload().sequence[i]];
    const auto lo = std::lower_bound(times.begin(), times.end(), i - kDifference);
    const auto hi = std::upper_bound(times.begin(), times.end(), i + kDifference);
    pairs += hi - lo;
  }
  return pairs;
}

const brook::bench::BenchData& data() {
  static const brook::bench::BenchData data(
      kNumericKeys ? "ssjoin-bench-numeric" : "ssjoin-bench",
      [](brook::internal::EmbeddedLog& log) {
        (void)log.admin().create_topic({"left", 1});
        (void)log.admin().create_topic({"right", 1});
        auto producer = std::move(*log.make_producer({}));
        const std::string value(16, 'v');
        for (std::int64_t i = 0; i < kRecords; ++i) {
          (void)producer->send({.topic = "left",
                                .timestamp = brook::Timestamp(i),
                                .key = key_of(left_workload().sequence[i]),
                                .value = value});
          (void)producer->send({.topic = "right",
                                .timestamp = brook::Timestamp(i),
                                .key = key_of(right_sequence()[i]),
                                .value = value});
        }
        (void)producer->flush();
      });
  return data;
}

std::int64_t count_records(const std::string& topic) {
  auto log = data().open();
  auto consumer = std::move(*log->make_consumer({}));
  (void)consumer->assign({{topic, brook::Partition(0)}});
  std::int64_t n = 0;
  while (true) {
    auto records = consumer->poll(std::chrono::milliseconds(0));
    if (!records || records->empty()) return n;
    n += static_cast<std::int64_t>(records->size());
  }
}

void run_brook(benchmark::State& state, brook::StoreType type) {
  const std::int64_t expected = expected_pairs();
  for (auto _ : state) {
    brook::StreamsBuilder builder;
    builder.stream<std::string, std::string>("left")
        .join(builder.stream<std::string, std::string>("right"),
              [](const std::string& l, const std::string& r) { return l + r; },
              brook::JoinWindows::of_time_difference_and_grace(
                  std::chrono::milliseconds(kDifference), std::chrono::milliseconds(kGrace)),
              {.name = "pairs", .store_name = "pairs", .type = type})
        .to("out");
    data().recreate("out");
    auto app = std::make_unique<brook::Streams>(
        *builder.build(),
        std::map<std::string, std::string>{
            {"application.id", "ssjoin-" + std::to_string(brook::bench::next_run())},
            {"data.dir", data().dir().string()},
            {"num.stream.threads", "1"},
            {"commit.interval.ms", "100"}});
    auto seconds = brook::bench::run_until_idle(*app);
    if (!seconds) return state.SkipWithError(seconds.error().to_string().c_str());
    state.SetIterationTime(*seconds);
    const bool dropped = app->metrics().total("dropped-records-total") != 0;
    (void)app->close();
    app.reset();
    if (dropped) return state.SkipWithError("records were dropped");
    if (count_records("out") != expected) return state.SkipWithError("wrong number of pairs");
  }
  state.SetItemsProcessed(state.iterations() * 2 * kRecords);
  state.counters["pairs"] = static_cast<double>(expected);
}

void BM_BrookStreamStreamJoin(benchmark::State& state) {
  run_brook(state, brook::StoreType::kRocksDb);
}
void BM_BrookStreamStreamJoin_InMemory(benchmark::State& state) {
  run_brook(state, brook::StoreType::kInMemory);
}

struct Held {
  std::int64_t at;
  std::string value;
};

void BM_BaselineStreamStreamJoin(benchmark::State& state) {
  const std::int64_t expected = expected_pairs();
  for (auto _ : state) {
    data().recreate("out-baseline");
    auto log = data().open();
    const auto start = brook::bench::Clock::now();
    auto left = std::move(*log->make_consumer({}));
    auto right = std::move(*log->make_consumer({}));
    (void)left->assign({{"left", brook::Partition(0)}});
    (void)right->assign({{"right", brook::Partition(0)}});
    auto producer = std::move(*log->make_producer({}));
    std::unordered_map<std::string, std::deque<Held>> held[2];
    std::vector<brook::ConsumerRecord> buffered[2];
    std::size_t next[2] = {0, 0};
    brook::internal::Consumer* consumers[2] = {left.get(), right.get()};
    auto refill = [&](int side) {
      if (next[side] < buffered[side].size()) return true;
      auto records = consumers[side]->poll(std::chrono::milliseconds(0));
      if (!records || records->empty()) return false;
      buffered[side] = std::move(*records);
      next[side] = 0;
      return true;
    };
    std::int64_t pairs = 0;
    while (true) {
      const bool l = refill(0), r = refill(1);
      if (!l && !r) break;
      const int side =
          !r || (l && buffered[0][next[0]].timestamp <= buffered[1][next[1]].timestamp) ? 0 : 1;
      brook::ConsumerRecord& rec = buffered[side][next[side]++];
      const std::int64_t t = rec.timestamp.value();
      const std::string& key = *rec.key;
      auto& mine = held[side][key];
      mine.push_back({t, *rec.value});
      auto it = held[1 - side].find(key);
      if (it == held[1 - side].end()) continue;
      auto& theirs = it->second;
      while (!theirs.empty() && theirs.front().at < t - kDifference - kGrace) theirs.pop_front();
      for (const Held& h : theirs) {
        if (h.at < t - kDifference || h.at > t + kDifference) continue;
        ++pairs;
        (void)producer->send(
            {.topic = "out-baseline",
             .timestamp = brook::Timestamp(std::max(t, h.at)),
             .key = key,
             .value = side == 0 ? mine.back().value + h.value : h.value + mine.back().value});
      }
    }
    (void)producer->flush();
    state.SetIterationTime(brook::bench::seconds_since(start));
    if (pairs != expected) return state.SkipWithError("wrong number of pairs");
  }
  state.SetItemsProcessed(state.iterations() * 2 * kRecords);
}

BENCHMARK(BM_BrookStreamStreamJoin)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BrookStreamStreamJoin_InMemory)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineStreamStreamJoin)->Apply(brook::bench::one_timed_iteration);

}  // namespace

int main(int argc, char** argv) {
  return brook::bench::run_and_compare(argc, argv, {"--benchmark_repetitions=3"});
}
