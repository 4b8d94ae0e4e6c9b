#include "state/in_memory_store.h"

#include <absl/container/btree_set.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "state/cache_entry.h"

namespace brook::internal {
namespace {

// A block for `key` holding `value`.
char* make_block(std::string_view key, std::string_view value) {
  return CacheEntry::make(key, std::nullopt, value, {}, false);
}

}  // namespace

// A B-tree of pointers to the blocks: about 10 bytes per entry.
struct InMemoryStore::Index {
  absl::btree_set<char*, BlockKeyLess> blocks;
};

InMemoryStore::InMemoryStore(std::string name) : name_(std::move(name)) {}

InMemoryStore::~InMemoryStore() {
  for (std::size_t slot = 0; slot < table_.capacity(); ++slot) {
    if (table_.occupied(slot)) CacheEntry::destroy(table_.block(slot));
  }
}

InMemoryStore::Index& InMemoryStore::index() {
  if (index_ == nullptr) {
    std::vector<char*> sorted;
    sorted.reserve(table_.size());
    for (std::size_t slot = 0; slot < table_.capacity(); ++slot) {
      if (table_.occupied(slot)) sorted.push_back(table_.block(slot));
    }
    std::sort(sorted.begin(), sorted.end(), BlockKeyLess());
    index_ = std::make_unique<Index>();
    index_->blocks.insert(sorted.begin(), sorted.end());
  }
  return *index_;
}

Result<std::optional<std::string>> InMemoryStore::get(std::string_view key) {
  const std::size_t slot = table_.find(key, CacheTable::hash(key));
  if (slot == CacheTable::kNone) return std::optional<std::string>();
  return std::optional<std::string>(*CacheEntry::view(table_.block(slot)).value);
}

Result<bool> InMemoryStore::get_into(std::string_view key, std::string& value) {
  const std::size_t slot = table_.find(key, CacheTable::hash(key));
  if (slot == CacheTable::kNone) return false;
  value.assign(*CacheEntry::view(table_.block(slot)).value);
  return true;
}

Status InMemoryStore::put(std::string_view key, std::optional<std::string_view> value) {
  const std::size_t hash = CacheTable::hash(key);
  const std::size_t slot = table_.find(key, hash);
  if (!value) {
    if (slot != CacheTable::kNone) erase(slot);
    return {};
  }
  if (slot != CacheTable::kNone) {
    char* old = table_.block(slot);
    // If the entry may move to another block, its place in the index is found first, while
    // the old block's key can still be compared.
    std::optional<decltype(index_->blocks)::iterator> indexed;
    if (index_ && !CacheEntry::rewrites_in_place(old, std::nullopt, *value, {}, false)) {
      indexed = index_->blocks.find(old);
    }
    char* block = CacheEntry::rewrite(old, std::nullopt, *value, {}, false);
    if (block != old) {
      table_.set_block(slot, block);
      if (indexed) {
        index_->blocks.erase(*indexed);
        index_->blocks.insert(block);
      }
    }
    return {};
  }
  char* block = make_block(key, *value);
  try {
    if (index_) index_->blocks.insert(block);
    table_.insert(block, hash);
  } catch (...) {  // keep table and index in step
    if (index_) index_->blocks.erase(block);
    CacheEntry::destroy(block);
    throw;
  }
  return {};
}

void InMemoryStore::erase(std::size_t slot) {
  char* block = table_.block(slot);
  if (index_) index_->blocks.erase(block);
  table_.erase(slot);
  CacheEntry::destroy(block);
}

void InMemoryStore::prefetch(std::string_view key, PrefetchStep step) const {
  if (step == PrefetchStep::kSlot) {
    table_.prefetch_slots(CacheTable::hash(key));
  } else {
    table_.prefetch_entries(CacheTable::hash(key));
  }
}

void InMemoryStore::reserve_for_restore(std::int64_t records) {
  if (records > 0) table_.reserve(table_.size() + static_cast<std::size_t>(records));
}

Status InMemoryStore::flush() {
  // Gives back what a restoration reserved for more keys than its changelog held (records of
  // a key not compacted yet). The blocks stay where they are, and so does the index.
  table_.shrink();
  return {};
}

Status InMemoryStore::scan(const KeyRange& range, const ScanVisitor& visit) {
  const auto& ordered = index().blocks;
  auto it = range.from ? ordered.lower_bound(std::string_view(*range.from)) : ordered.begin();
  for (; it != ordered.end(); ++it) {
    const auto entry = CacheEntry::view(*it);
    if (range.to && entry.key > *range.to) break;
    if (!visit(entry.key, *entry.value)) break;
  }
  return {};
}

Status InMemoryStore::delete_range(const KeyRange& range) {
  if (range.from && range.to && *range.from > *range.to) return {};
  auto& ordered = index().blocks;
  const auto first =
      range.from ? ordered.lower_bound(std::string_view(*range.from)) : ordered.begin();
  const auto last = range.to ? ordered.upper_bound(std::string_view(*range.to)) : ordered.end();
  const std::vector<char*> deleted(first, last);
  ordered.erase(first, last);  // before the blocks go: the index compares their keys
  for (char* block : deleted) {
    const std::string_view key = CacheEntry::key(block);
    table_.erase(table_.find(key, CacheTable::hash(key)));
    CacheEntry::destroy(block);
  }
  return {};
}

}  // namespace brook::internal
