// A chain of 10 stateless operators over string keys and int64 values, run by Brook (through
// brook::testing::TopologyTestDriver, which runs the same StreamTask code as the runtime) and by
// a plain loop calling the very same lambdas, measured in the same run. A second case,
// PassThrough (source straight to sink, no operator), shows Brook's fixed cost per record.
//
// Both sides start from the same pre-serialised records (key: 10 ASCII bytes; value: 8-byte
// big-endian int64) and both count records/s of input.
//
// Brook:    pipe_raw_input (the record's bytes, a timestamp) -> source node deserialises key
//           and value -> 10 processor nodes -> sink node serialises key and value -> output
//           queue of the driver, cleared every kBatch records.
// Baseline: std::string from the key bytes and a hand-written big-endian decode of the value
//           (with its size check) -> the 10 lambdas called directly, in order, each filter
//           ending the record's trip as Brook's would -> std::string copy of the key and
//           big-endian encode of the value -> appended to a std::vector of (key, value)
//           pairs, cleared every kBatch records. It does not carry timestamps, headers,
//           offsets or metadata, and has no per-record queueing, virtual calls, Result
//           checks or error handling: that is the per-record overhead Brook's figure shows.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"
#include "compare.h"
#include "hand_codec.h"

namespace {

using brook::bench::hand_decode_u64;
using brook::bench::hand_encode_u64;

constexpr std::size_t kBatch = 1024;  // records per benchmark iteration

std::int64_t peeked_sum = 0;  // written by the peek lambda, so it has an effect

// The 10 operators, in chain order. Shared verbatim by both sides.
const auto keep_valid = [](const std::string& k, std::int64_t v) { return !k.empty() && v >= 0; };
const auto scale = [](std::int64_t v) { return v * 3; };
const auto add_key_length = [](const std::string& k, std::int64_t v) {
  return v + static_cast<std::int64_t>(k.size());
};
const auto is_multiple_of_16 = [](const std::string&, std::int64_t v) { return v % 16 == 0; };
const auto halve = [](const std::string& k, std::int64_t v) {
  return brook::KeyValue<std::string, std::int64_t>{k, v / 2};
};
const auto short_key = [](const std::string& k, std::int64_t) { return k.substr(5); };
const auto sum_up = [](const std::string&, std::int64_t v) { peeked_sum += v; };
const auto scramble = [](std::int64_t v) { return v ^ 0x5a5a; };
const auto not_ending_in_7 = [](const std::string& k, std::int64_t) { return k.back() != '7'; };
const auto increment = [](std::int64_t v) { return v + 1; };

struct RawRecord {
  std::string key;
  std::string value;
};

// kBatch records: keys "user-00000".. (10 bytes), values 0..kBatch*37 as big-endian int64.
const std::vector<RawRecord>& inputs() {
  static const auto records = [] {
    std::vector<RawRecord> v;
    for (std::size_t i = 0; i < kBatch; ++i) {
      char key[16];
      std::snprintf(key, sizeof key, "user-%05zu", i);
      v.push_back({key, hand_encode_u64(i * 37)});
    }
    return v;
  }();
  return records;
}

brook::Topology build_or_die(brook::StreamsBuilder& builder) {
  auto topology = builder.build();
  if (!topology) {
    std::fprintf(stderr, "stateless_chain_bench: %s\n", topology.error().to_string().c_str());
    std::abort();
  }
  return std::move(*topology);
}

brook::Topology chain_topology() {
  brook::StreamsBuilder builder;
  builder.stream<std::string, std::int64_t>("in")
      .filter(keep_valid)
      .map_values(scale)
      .map_values(add_key_length)
      .filter_not(is_multiple_of_16)
      .map(halve)
      .select_key(short_key)
      .peek(sum_up)
      .map_values(scramble)
      .filter(not_ending_in_7)
      .map_values(increment)
      .to("out");
  return build_or_die(builder);
}

// No operator: source straight to sink, the fixed cost of a record in Brook.
brook::Topology pass_through_topology() {
  brook::StreamsBuilder builder;
  builder.stream<std::string, std::int64_t>("in").to("out");
  return build_or_die(builder);
}

using Output = std::vector<std::pair<std::string, std::string>>;  // (key, value) bytes

// The baselines' work for one record; see the top of this file for what it includes.
std::pair<std::string, std::int64_t> baseline_decode(const RawRecord& r) {
  if (r.value.size() != 8) std::abort();
  return {std::string(r.key), static_cast<std::int64_t>(hand_decode_u64(r.value))};
}
void baseline_encode(const std::string& key, std::int64_t value, Output& out) {
  out.emplace_back(std::string(key), hand_encode_u64(static_cast<std::uint64_t>(value)));
}

void baseline_chain(const RawRecord& r, Output& out) {
  auto [key, value] = baseline_decode(r);
  if (!keep_valid(key, value)) return;
  value = scale(value);
  value = add_key_length(key, value);
  if (is_multiple_of_16(key, value)) return;
  auto kv = halve(key, value);
  std::string new_key = short_key(kv.key, kv.value);
  value = kv.value;
  sum_up(new_key, value);
  value = scramble(value);
  if (!not_ending_in_7(new_key, value)) return;
  value = increment(value);
  baseline_encode(new_key, value, out);
}

void baseline_pass_through(const RawRecord& r, Output& out) {
  auto [key, value] = baseline_decode(r);
  baseline_encode(key, value, out);
}

void count_records(benchmark::State& state, std::size_t outputs) {
  const auto inputs_done = state.iterations() * static_cast<std::int64_t>(kBatch);
  state.SetItemsProcessed(inputs_done);
  state.counters["out_per_in"] = static_cast<double>(outputs) / static_cast<double>(inputs_done);
}

void run_brook(benchmark::State& state, const brook::Topology& topology,
               void (*baseline)(const RawRecord&, Output&)) {
  brook::testing::TopologyTestDriver driver(topology);
  auto& out = driver.output_queue("out");
  std::int64_t timestamp = 0;

  // Untimed: both sides must write the same records, or the comparison means nothing.
  Output expected;
  for (const RawRecord& r : inputs()) baseline(r, expected);
  for (const RawRecord& r : inputs()) {
    driver.pipe_raw_input("in", r.key, r.value, brook::Timestamp(timestamp++));
  }
  Output actual;
  for (const auto& record : out) actual.emplace_back(record.key.value(), record.value.value());
  out.clear();
  if (actual != expected) return state.SkipWithError("Brook and baseline outputs differ");

  std::size_t outputs = 0;
  for (auto _ : state) {
    for (const RawRecord& r : inputs()) {
      driver.pipe_raw_input("in", r.key, r.value, brook::Timestamp(timestamp++));
    }
    outputs += out.size();
    out.clear();
  }
  count_records(state, outputs);
}

// `baseline` is a template argument so that the loop calls it directly (and may inline it).
template <void (*baseline)(const RawRecord&, Output&)>
void run_baseline(benchmark::State& state) {
  Output out;
  out.reserve(kBatch);
  std::size_t outputs = 0;
  for (auto _ : state) {
    for (const RawRecord& r : inputs()) baseline(r, out);
    outputs += out.size();
    out.clear();
  }
  count_records(state, outputs);
}

void BM_BrookStatelessChain10(benchmark::State& state) {
  run_brook(state, chain_topology(), baseline_chain);
}
void BM_BaselineStatelessChain10(benchmark::State& state) { run_baseline<baseline_chain>(state); }
void BM_BrookPassThrough(benchmark::State& state) {
  run_brook(state, pass_through_topology(), baseline_pass_through);
}
void BM_BaselinePassThrough(benchmark::State& state) { run_baseline<baseline_pass_through>(state); }

BENCHMARK(BM_BrookStatelessChain10);
BENCHMARK(BM_BaselineStatelessChain10);
BENCHMARK(BM_BrookPassThrough);
BENCHMARK(BM_BaselinePassThrough);

}  // namespace

int main(int argc, char** argv) { return brook::bench::run_and_compare(argc, argv); }
