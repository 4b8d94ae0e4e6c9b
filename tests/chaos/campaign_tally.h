// What a kill campaign lost and made twice, judged against what its input makes, and its table
// of kill points by phase. Shared by the campaigns on the embedded log and on Kafka.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace brook::testing {

struct Tally {
  std::int64_t lost = 0;   // counts (or join results) missing, summed
  std::int64_t twice = 0;  // counts (or join results) made beyond the input's, summed
};

// Adds to `t` what `got` holds below and above `expected`, key by key: a key's count (the
// store's, or the last one written), or how often a join result was written.
inline void tally(const std::map<std::string, std::int64_t>& expected,
                  const std::map<std::string, std::int64_t>& got, Tally& t) {
  for (const auto& [key, n] : expected) {
    const auto it = got.find(key);
    const std::int64_t have = it == got.end() ? 0 : it->second;
    t.lost += std::max<std::int64_t>(0, n - have);
    t.twice += std::max<std::int64_t>(0, have - n);
  }
}

// The last count written per key, of counts in the order written.
inline std::map<std::string, std::int64_t> last_counts(
    const std::map<std::string, std::vector<std::int64_t>>& written) {
  std::map<std::string, std::int64_t> last;
  for (const auto& [key, counts] : written) last[key] = counts.back();
  return last;
}

// The join results of inputs whose record i joins only its twin, each once: "<i>+<i>".
inline std::map<std::string, std::int64_t> twin_pairs(std::int64_t records) {
  std::map<std::string, std::int64_t> pairs;
  for (std::int64_t i = 0; i < records; ++i) pairs[fmt::format("{}+{}", i, i)] = 1;
  return pairs;
}

// The kill points by phase as a markdown table with its header; `total` gets their sum.
inline std::string phase_table(const std::map<std::string, int>& kill_points, int& total) {
  std::string table = "  | phase       | kill points |\n  |---|---:|\n";
  total = 0;
  for (const auto& [phase, n] : kill_points) {
    total += n;
    table += fmt::format("  | {:<11} | {:>11} |\n", phase, n);
  }
  return table;
}

}  // namespace brook::testing
