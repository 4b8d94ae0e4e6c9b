// One entry of the record cache, in a single heap block:
//
//   [flags: u8][key size][key][below size][value size][headers size][below][value][headers]
//
// sizes as LEB128 varints (the key first: finding it decodes one).
//
// `below` is the value the store below holds for the key, kept while the entry is dirty and
// that value is known (a clean entry's value is what is below); `value` is the entry's own
// (a dirty tombstone: absent); `headers` are those of the record that wrote the entry last
// (brook/internal/headers_codec.h). Absent values are encoded as size 0, present ones as
// size + 1. A block is charged to the cache budget at its real size: what malloc gave it plus
// 8 bytes of the allocator's bookkeeping. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace brook::internal {

// What the store below holds for a key, if known: nullopt unknown, else its value (nullopt:
// absent).
using KnownBelow = std::optional<std::optional<std::string_view>>;

class CacheEntry {
 public:
  enum Flag : std::uint8_t {
    kDirty = 1,       // written since the last write-down
    kBelowKnown = 2,  // dirty: `below` says what is below
    kPinned = 4,      // in use by an operation up the stack: not to be evicted
  };

  // A new block; `below` is stored only for a dirty entry.
  static char* make(std::string_view key, KnownBelow below, std::optional<std::string_view> value,
                    std::string_view headers, bool dirty);
  // The same key with new content: reuses `block` if it is large enough, else reallocates it
  // (the old pointer is then invalid; also when much of the block would be left unused).
  // Returns the block now holding the entry.
  static char* rewrite(char* block, KnownBelow below, std::optional<std::string_view> value,
                       std::string_view headers, bool dirty);
  // Whether rewrite() with this content surely returns `block` itself.
  static bool rewrites_in_place(const char* block, KnownBelow below,
                                std::optional<std::string_view> value, std::string_view headers,
                                bool dirty);
  static void destroy(char* block);
  // Makes a dirty entry clean, keeping its value, in place: the value below and the headers it
  // stores stay in the block, unread, if they take fewer than kCleanSlack bytes (then true);
  // else it changes nothing and returns false (rewrite() it, which gives that room back).
  static bool mark_clean(char* block);
  static constexpr std::size_t kCleanSlack = 64;

  // The bytes the block costs: its allocation and the allocator's bookkeeping.
  static std::size_t charge(const char* block);
  // charge() of the block make() would allocate for this content (core/allocator.h).
  static std::size_t estimate(std::string_view key, KnownBelow below,
                              std::optional<std::string_view> value, std::string_view headers,
                              bool dirty);

  static std::uint8_t flags(const char* block) { return static_cast<std::uint8_t>(*block); }
  static void set_flag(char* block, Flag flag, bool on) {
    *block = static_cast<char>(on ? (flags(block) | flag) : (flags(block) & ~flag));
  }
  static bool dirty(const char* block) { return (flags(block) & kDirty) != 0; }
  static bool pinned(const char* block) { return (flags(block) & kPinned) != 0; }

  // The parts of a block.
  struct View {
    std::string_view key;
    KnownBelow below;  // clean: the value itself
    std::optional<std::string_view> value;
    std::string_view headers;  // clean: none
  };
  static View view(const char* block);
  static std::string_view key(const char* block);
};

// Orders blocks by key (unsigned byte order, as the stores below), and blocks against keys:
// for an ordered index of blocks.
struct BlockKeyLess {
  using is_transparent = void;
  bool operator()(const char* a, const char* b) const {
    return CacheEntry::key(a) < CacheEntry::key(b);
  }
  bool operator()(const char* a, std::string_view b) const { return CacheEntry::key(a) < b; }
  bool operator()(std::string_view a, const char* b) const { return a < CacheEntry::key(b); }
};

// Keeps an entry from being evicted while in scope (an operation that may run downstream
// nodes, which may make room in the cache, still uses it).
class PinnedEntry {
 public:
  explicit PinnedEntry(char* block) : block_(block), was_pinned_(CacheEntry::pinned(block)) {
    CacheEntry::set_flag(block_, CacheEntry::kPinned, true);
  }
  ~PinnedEntry() { CacheEntry::set_flag(block_, CacheEntry::kPinned, was_pinned_); }
  PinnedEntry(const PinnedEntry&) = delete;
  PinnedEntry& operator=(const PinnedEntry&) = delete;

 private:
  char* block_;
  bool was_pinned_;
};

}  // namespace brook::internal
