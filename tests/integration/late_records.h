// Lateness across restarts, on either log: a windowed count with grace whose stream time must
// come back after a restart (from the partition times committed with the input offsets), so
// that a record too late before the restart is still too late after it.
#pragma once

#include <gmock/gmock.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "brook/kstream.h"
#include "brook/streams_builder.h"

namespace brook::testing {

// Counts per key of `in` in 1 s windows with 100 ms grace, to `out` keyed
// "<key>@<window start>".
inline Topology late_counts_topology(const std::string& in, const std::string& out) {
  using namespace std::chrono_literals;
  StreamsBuilder builder;
  builder.stream<std::string, std::string>(in)
      .group_by_key()
      .windowed_by(TimeWindows::of_size_and_grace(1s, 100ms))
      .count({.name = "counts"})
      .to_stream()
      .map([](const Windowed<std::string>& k, const std::optional<std::int64_t>& v) {
        return KeyValue<std::string, std::int64_t>{
            k.key + "@" + std::to_string(k.window.start.value()), v.value_or(-1)};
      })
      .to(out);
  return *builder.build();
}

// The scenario, given how to write records of key "k" with these timestamps to the input
// (while no application runs), how to run the application until it has processed and
// committed everything (returning its dropped-records total), and the newest count per
// output key.
struct LateRecordsLog {
  std::function<void(const std::vector<std::int64_t>& timestamps)> produce;
  std::function<std::int64_t()> run;
  std::function<std::map<std::string, std::int64_t>()> counts;
};

inline void expect_lateness_judged_as_before_restarts(const LateRecordsLog& log) {
  // Times from a window boundary a minute ago: recent enough that no time retention deletes
  // the records while the test runs (a broker deletes records dated 1970 within seconds).
  const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  const std::int64_t base = now - now % 1000 - 60'000;
  auto window = [&](std::int64_t start) { return "k@" + std::to_string(base + start); };
  log.produce({base + 5000});
  EXPECT_EQ(log.run(), 0);  // stream time base + 5000: windows ending by base + 4900 are closed
  EXPECT_EQ(log.run(), 0) << "a run with nothing to process commits the partition time again";
  log.produce({base + 1000, base + 4950});
  EXPECT_EQ(log.run(), 1) << "1000 is too late for its window [1000, 2000), 4950 is in grace";
  EXPECT_EQ(log.counts(),
            (std::map<std::string, std::int64_t>{{window(4000), 1}, {window(5000), 1}}));
}

}  // namespace brook::testing
