#include "state/caching_store.h"

#include <absl/container/btree_set.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "brook/internal/coding.h"
#include "brook/internal/headers_codec.h"

namespace brook::internal {
namespace {

// The first bytes of a key as numbers that compare as the bytes do (unsigned, zero-padded):
// keys whose prefixes differ are ordered by them alone.
struct SortPrefix {
  static constexpr std::size_t kBytes = 3 * sizeof(std::uint64_t);
  std::array<std::uint64_t, 3> words;

  static SortPrefix of(std::string_view key) {
    std::array<char, kBytes> bytes{};
    std::memcpy(bytes.data(), key.data(), std::min(key.size(), kBytes));
    SortPrefix prefix;
    for (std::size_t i = 0; i < prefix.words.size(); ++i) {
      prefix.words[i] = get_big_endian<std::uint64_t>(bytes.data() + i * sizeof(std::uint64_t));
    }
    return prefix;
  }
  // <0, 0 or >0 as this prefix sorts before, with or after `other`.
  int compare(const SortPrefix& other) const {
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (words[i] != other.words[i]) return words[i] < other.words[i] ? -1 : 1;
    }
    return 0;
  }
};

}  // namespace

class CachingStore::OrderedIndex {
 public:
  // What one entry costs a B-tree of pointers, about: the pointer and its share of the nodes.
  static constexpr std::size_t kEntryBytes = 10;
  absl::btree_set<char*, BlockKeyLess> blocks;
};

CachingStore::CachingStore(std::unique_ptr<KeyValueBytesStore> inner,
                           std::shared_ptr<RecordCache> cache, Sensor* hit_ratio)
    : inner_(std::move(inner)), cache_(std::move(cache)), hit_ratio_(hit_ratio) {
  cache_->add(*this);
}

CachingStore::~CachingStore() {
  for (std::size_t slot = 0; slot < table_.capacity(); ++slot) {
    if (table_.occupied(slot)) CacheEntry::destroy(table_.block(slot));
  }
  cache_->release(charged_);
  cache_->remove(*this);
}

Result<std::optional<std::string>> CachingStore::get(std::string_view key) {
  auto value = lookup(key);
  if (!value) return error(std::move(value.error()));
  return *value ? std::optional<std::string>(**value) : std::nullopt;
}

Result<bool> CachingStore::get_into(std::string_view key, std::string& value) {
  auto found = lookup(key);
  if (!found) return error(std::move(found.error()));
  if (!*found) return false;
  value.assign(**found);
  return true;
}

Result<std::optional<std::string_view>> CachingStore::lookup(std::string_view key) {
  const std::size_t hash = CacheTable::hash(key);
  std::size_t slot = table_.find(key, hash);
  const bool hit = slot != CacheTable::kNone || last_read_.holds(key);
  if (hit_ratio_ != nullptr) hit_ratio_->record(hit ? 1 : 0);
  if (!hit) {
    auto below = inner_->get(key);
    if (!below) return error(std::move(below.error()));
    if (*below) slot = cache_clean(key, hash, **below);
    if (slot == CacheTable::kNone) {
      last_read_.key.assign(key);
      last_read_.present = below->has_value();
      if (last_read_.present) last_read_.value = std::move(**below);
      last_read_.valid = true;
    }
  }
  if (slot == CacheTable::kNone) return last_read_.below();  // the last read below
  table_.mark(slot, CacheTable::kReferenced, true);
  return CacheEntry::view(table_.block(slot)).value;
}

Result<std::optional<std::string>> CachingStore::read(std::string_view key) {
  if (const std::size_t slot = table_.find(key, CacheTable::hash(key)); slot != CacheTable::kNone) {
    const auto value = CacheEntry::view(table_.block(slot)).value;
    return value ? std::optional<std::string>(*value) : std::nullopt;
  }
  return inner_->read(key);
}

void CachingStore::prefetch(std::string_view key, PrefetchStep step) const {
  if (step == PrefetchStep::kSlot) {
    table_.prefetch_slots(CacheTable::hash(key));
  } else {
    table_.prefetch_entries(CacheTable::hash(key));
  }
}

