#include "state/rocksdb/pending_writes.h"

#include <algorithm>

namespace brook::internal {

void PendingWrites::put(std::string_view key, std::optional<std::string_view> value) {
  const auto kept = value ? std::optional(arena_.copy(*value)) : std::nullopt;
  auto it = entries_.lower_bound(key);
  if (it != entries_.end() && it->first == key) {
    it->second = kept;  // the older value's bytes stay in the arena until clear()
    return;
  }
  entries_.emplace_hint(it, arena_.copy(key), kept);
}

void PendingWrites::delete_range(std::string from, std::string to) {
  if (from >= to) return;
  entries_.erase(entries_.lower_bound(from), entries_.lower_bound(to));
  ranges_.emplace_back(std::move(from), std::move(to));
}

std::optional<std::optional<std::string_view>> PendingWrites::find(std::string_view key) const {
  if (auto it = entries_.find(key); it != entries_.end()) return it->second;
  if (in_range(key)) return std::optional<std::string_view>();
  return std::nullopt;
}

bool PendingWrites::in_range(std::string_view key) const {
  return std::ranges::any_of(
      ranges_, [&](const Range& range) { return key >= range.first && key < range.second; });
}

}  // namespace brook::internal
