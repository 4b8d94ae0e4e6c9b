// Hash maps keyed by store keys (bytes), looked up by std::string_view without building a
// std::string. Used by the suppression buffer and the embedded log's compaction.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace brook::internal {

// Not noexcept, so an unordered_map keeps each key's hash code in its node: lookups compare
// codes before keys, and rehashing hashes no key again.
struct BytesHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view key) const { return std::hash<std::string_view>()(key); }
};

template <class V>
using BytesMap = std::unordered_map<std::string, V, BytesHash, std::equal_to<>>;

}  // namespace brook::internal
