#include "state/cache_table.h"

#include <functional>
#include <utility>

#include "state/cache_entry.h"

namespace brook::internal {
namespace {

constexpr std::size_t kMinCapacity = 16;
constexpr std::uint8_t kTagBits = 0x1f;

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

std::size_t CacheTable::insert(char* block, std::size_t hash) {
  if (capacity() == 0) {
    rehash(kMinCapacity);
  } else if (too_full(size_ + 1, capacity())) {
    rehash(capacity() * 2);
  }
  const std::size_t mask = capacity() - 1;
  std::size_t slot = home(hash);
  while (control_[slot] != 0) slot = (slot + 1) & mask;
  control_[slot] = static_cast<std::uint8_t>(kOccupied | tag(hash));
  blocks_[slot] = block;
  ++size_;
  return slot;
}

void CacheTable::erase(std::size_t slot) {
  const std::size_t mask = capacity() - 1;
  // Backward shift: move each later entry of the run into the gap if the gap lies between its
  // home slot and its slot (cyclically), so every entry stays reachable from its home.
  std::size_t gap = slot;
  for (std::size_t next = (gap + 1) & mask; control_[next] != 0; next = (next + 1) & mask) {
    const std::size_t next_home = home(hash(CacheEntry::key(blocks_[next])));
    const bool movable = ((next - next_home) & mask) >= ((next - gap) & mask);
    if (!movable) continue;
    control_[gap] = control_[next];
    blocks_[gap] = blocks_[next];
    gap = next;
  }
  control_[gap] = 0;
  blocks_[gap] = nullptr;
  --size_;
}

bool CacheTable::shrink() {
  if (capacity() <= kMinCapacity || size_ * 5 > capacity()) return false;
  std::size_t target = capacity() / 2;
  while (target > kMinCapacity && size_ * 5 <= target) target /= 2;
  rehash(target);
  return true;
}

void CacheTable::rehash(std::size_t new_capacity) {
  std::vector<std::uint8_t> control(new_capacity, 0);
  std::vector<char*> blocks(new_capacity, nullptr);
  std::swap(control, control_);
  std::swap(blocks, blocks_);
  const std::size_t mask = new_capacity - 1;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (control[i] == 0) continue;
    std::size_t slot = hash(CacheEntry::key(blocks[i])) & mask;
    while (control_[slot] != 0) slot = (slot + 1) & mask;
    control_[slot] = control[i];
    blocks_[slot] = blocks[i];
  }
}

}  // namespace brook::internal
