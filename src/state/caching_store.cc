#include "state/caching_store.h"

#include <fmt/format.h>

namespace brook::internal {

CachingStore::CachingStore(std::unique_ptr<KeyValueBytesStore> inner,
                           std::shared_ptr<CacheBudget> budget)
    : inner_(std::move(inner)), budget_(std::move(budget)) {}

CachingStore::~CachingStore() { budget_->release(bytes_); }

Result<std::optional<std::string>> CachingStore::get(std::string_view key) {
  if (auto it = entries_.find(key); it != entries_.end()) {
    touch(*it);
    return it->second.value;
  }
  auto below = inner_->get(key);
  if (!below || !*below) return below;
  const std::size_t take = CacheBudget::entry_bytes(key.size(), (*below)->size());
  if (Status s = make_room(nullptr, 0, take); !s.ok()) return error(std::move(s));
  if (budget_->fits(0, take)) {
    auto it = entries_.emplace(std::string(key), Entry{.value = **below}).first;
    link_newest(*it);
    budget_->take(take);
    bytes_ += take;
  }
  return below;
}

Status CachingStore::put(std::string_view key, std::optional<std::string_view> value) {
  auto it = entries_.find(key);
  const bool cached = it != entries_.end();
  const std::size_t release = cached ? charge(*it) : 0;
  // A clean entry's value becomes its known value below; a dirty one keeps what it knows.
  const KnownBelow below = cached ? known_below(it->second) : std::nullopt;
  const std::size_t below_bytes = below && *below ? (*below)->size() : 0;
  const std::size_t take =
      CacheBudget::entry_bytes(key.size(), (value ? value->size() : 0) + below_bytes);
  if (Status s = make_room(cached ? &*it : nullptr, release, take); !s.ok()) return s;
  if (!budget_->fits(release, take)) {  // too big even alone: straight down
    if (Status s = write_down(key, value, below); !s.ok()) return s;
    if (cached) erase(it);
    return {};
  }
  if (!cached) {
    it = entries_.emplace(std::string(key), Entry{}).first;
    link_newest(*it);
  } else {
    touch(*it);
  }
  Entry& entry = it->second;
  if (!entry.dirty) {
    entry.below_known = cached;
    entry.below = std::move(entry.value);
    entry.dirty = true;
    dirty_.insert(&*it);
  }
  entry.value = value;
  budget_->release(release);
  budget_->take(take);
  bytes_ = bytes_ - release + take;
  return {};
}

Status CachingStore::scan(const KeyRange& range, const ScanVisitor& visit) {
  auto cached = range.from ? entries_.lower_bound(*range.from) : entries_.begin();
  auto cached_in_range = [&] {
    return cached != entries_.end() && (!range.to || cached->first <= *range.to);
  };
  bool stopped = false;
  // Visits the cached entry at `cached` unless it is a tombstone, and moves past it.
  auto visit_cached = [&] {
    const Node& node = *cached++;
    stopped = node.second.value && !visit(node.first, *node.second.value);
    return !stopped;
  };
  Status status = inner_->scan(range, [&](std::string_view key, std::string_view value) {
    while (cached_in_range() && cached->first < key) {
      if (!visit_cached()) return false;
    }
    if (cached_in_range() && cached->first == key) return visit_cached();
    stopped = !visit(key, value);
    return !stopped;
  });
  if (!status.ok() || stopped) return status;
  while (cached_in_range() && visit_cached()) {
  }
  return {};
}

Status CachingStore::flush() {
  while (!dirty_.empty()) {
    Node& node = **dirty_.begin();
    Entry& entry = node.second;
    if (Status s = write_down(node.first, entry.value, known_below(entry)); !s.ok()) return s;
    dirty_.erase(dirty_.begin());
    entry.dirty = false;
    if (!entry.value) {  // absent below now, like a key never read
      erase(entries_.find(node.first));
      continue;
    }
    const std::size_t below_bytes = entry.below ? entry.below->size() : 0;
    budget_->release(below_bytes);
    bytes_ -= below_bytes;
    entry.below_known = false;
    entry.below.reset();
  }
  return inner_->flush();
}

Status CachingStore::commit(std::optional<Offset> changelog_next) {
  if (!dirty_.empty()) {
    return Status::failed_precondition(fmt::format(
        "store {}: commit with {} unflushed cache entries (flush() first)", name(), dirty_.size()));
  }
  return inner_->commit(changelog_next);
}

std::size_t CachingStore::charge(const Node& node) {
  const Entry& entry = node.second;
  return CacheBudget::entry_bytes(node.first.size(), (entry.value ? entry.value->size() : 0) +
                                                         (entry.below ? entry.below->size() : 0));
}

CachingStore::KnownBelow CachingStore::known_below(const Entry& entry) {
  if (entry.dirty && !entry.below_known) return std::nullopt;
  const auto& below = entry.dirty ? entry.below : entry.value;  // clean: the value is below
  return below ? std::optional<std::string_view>(*below) : std::nullopt;
}

void CachingStore::link_newest(Node& node) {
  node.second.older = newest_;
  node.second.newer = nullptr;
  (newest_ ? newest_->second.newer : oldest_) = &node;
  newest_ = &node;
}

void CachingStore::unlink(Node& node) {
  Entry& entry = node.second;
  (entry.older ? entry.older->second.newer : oldest_) = entry.newer;
  (entry.newer ? entry.newer->second.older : newest_) = entry.older;
}

void CachingStore::touch(Node& node) {
  if (&node == newest_) return;
  unlink(node);
  link_newest(node);
}

CachingStore::Entries::iterator CachingStore::erase(Entries::iterator it) {
  unlink(*it);
  const std::size_t bytes = charge(*it);
  budget_->release(bytes);
  bytes_ -= bytes;
  if (it->second.dirty) dirty_.erase(&*it);
  return entries_.erase(it);
}

Status CachingStore::make_room(const Node* keep, std::size_t release, std::size_t take) {
  while (!budget_->fits(release, take)) {
    Node* victim = oldest_;
    if (victim != nullptr && victim == keep) victim = victim->second.newer;
    if (victim == nullptr) break;
    if (victim->second.dirty) {
      if (Status s = write_down(victim->first, victim->second.value, known_below(victim->second));
          !s.ok()) {
        return s;
      }
    }
    erase(entries_.find(victim->first));
  }
  return {};
}

Status CachingStore::write_down(std::string_view key, std::optional<std::string_view> value,
                                KnownBelow below) {
  std::optional<std::string> read;
  if (!below) {
    auto old = inner_->get(key);
    if (!old) return old.error();
    read = std::move(*old);
    below = read ? std::optional<std::string_view>(*read) : std::nullopt;
  }
  if (!*below && !value) return {};  // nothing to change below, nothing to tell
  if (Status s = inner_->put(key, value); !s.ok()) return s;
  if (listener_) listener_(key, value, *below);
  return {};
}

}  // namespace brook::internal