Status CachingStore::put(std::string_view key, std::optional<std::string_view> value) {
  const std::size_t hash = CacheTable::hash(key);
  const std::string_view headers = current_headers();
  std::size_t slot = table_.find(key, hash);
  // What is below: a clean entry's value, what a dirty one knows, or the key's last read.
  KnownBelow below;
  if (slot != CacheTable::kNone) {
    below = CacheEntry::view(table_.block(slot)).below;
  } else if (last_read_.holds(key)) {
    // Taken out of last_read_ (which the key's put ends): making room writes entries down,
    // which runs downstream nodes, which may read this store.
    put_below_.swap(last_read_.value);
    last_read_.valid = false;
    below = last_read_.present ? std::optional<std::string_view>(put_below_) : std::nullopt;
  }
  const std::size_t bytes = CacheEntry::estimate(key, below, value, headers, true);
  if (!cache_->fits(extra_for(bytes, slot))) {
    auto kept = make_room(bytes, key, hash, slot);
    if (!kept) return kept.error();
    slot = *kept;
    if (slot != CacheTable::kNone) below = CacheEntry::view(table_.block(slot)).below;
    if (!cache_->fits(extra_for(bytes, slot))) {  // too big even alone: straight down
      if (slot == CacheTable::kNone) return write_through(key, value, below, headers);
      {
        PinnedEntry pin(table_.block(slot));
        if (Status s = write_through(key, value, below, headers); !s.ok()) return s;
      }
      slot = table_.find(key, hash);
      if (table_.has(slot, CacheTable::kDirty)) --dirty_;
      erase(slot);
      return {};
    }
  }
  if (slot == CacheTable::kNone) {
    slot = insert(CacheEntry::make(key, below, value, headers, true), hash);
    table_.mark(slot, CacheTable::kDirty, true);
    ++dirty_;
  } else {
    if (!table_.has(slot, CacheTable::kDirty)) ++dirty_;
    rewrite(slot, below, value, headers, true);
  }
  table_.mark(slot, CacheTable::kReferenced, true);
  return settle(slot);
}

Status CachingStore::scan(const KeyRange& range, const ScanVisitor& visit) {
  if (!ordered_) {
    ordered_ = std::make_unique<OrderedIndex>();
    for (std::size_t slot = 0; slot < table_.capacity(); ++slot) {
      if (table_.occupied(slot)) ordered_->blocks.insert(table_.block(slot));
    }
    recharge(static_cast<std::ptrdiff_t>(table_.size() * OrderedIndex::kEntryBytes));
  }
  const auto& blocks = ordered_->blocks;
  auto cached = range.from ? blocks.lower_bound(std::string_view(*range.from)) : blocks.begin();
  auto cached_in_range = [&] {
    return cached != blocks.end() && (!range.to || CacheEntry::key(*cached) <= *range.to);
  };
  bool stopped = false;
  // Visits the cached entry at `cached` unless it is a tombstone, and moves past it.
  auto visit_cached = [&] {
    const auto entry = CacheEntry::view(*cached++);
    stopped = entry.value && !visit(entry.key, *entry.value);
    return !stopped;
  };
  Status status = inner_->scan(range, [&](std::string_view key, std::string_view value) {
    while (cached_in_range() && CacheEntry::key(*cached) < key) {
      if (!visit_cached()) return false;
    }
    if (cached_in_range() && CacheEntry::key(*cached) == key) return visit_cached();
    stopped = !visit(key, value);
    return !stopped;
  });
  if (!status.ok() || stopped) return status;
  while (cached_in_range() && visit_cached()) {
  }
  return {};
}

