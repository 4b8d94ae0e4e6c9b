#include "state/cache_table.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "state/cache_entry.h"

namespace brook::internal {
namespace {

constexpr std::size_t kMinCapacity = 16;
constexpr std::uint8_t kTagBits = 0x1f;
constexpr std::size_t kMaxDistance = 255;  // a longer probe grows the table

// At most 4/5 of the slots hold entries.
bool too_full(std::size_t size, std::size_t capacity) { return size * 5 > capacity * 4; }

}  // namespace

std::size_t CacheTable::hash(std::string_view key) { return std::hash<std::string_view>()(key); }

std::size_t CacheTable::growth_for_insert() const {
  if (capacity() == 0) return kMinCapacity * kSlotBytes;
  return too_full(size_ + 1, capacity()) ? bytes() : 0;
}

std::size_t CacheTable::find(std::string_view key, std::size_t hash) const {
  if (size_ == 0) return kNone;
  const std::size_t mask = capacity() - 1;
  const std::uint8_t want = tag(hash);
  for (std::size_t slot = home(hash);; slot = (slot + 1) & mask) {
    const std::uint8_t control = control_[slot];
    if (control == 0) return kNone;
    if ((control & kTagBits) == want && CacheEntry::key(blocks_[slot]) == key) return slot;
  }
}

void CacheTable::prefetch_slots(std::size_t hash) const {
  if (size_ == 0) return;
  const std::size_t slot = home(hash);
  __builtin_prefetch(&control_[slot]);
  __builtin_prefetch(&blocks_[slot]);
}

void CacheTable::prefetch_entries(std::size_t hash) const {
  if (size_ == 0) return;
  constexpr std::size_t kSlots = 4;  // most runs are shorter
  const std::size_t mask = capacity() - 1;
  const std::uint8_t want = tag(hash);
  std::size_t slot = home(hash);
  for (std::size_t i = 0; i < kSlots && control_[slot] != 0; ++i, slot = (slot + 1) & mask) {
    if ((control_[slot] & kTagBits) == want) __builtin_prefetch(blocks_[slot]);
  }
}

std::size_t CacheTable::insert(char* block, std::size_t hash) {
  if (capacity() == 0) {
    rehash(kMinCapacity);
  } else if (too_full(size_ + 1, capacity())) {
    rehash(capacity() * 2);
  }
  while (true) {
    const std::size_t mask = capacity() - 1;
    const std::size_t start = home(hash);
    std::size_t distance = 0;
    while (control_[(start + distance) & mask] != 0 && distance <= kMaxDistance) ++distance;
    if (distance > kMaxDistance) {  // a pathological run: spread the entries out
      rehash(capacity() * 2);
      continue;
    }
    const std::size_t slot = (start + distance) & mask;
    control_[slot] = static_cast<std::uint8_t>(kOccupied | tag(hash));
    distance_[slot] = static_cast<std::uint8_t>(distance);
    blocks_[slot] = block;
    ++size_;
    return slot;
  }
}

void CacheTable::erase(std::size_t slot) {
  ++layout_;
  const std::size_t mask = capacity() - 1;
  // Backward shift: each later entry of the run moves into the gap if that is still at or
  // after its home slot (its distance from home says so), so every entry stays reachable.
  std::size_t gap = slot;
  for (std::size_t next = (gap + 1) & mask; control_[next] != 0; next = (next + 1) & mask) {
    const std::size_t back = (next - gap) & mask;  // how far it would move
    if (distance_[next] < back) continue;
    control_[gap] = control_[next];
    distance_[gap] = static_cast<std::uint8_t>(distance_[next] - back);
    blocks_[gap] = blocks_[next];
    gap = next;
  }
  control_[gap] = 0;
  distance_[gap] = 0;
  blocks_[gap] = nullptr;
  --size_;
}

void CacheTable::reserve(std::size_t entries) {
  std::size_t target = std::max(kMinCapacity, capacity());
  while (too_full(entries, target)) target *= 2;
  if (target > capacity()) rehash(target);
}

bool CacheTable::shrink() {
  if (capacity() <= kMinCapacity || size_ * 5 > capacity()) return false;
  std::size_t target = capacity() / 2;
  while (target > kMinCapacity && size_ * 5 <= target) target /= 2;
  rehash(target);
  return true;
}

void CacheTable::rehash(std::size_t new_capacity) {
  ++layout_;
  std::vector<std::uint8_t> control(new_capacity, 0);
  std::vector<std::uint8_t> distance(new_capacity, 0);
  std::vector<char*> blocks(new_capacity, nullptr);
  std::swap(control, control_);
  std::swap(distance, distance_);
  std::swap(blocks, blocks_);
  size_ = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (control[i] == 0) continue;
    const std::size_t slot = insert(blocks[i], hash(CacheEntry::key(blocks[i])));
    control_[slot] = control[i];  // keeps the marks
  }
}

}  // namespace brook::internal
