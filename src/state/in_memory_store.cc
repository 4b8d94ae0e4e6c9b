#include "state/in_memory_store.h"

#include <absl/container/btree_set.h>

#include <algorithm>
#include <vector>

namespace brook::internal {
namespace {

// Orders entries by key (std::string compares as unsigned bytes, as memcmp does).
template <class Entry>
struct ByKey {
  using is_transparent = void;
  bool operator()(const Entry* a, const Entry* b) const { return a->first < b->first; }
  bool operator()(const Entry* a, std::string_view b) const { return a->first < b; }
  bool operator()(std::string_view a, const Entry* b) const { return a < b->first; }
};

}  // namespace

// A B-tree of pointers to the map's nodes: about 10 bytes per entry, and a scan reads them in
// runs from contiguous nodes.
struct InMemoryStore::Index {
  absl::btree_set<const Entry*, ByKey<Entry>> entries;
};

InMemoryStore::InMemoryStore(std::string name) : name_(std::move(name)) {}

InMemoryStore::~InMemoryStore() = default;

InMemoryStore::Index& InMemoryStore::index() {
  if (index_ == nullptr) {
    std::vector<const Entry*> sorted;
    sorted.reserve(entries_.size());
    for (const auto& entry : entries_) sorted.push_back(&entry);
    std::sort(sorted.begin(), sorted.end(), ByKey<Entry>());
    index_ = std::make_unique<Index>();
    index_->entries.insert(sorted.begin(), sorted.end());
  }
  return *index_;
}

Result<std::optional<std::string>> InMemoryStore::get(std::string_view key) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::optional<std::string>();
  return std::optional<std::string>(it->second);
}

Result<bool> InMemoryStore::get_into(std::string_view key, std::string& value) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return false;
  value.assign(it->second);
  return true;
}

Status InMemoryStore::put(std::string_view key, std::optional<std::string_view> value) {
  if (!value) {
    auto it = entries_.find(key);
    if (it == entries_.end()) return {};
    if (index_) index_->entries.erase(&*it);
    entries_.erase(it);
    return {};
  }
  auto [it, inserted] = entries_.try_emplace(key, *value);
  if (!inserted) {
    it->second.assign(*value);
    return {};
  }
  if (!index_) return {};
  try {
    index_->entries.insert(&*it);
  } catch (...) {  // keep map and index in step
    entries_.erase(it);
    throw;
  }
  return {};
}

void InMemoryStore::reserve_for_restore(std::int64_t records) {
  if (records > 0) entries_.reserve(entries_.size() + static_cast<std::size_t>(records));
}

Status InMemoryStore::flush() {
  // Gives back what a restoration reserved for more keys than its changelog held (records of
  // a key not compacted yet). The nodes stay where they are, and so does the index.
  if (entries_.capacity() > 4 * entries_.size() + 64) entries_.rehash(0);
  return {};
}

Status InMemoryStore::scan(const KeyRange& range, const ScanVisitor& visit) {
  const auto& ordered = index().entries;
  auto it = range.from ? ordered.lower_bound(std::string_view(*range.from)) : ordered.begin();
  for (; it != ordered.end(); ++it) {
    const Entry& entry = **it;
    if (range.to && entry.first > *range.to) break;
    if (!visit(entry.first, entry.second)) break;
  }
  return {};
}

Status InMemoryStore::delete_range(const KeyRange& range) {
  if (range.from && range.to && *range.from > *range.to) return {};
  auto& ordered = index().entries;
  const auto first =
      range.from ? ordered.lower_bound(std::string_view(*range.from)) : ordered.begin();
  const auto last = range.to ? ordered.upper_bound(std::string_view(*range.to)) : ordered.end();
  const std::vector<const Entry*> deleted(first, last);
  ordered.erase(first, last);  // before the map's nodes go: the index compares their keys
  for (const Entry* entry : deleted) entries_.erase(entries_.find(entry->first));
  return {};
}

}  // namespace brook::internal
