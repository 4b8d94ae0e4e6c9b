#include "state/in_memory_store.h"

namespace brook::internal {

Result<std::optional<std::string>> InMemoryStore::get(std::string_view key) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::optional<std::string>();
  return std::optional<std::string>(it->second);
}

Status InMemoryStore::put(std::string_view key, std::optional<std::string_view> value) {
  if (!value) {
    if (auto it = entries_.find(key); it != entries_.end()) entries_.erase(it);
    return {};
  }
  auto it = entries_.lower_bound(key);
  if (it != entries_.end() && it->first == key) {
    it->second.assign(*value);
  } else {
    entries_.emplace_hint(it, std::string(key), std::string(*value));
  }
  return {};
}

Status InMemoryStore::scan(const KeyRange& range, const ScanVisitor& visit) {
  auto it = range.from ? entries_.lower_bound(*range.from) : entries_.begin();
  for (; it != entries_.end(); ++it) {
    if (range.to && it->first > *range.to) break;
    if (!visit(it->first, it->second)) break;
  }
  return {};
}

Status InMemoryStore::delete_range(const KeyRange& range) {
  auto first = range.from ? entries_.lower_bound(*range.from) : entries_.begin();
  auto last = range.to ? entries_.upper_bound(*range.to) : entries_.end();
  if (first != entries_.end() && (last == entries_.end() || first->first <= last->first)) {
    entries_.erase(first, last);
  }
  return {};
}

}  // namespace brook::internal