Status CachingStore::flush() {
  last_read_.valid = false;
  if (dirty_ > 0) {
    // Collected first: write-downs run downstream nodes, which may move the table's slots
    // (then an entry is looked up again). A dirty block stays where it is until written down:
    // nothing else evicts or rewrites it.
    struct Dirty {
      SortPrefix prefix;
      std::string_view key;
      char* block;
      std::size_t slot;
    };
    std::vector<Dirty> dirty;
    dirty.reserve(dirty_);
    for (std::size_t slot = 0; slot < table_.capacity(); ++slot) {
      if (table_.has(slot, CacheTable::kDirty)) dirty.push_back({{}, {}, table_.block(slot), slot});
    }
    // The keys, read with the blocks a few entries ahead already on their way.
    constexpr std::size_t kReadAhead = 16;
    for (std::size_t i = 0; i < dirty.size(); ++i) {
      if (i + kReadAhead < dirty.size()) __builtin_prefetch(dirty[i + kReadAhead].block);
      dirty[i].key = CacheEntry::key(dirty[i].block);
      dirty[i].prefix = SortPrefix::of(dirty[i].key);
    }
    // In key order, as the stores below like it: a session's merged-away predecessors (ending
    // earlier) go before it. Most comparisons end in the prefixes, without reading the blocks.
    std::sort(dirty.begin(), dirty.end(), [](const Dirty& a, const Dirty& b) {
      const int order = a.prefix.compare(b.prefix);
      return order != 0 ? order < 0 : a.key < b.key;
    });
    const std::uint64_t collected = table_.layout();
    auto slot_of = [&](const Dirty& entry) {
      return table_.layout() == collected ? entry.slot
                                          : table_.find(entry.key, CacheTable::hash(entry.key));
    };
    // Blocks are read that early, the store below starts looking for their keys half as
    // early, once a block is likely to have arrived, and loads what it found a quarter as early.
    constexpr std::size_t kPrefetchAhead = 16;
    for (std::size_t i = 0; i < dirty.size(); ++i) {
      if (i + kPrefetchAhead < dirty.size()) __builtin_prefetch(dirty[i + kPrefetchAhead].block);
      if (i + kPrefetchAhead / 2 < dirty.size())
        inner_->prefetch(dirty[i + kPrefetchAhead / 2].key, PrefetchStep::kSlot);
      if (i + kPrefetchAhead / 4 < dirty.size())
        inner_->prefetch(dirty[i + kPrefetchAhead / 4].key, PrefetchStep::kEntry);
      const Dirty& entry = dirty[i];
      if (Status s = write_down(slot_of(entry)); !s.ok()) return s;
      const std::size_t slot = slot_of(entry);
      --dirty_;
      const auto value = CacheEntry::view(entry.block).value;
      if (!value) {  // absent below now, like a key never read
        erase(slot);
      } else if (CacheEntry::mark_clean(entry.block)) {
        table_.mark(slot, CacheTable::kDirty, false);
      } else {
        rewrite(slot, std::nullopt, value, {}, false);
      }
    }
  }
  const std::size_t index = table_.bytes();
  if (table_.shrink())
    recharge(static_cast<std::ptrdiff_t>(table_.bytes()) - static_cast<std::ptrdiff_t>(index));
  return inner_->flush();
}

Status CachingStore::commit(std::optional<Offset> changelog_next) {
  if (dirty_ > 0) {
    return Status::failed_precondition(fmt::format(
        "store {}: commit with {} unflushed cache entries (flush() first)", name(), dirty_));
  }
  return inner_->commit(changelog_next);
}

Status CachingStore::evict(bool dirty, int turns, const std::function<bool()>& done) {
  // done() can change only when an entry goes (or its write-down ran downstream): asked then.
  if (done()) return {};
  const std::size_t visits = static_cast<std::size_t>(turns) * table_.capacity();
  for (std::size_t i = 0; i < visits && table_.size() > 0; ++i) {
    hand_ = (hand_ + 1) & (table_.capacity() - 1);
    const std::size_t slot = hand_;
    if (!table_.occupied(slot)) continue;
    if (table_.has(slot, CacheTable::kDirty) != dirty) continue;
    if (table_.has(slot, CacheTable::kReferenced)) {  // used since the last pass: spared once
      table_.mark(slot, CacheTable::kReferenced, false);
      continue;
    }
    char* block = table_.block(slot);
    if (CacheEntry::pinned(block)) continue;
    if (dirty) {
      const std::string_view key = CacheEntry::key(block);
      const std::size_t hash = CacheTable::hash(key);
      if (Status s = write_down(slot); !s.ok()) return s;
      --dirty_;
      erase(table_.find(key, hash));
    } else {
      erase(slot);
    }
    if (done()) break;
  }
  return {};
}

Result<std::size_t> CachingStore::make_room(std::size_t bytes, std::string_view key,
                                            std::size_t hash, std::size_t slot) {
  // Slots move as entries go: find the entry afresh for each look at its need.
  auto need = [&] { return extra_for(bytes, table_.find(key, hash)); };
  if (slot == CacheTable::kNone) {
    if (Status s = cache_->make_room(*this, need); !s.ok()) return error(std::move(s));
    return table_.find(key, hash);
  }
  {
    PinnedEntry pin(table_.block(slot));
    if (Status s = cache_->make_room(*this, need); !s.ok()) return error(std::move(s));
  }
  return table_.find(key, hash);
}

std::size_t CachingStore::extra_for(std::size_t bytes, std::size_t slot) const {
  if (slot == CacheTable::kNone) return bytes + index_growth();
  const std::size_t charged = CacheEntry::charge(table_.block(slot));
  return bytes > charged ? bytes - charged : 0;
}

