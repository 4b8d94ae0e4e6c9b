// The input of the count tests: words keyed "k0".."k49", and the count per key they give.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace brook::testing {

inline constexpr int kWordKeys = 50;

// "k<i % kWordKeys>" -> "v<i>", for i in [from, to).
inline std::vector<std::pair<std::string, std::optional<std::string>>> words(int from, int to) {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  for (int i = from; i < to; ++i)
    out.emplace_back("k" + std::to_string(i % kWordKeys), "v" + std::to_string(i));
  return out;
}

// The count per key of words(0, records).
inline std::map<std::string, std::int64_t> expected_counts(int records) {
  std::map<std::string, std::int64_t> out;
  for (const auto& [key, value] : words(0, records)) ++out[key];
  return out;
}

}  // namespace brook::testing
