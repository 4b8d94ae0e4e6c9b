#include "state/record_cache.h"

#include <algorithm>

#include "state/caching_store.h"

namespace brook::internal {

void RecordCache::add(CachingStore& store) { stores_.push_back(&store); }

void RecordCache::remove(CachingStore& store) {
  std::erase(stores_, &store);
  next_store_ = 0;
}

Status RecordCache::make_room(CachingStore& requester, const std::function<std::size_t()>& need) {
  // A batch: down to 15/16 of the budget, so that the next insertions find room.
  const std::size_t goal = max_bytes_ - max_bytes_ / 16;
  auto done = [&] {
    const std::size_t extra = need();
    return used_bytes_ + extra <= (extra > goal ? max_bytes_ : goal);
  };
  // Clean entries of every store, once around each (spared if used since the last sweep);
  // then the requester's dirty entries, around twice; then clean entries again.
  auto sweep_clean = [&]() -> Status {
    for (std::size_t i = 0; i < stores_.size() && !done(); ++i) {
      CachingStore& store = *stores_[next_store_ % stores_.size()];
      next_store_ = (next_store_ + 1) % stores_.size();
      if (auto s = store.evict(false, 1, done); !s.ok()) return s;
    }
    return {};
  };
  if (auto s = sweep_clean(); !s.ok() || done()) return s;
  if (!writing_down()) {
    if (auto s = requester.evict(true, 2, done); !s.ok() || done()) return s;
  }
  return sweep_clean();
}

}  // namespace brook::internal