std::size_t CachingStore::cache_clean(std::string_view key, std::size_t hash,
                                      std::string_view value) {
  const std::size_t bytes = CacheEntry::estimate(key, std::nullopt, value, {}, false);
  if (!cache_->fits(extra_for(bytes, CacheTable::kNone))) return CacheTable::kNone;
  const std::size_t slot = insert(CacheEntry::make(key, std::nullopt, value, {}, false), hash);
  // malloc may have given more than estimated: then the entry goes again rather than
  // evicting others for a read.
  if (cache_->fits(0)) return slot;
  erase(slot);
  return CacheTable::kNone;
}

Status CachingStore::settle(std::size_t slot) {
  if (cache_->fits(0)) return {};
  PinnedEntry pin(table_.block(slot));
  return cache_->make_room(*this, [] { return std::size_t{0}; });
}

std::size_t CachingStore::insert(char* block, std::size_t hash) {
  const std::size_t index = table_.bytes();
  const std::size_t slot = table_.insert(block, hash);
  std::size_t bytes = CacheEntry::charge(block) + table_.bytes() - index;
  if (ordered_) {
    ordered_->blocks.insert(block);
    bytes += OrderedIndex::kEntryBytes;
  }
  recharge(static_cast<std::ptrdiff_t>(bytes));
  return slot;
}

void CachingStore::rewrite(std::size_t slot, KnownBelow below,
                           std::optional<std::string_view> value, std::string_view headers,
                           bool dirty) {
  char* old = table_.block(slot);
  const std::size_t charged = CacheEntry::charge(old);
  auto hint = ordered_ ? ordered_->blocks.find(old) : decltype(ordered_->blocks)::iterator();
  char* fresh = CacheEntry::rewrite(old, below, value, headers, dirty);
  if (fresh != old) {
    table_.set_block(slot, fresh);
    if (ordered_) ordered_->blocks.insert(ordered_->blocks.erase(hint), fresh);
  }
  table_.mark(slot, CacheTable::kDirty, dirty);
  recharge(static_cast<std::ptrdiff_t>(CacheEntry::charge(fresh)) -
           static_cast<std::ptrdiff_t>(charged));
}

void CachingStore::erase(std::size_t slot) {
  char* block = table_.block(slot);
  std::size_t bytes = CacheEntry::charge(block);
  if (ordered_) {
    ordered_->blocks.erase(block);
    bytes += OrderedIndex::kEntryBytes;
  }
  table_.erase(slot);
  CacheEntry::destroy(block);
  recharge(-static_cast<std::ptrdiff_t>(bytes));
}

Status CachingStore::write_down(std::size_t slot) {
  char* block = table_.block(slot);
  PinnedEntry pin(block);
  const auto entry = CacheEntry::view(block);
  return write_through(entry.key, entry.value, entry.below, entry.headers);
}

Status CachingStore::write_through(std::string_view key, std::optional<std::string_view> value,
                                   KnownBelow below, std::string_view headers) {
  std::optional<std::string> read;
  if (!below) {
    auto old = inner_->get(key);
    if (!old) return old.error();
    read = std::move(*old);
    below = read ? std::optional<std::string_view>(*read) : std::nullopt;
  }
  if (!*below && !value) return {};  // nothing to change below, nothing to tell
  if (Status s = inner_->put(key, value); !s.ok()) return s;
  if (!listener_) return {};
  auto decoded = decode_headers(headers);
  if (!decoded) {
    return Status::internal(fmt::format("store {}: the cached headers of a key are damaged: {}",
                                        name(), decoded.error().message()));
  }
  RecordCache::WriteDown running_downstream(*cache_);
  listener_(key, value, *below, *decoded);
  return {};
}

std::size_t CachingStore::index_growth() const {
  return table_.growth_for_insert() + (ordered_ ? OrderedIndex::kEntryBytes : 0);
}

void CachingStore::recharge(std::ptrdiff_t delta) {
  charged_ = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(charged_) + delta);
  if (delta >= 0) {
    cache_->charge(static_cast<std::size_t>(delta));
  } else {
    cache_->release(static_cast<std::size_t>(-delta));
  }
}

std::string_view CachingStore::current_headers() {
  if (headers_ == nullptr || headers_->empty()) return {};
  encoded_headers_.clear();
  append_headers(encoded_headers_, *headers_);
  return encoded_headers_;
}

}  // namespace brook::internal
