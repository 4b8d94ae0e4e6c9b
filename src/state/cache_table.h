// The index of one caching store's entries (state/cache_entry.h): open addressing with linear
// probing over three arrays, per slot a control byte, the entry's distance from its home slot
// and its block pointer. A control byte is 0 for an empty slot, else kOccupied | kDirty? |
// kReferenced? | 5 bits of the key's hash, so a probe, a flush looking for dirty entries and
// the eviction sweep read the bytes alone. Erasing shifts the later entries of its run back,
// told by their distances where they may go (no hashing, no tombstones), so slots move: hold
// none across anything that may erase or insert. At most 4/5 full; grows by doubling. Not
// thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace brook::internal {

class CacheTable {
 public:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  static constexpr std::uint8_t kOccupied = 0x80;
  static constexpr std::uint8_t kDirty = 0x40;
  static constexpr std::uint8_t kReferenced = 0x20;

  static std::size_t hash(std::string_view key);
  // The bytes one slot costs.
  static constexpr std::size_t kSlotBytes = 2 * sizeof(std::uint8_t) + sizeof(char*);

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return blocks_.size(); }
  // The memory of the two arrays.
  std::size_t bytes() const { return capacity() * kSlotBytes; }
  // What bytes() grows by if one more entry is inserted now.
  std::size_t growth_for_insert() const;

  // The slot of the entry for `key` (whose hash is `hash`), or kNone.
  std::size_t find(std::string_view key, std::size_t hash) const;
  // Starts loading the slots a find() of a key with `hash` reads first.
  void prefetch_slots(std::size_t hash) const;
  // Starts loading the entries of those slots whose tags match `hash`; best some time after
  // prefetch_slots(hash), once the slots have arrived.
  void prefetch_entries(std::size_t hash) const;
  // Adds `block` for a key that is not in the table (growing it if need be); returns its slot.
  std::size_t insert(char* block, std::size_t hash);
  // Removes the entry in `slot` (the caller frees its block).
  void erase(std::size_t slot);
  // Grows the arrays, if need be, so that `entries` entries in all fit without growing again.
  void reserve(std::size_t entries);
  // Halves the arrays while at most 1/5 full; false if nothing changed.
  bool shrink();

  // Changes whenever entries may have moved to other slots (an erase or a rehash; an insert
  // moves none): a slot found while it stays the same is still the entry's.
  std::uint64_t layout() const { return layout_; }

  bool occupied(std::size_t slot) const { return (control_[slot] & kOccupied) != 0; }
  char* block(std::size_t slot) const { return blocks_[slot]; }
  void set_block(std::size_t slot, char* block) { blocks_[slot] = block; }
  bool has(std::size_t slot, std::uint8_t mark) const { return (control_[slot] & mark) != 0; }
  void mark(std::size_t slot, std::uint8_t mark, bool on) {
    control_[slot] =
        static_cast<std::uint8_t>(on ? (control_[slot] | mark) : (control_[slot] & ~mark));
  }

 private:
  static std::uint8_t tag(std::size_t hash) { return static_cast<std::uint8_t>(hash >> 59); }
  std::size_t home(std::size_t hash) const { return hash & (capacity() - 1); }
  void rehash(std::size_t capacity);

  std::vector<std::uint8_t> control_;
  std::vector<std::uint8_t> distance_;  // of each entry from its home slot
  std::vector<char*> blocks_;
  std::size_t size_ = 0;
  std::uint64_t layout_ = 0;
};

}  // namespace brook::internal
