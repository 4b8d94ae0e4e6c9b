#include "state/fresh_segment_keys.h"

#include <absl/hash/hash.h>

namespace brook::internal {

std::uint64_t FreshSegmentKeys::hash(std::string_view key) {
  return absl::Hash<std::string_view>{}(key);
}

void FreshSegmentKeys::written(std::int64_t segment, std::string_view key) {
  if (segment < first_) return;
  Segment& s = segments_[segment];
  if (!s.tracked) return;
  const std::uint64_t h = hash(key);
  if (keys_ >= max_keys_ && !s.hashes.contains(h)) {
    // Room is made by the oldest segments: their windows are the first to close.
    for (auto& [id, older] : segments_) {
      if (keys_ < max_keys_ || id > segment) break;
      untrack(older);
    }
    if (!s.tracked) return;
  }
  keys_ += s.hashes.insert(h).second ? 1 : 0;
}

void FreshSegmentKeys::untrack(Segment& s) {
  keys_ -= s.hashes.size();
  s.tracked = false;
  s.hashes = {};
}

bool FreshSegmentKeys::never_written(std::int64_t segment, std::string_view key) const {
  if (segment < first_) return false;
  const auto it = segments_.find(segment);
  if (it == segments_.end()) return true;
  return it->second.tracked && !it->second.hashes.contains(hash(key));
}

void FreshSegmentKeys::prefetch(std::int64_t segment, std::string_view key) const {
  if (segment < first_) return;
  const auto it = segments_.find(segment);
  if (it != segments_.end() && it->second.tracked) it->second.hashes.prefetch(hash(key));
}

void FreshSegmentKeys::drop_below(std::int64_t segment) {
  for (auto it = segments_.begin(); it != segments_.end() && it->first < segment;) {
    untrack(it->second);
    it = segments_.erase(it);
  }
}

}  // namespace brook::internal
