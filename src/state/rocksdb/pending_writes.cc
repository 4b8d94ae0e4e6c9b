#include "state/rocksdb/pending_writes.h"

namespace brook::internal {

void PendingWrites::put(std::string_view key, Value value) {
  const Value kept = value ? Value(arena_.copy(*value)) : std::nullopt;
  if (ordered_) {
    auto it = by_order_.lower_bound(key);
    if (it != by_order_.end() && it->first == key) {
      it->second = kept;  // the older value's bytes stay in the arena until clear()
      return;
    }
    by_order_.emplace_hint(it, arena_.copy(key), kept);
    return;
  }
  auto it = by_hash_.find(key);
  if (it != by_hash_.end()) {
    it->second = kept;
    return;
  }
  by_hash_.emplace(arena_.copy(key), kept);
}

void PendingWrites::delete_range(std::string from, std::string to) {
  if (from >= to) return;
  if (ordered_) {
    by_order_.erase(by_order_.lower_bound(from), by_order_.lower_bound(to));
  } else {
    absl::erase_if(by_hash_, [&](const auto& entry) {
      return entry.first >= std::string_view(from) && entry.first < std::string_view(to);
    });
  }
  ranges_.emplace_back(std::move(from), std::move(to));
}

std::optional<PendingWrites::Value> PendingWrites::find(std::string_view key) const {
  if (ordered_) {
    if (auto it = by_order_.find(key); it != by_order_.end()) return it->second;
  } else if (auto it = by_hash_.find(key); it != by_hash_.end()) {
    return it->second;
  }
  if (in_range(key)) return Value();
  return std::nullopt;
}

bool PendingWrites::in_range(std::string_view key) const {
  return std::ranges::any_of(
      ranges_, [&](const Range& range) { return key >= range.first && key < range.second; });
}

const PendingWrites::Entries& PendingWrites::entries() {
  if (!ordered_ && !by_hash_.empty()) {  // (an empty map needs no order yet)
    by_order_.insert(by_hash_.begin(), by_hash_.end());
    by_hash_ = {};
    ordered_ = true;
  }
  return by_order_;
}

}  // namespace brook::internal
