// Properties of windowed aggregations over random out-of-order streams (rapidcheck):
//  - when every record's disorder stays within the grace period, the final result of every
//    window (the newest one emitted, as a compacted topic keeps it) equals a batch
//    computation over the input sorted by time;
//  - with disorder beyond the grace period, exactly the records whose windows had all closed
//    are dropped (dropped-records), and the final results equal the batch computation over
//    the records each window accepted.
// The oracle computes windows and closing from their definition, not from Brook's code.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "brook/kstream.h"
#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"

namespace brook {
namespace {

using namespace std::chrono_literals;

struct Event {
  std::string key;
  std::int64_t value = 0;
  std::int64_t time = 0;
};

struct Windowing {
  std::int64_t size = 0;
  std::int64_t advance = 0;
  std::int64_t grace = 0;
};

// Window label -> sum of the values in it.
using Results = std::map<std::string, std::int64_t>;

std::string label(const std::string& key, std::int64_t start) {
  return key + "@" + std::to_string(start);
}

// The oracle: each record joins the windows [s, s + size) (s a multiple of the advance,
// s >= 0) containing it that are still open, i.e. whose end is after the stream time (the
// largest time so far, this record's included) minus the grace. It is dropped from each of the
// others, and counted once for each (as Kafka Streams counts).
struct Oracle {
  Results results;
  std::int64_t dropped = 0;

  Oracle(const std::vector<Event>& events, const Windowing& w) {
    std::int64_t stream_time = 0;
    for (const auto& e : events) {
      stream_time = std::max(stream_time, e.time);
      for (std::int64_t s = 0; s <= e.time; s += w.advance) {
        if (e.time >= s + w.size) continue;
        if (s + w.size <= stream_time - w.grace) {
          ++dropped;
        } else {
          results[label(e.key, s)] += e.value;
        }
      }
    }
  }
};

// Brook: the windowed sum through the test driver; the newest result per window.
struct Brook {
  Results results;
  std::int64_t dropped = 0;

  Brook(const std::vector<Event>& events, const Windowing& w, StoreType store) {
    StreamsBuilder builder;
    builder.stream<std::string, std::int64_t>("in")
        .group_by_key()
        .windowed_by(TimeWindows::of_size_and_grace(std::chrono::milliseconds(w.size),
                                                    std::chrono::milliseconds(w.grace))
                         .advance_by(std::chrono::milliseconds(w.advance)))
        .reduce([](std::int64_t a, std::int64_t b) { return a + b; }, {.type = store})
        .to_stream()
        .map([](const Windowed<std::string>& k, const std::optional<std::int64_t>& v) {
          return KeyValue<std::string, std::int64_t>{label(k.key, k.window.start.value()),
                                                     v.value_or(-1)};
        })
        .to("out");
    testing::TopologyTestDriver driver(*builder.build());
    auto in = driver.create_input_topic<std::string, std::int64_t>("in");
    for (const auto& e : events) in.pipe_input(e.key, e.value, Timestamp(e.time));
    for (auto& [window, sum] :
         driver.create_output_topic<std::string, std::int64_t>("out").read_key_values_to_list()) {
      results[window] = sum;
    }
    dropped = driver.metrics().total("dropped-records-total");
  }
};

// Events whose times drift forward, each at most `disorder` before the largest so far.
std::vector<Event> events_with_disorder(std::int64_t disorder) {
  const auto count = *rc::gen::inRange<std::size_t>(1, 150);
  std::vector<Event> events;
  std::int64_t latest = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const auto step = *rc::gen::inRange<std::int64_t>(-disorder, disorder + 40);
    const std::int64_t time = std::max<std::int64_t>(0, latest + step);
    latest = std::max(latest, time);
    events.push_back({*rc::gen::element<std::string>("a", "b", "c"),
                      *rc::gen::inRange<std::int64_t>(1, 100), time});
  }
  return events;
}

Windowing any_windowing() {
  const auto size = *rc::gen::inRange<std::int64_t>(5, 60);
  const bool hopping = *rc::gen::arbitrary<bool>();
  return {size, hopping ? *rc::gen::inRange<std::int64_t>(1, size + 1) : size,
          *rc::gen::inRange<std::int64_t>(0, 50)};
}

RC_GTEST_PROP(WindowedAggregation, DisorderWithinGraceGivesTheBatchResultOverSortedInput, ()) {
  const Windowing w = any_windowing();
  const auto events = events_with_disorder(w.grace);
  auto sorted = events;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Event& a, const Event& b) { return a.time < b.time; });
  const Oracle batch(sorted, {w.size, w.advance, w.size + w.grace + 1'000'000});
  const Brook brook(events, w, StoreType::kInMemory);
  RC_ASSERT(brook.dropped == 0);
  RC_ASSERT(brook.results == batch.results);
}

RC_GTEST_PROP(WindowedAggregation, DisorderBeyondGraceDropsExactlyTheRecordsOfClosedWindows, ()) {
  const Windowing w = any_windowing();
  const auto events = events_with_disorder(3 * w.grace + 3 * w.size);
  const Oracle oracle(events, w);
  const Brook brook(events, w, *rc::gen::element(StoreType::kInMemory, StoreType::kRocksDb));
  RC_ASSERT(brook.dropped == oracle.dropped);
  RC_ASSERT(brook.results == oracle.results);
  RC_TAG(oracle.dropped > 0 ? "some dropped" : "none dropped");
}

}  // namespace
}  // namespace brook
