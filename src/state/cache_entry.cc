#include "state/cache_entry.h"

#include <malloc.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "core/allocator.h"

namespace brook::internal {
namespace {

char* put_varint(char* p, std::uint32_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

const char* get_varint(const char* p, std::uint32_t& v) {
  v = 0;
  for (int shift = 0;; shift += 7) {
    const auto byte = static_cast<unsigned char>(*p++);
    v |= static_cast<std::uint32_t>(byte & 0x7f) << shift;
    if (byte < 0x80) return p;
  }
}

std::uint32_t size_code(std::optional<std::string_view> bytes) {
  return bytes ? static_cast<std::uint32_t>(bytes->size()) + 1 : 0;
}

std::size_t varint_size(std::uint32_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// The below bytes a block stores: only a dirty entry's known value below.
std::optional<std::string_view> stored_below(const KnownBelow& below, bool dirty) {
  return dirty && below ? *below : std::nullopt;
}

std::size_t block_size(std::string_view key, std::optional<std::string_view> below,
                       std::optional<std::string_view> value, std::string_view headers) {
  const auto key_code = static_cast<std::uint32_t>(key.size());
  const auto headers_code = static_cast<std::uint32_t>(headers.size());
  return 1 + varint_size(key_code) + varint_size(size_code(below)) + varint_size(size_code(value)) +
         varint_size(headers_code) + key.size() + (below ? below->size() : 0) +
         (value ? value->size() : 0) + headers.size();
}

// Copies `bytes` to `to` unless they are there already; empty views may have no data at all.
void copy(char* to, std::string_view bytes) {
  if (!bytes.empty() && bytes.data() != to) std::memcpy(to, bytes.data(), bytes.size());
}

// Writes the entry into `block` (large enough). `key` may be the block's own key (a rewrite):
// it stays where it is; the other parts must not alias the block.
void write(char* block, std::uint8_t flags, std::string_view key,
           std::optional<std::string_view> below, std::optional<std::string_view> value,
           std::string_view headers) {
  char* p = block;
  *p++ = static_cast<char>(flags);
  p = put_varint(p, static_cast<std::uint32_t>(key.size()));
  copy(p, key);
  p += key.size();
  p = put_varint(p, size_code(below));
  p = put_varint(p, size_code(value));
  p = put_varint(p, static_cast<std::uint32_t>(headers.size()));
  auto append = [&](std::string_view bytes) {
    copy(p, bytes);
    p += bytes.size();
  };
  if (below) append(*below);
  if (value) append(*value);
  append(headers);
}

// What the cache charges for a block beyond the bytes malloc made usable: the allocator's own
// bookkeeping (glibc's chunk header; jemalloc keeps less per block, counted the same).
constexpr std::size_t kBookkeeping = sizeof(std::size_t);

// Blocks this much larger than their content are shrunk.
constexpr std::size_t kShrinkSlack = CacheEntry::kCleanSlack;

char* shrink(char* block, std::size_t size) {
  auto* smaller = static_cast<char*>(std::realloc(block, size));
  return smaller == nullptr ? block : smaller;  // a failed shrink leaves the block as it was
}

char* allocate(std::size_t size) {
  auto* block = static_cast<char*>(std::malloc(size));
  if (block == nullptr) throw std::bad_alloc();
  return block;
}

}  // namespace

char* CacheEntry::make(std::string_view key, KnownBelow below,
                       std::optional<std::string_view> value, std::string_view headers,
                       bool dirty) {
  const auto stored = stored_below(below, dirty);
  char* block = allocate(block_size(key, stored, value, headers));
  const std::uint8_t flags = (dirty ? kDirty : 0) | (dirty && below ? kBelowKnown : 0);
  write(block, flags, key, stored, value, headers);
  return block;
}

char* CacheEntry::rewrite(char* block, KnownBelow below, std::optional<std::string_view> value,
                          std::string_view headers, bool dirty) {
  const auto stored = stored_below(below, dirty);
  const std::string_view key = CacheEntry::key(block);
  const std::size_t size = block_size(key, stored, value, headers);
  const std::uint8_t flags =
      static_cast<std::uint8_t>((CacheEntry::flags(block) & kPinned) | (dirty ? kDirty : 0) |
                                (dirty && below ? kBelowKnown : 0));
  if (size <= malloc_usable_size(block)) {
    // The parts may be views into this very block: copy them out of its way first.
    std::array<char, 256> small;
    std::string large;
    const std::size_t parts =
        (stored ? stored->size() : 0) + (value ? value->size() : 0) + headers.size();
    char* scratch = small.data();
    if (parts > small.size()) {
      large.resize(parts);
      scratch = large.data();
    }
    char* end = scratch;
    auto keep = [&](std::optional<std::string_view> bytes) -> std::optional<std::string_view> {
      if (!bytes) return bytes;
      copy(end, *bytes);
      end += bytes->size();
      return std::string_view(end - bytes->size(), bytes->size());
    };
    const auto kept_below = keep(stored);
    const auto kept_value = keep(value);
    write(block, flags, key, kept_below, kept_value, *keep(headers));
    // Much smaller now (the value below is gone): give the tail back.
    if (malloc_usable_size(block) >= size + kShrinkSlack) return shrink(block, size);
    return block;
  }
  char* fresh = allocate(size);
  write(fresh, flags, key, stored, value, headers);
  std::free(block);
  return fresh;
}

bool CacheEntry::rewrites_in_place(const char* block, KnownBelow below,
                                   std::optional<std::string_view> value, std::string_view headers,
                                   bool dirty) {
  const std::size_t size = block_size(key(block), stored_below(below, dirty), value, headers);
  const std::size_t usable = malloc_usable_size(const_cast<char*>(block));
  return size <= usable && usable < size + kShrinkSlack;
}

void CacheEntry::destroy(char* block) { std::free(block); }

bool CacheEntry::mark_clean(char* block) {
  const View v = view(block);
  const std::size_t unread = (flags(block) & kBelowKnown) != 0 && *v.below
                                 ? (*v.below)->size() + v.headers.size()
                                 : v.headers.size();
  if (unread >= kCleanSlack) return false;
  *block = static_cast<char>(flags(block) & kPinned);
  return true;
}

std::size_t CacheEntry::estimate(std::string_view key, KnownBelow below,
                                 std::optional<std::string_view> value, std::string_view headers,
                                 bool dirty) {
  return usable_size(block_size(key, stored_below(below, dirty), value, headers)) + kBookkeeping;
}

std::size_t CacheEntry::charge(const char* block) {
  return malloc_usable_size(const_cast<char*>(block)) + kBookkeeping;
}

CacheEntry::View CacheEntry::view(const char* block) {
  View v;
  v.key = key(block);
  std::uint32_t below_code, value_code, headers_size;
  const char* p = v.key.data() + v.key.size();
  p = get_varint(p, below_code);
  p = get_varint(p, value_code);
  p = get_varint(p, headers_size);
  std::optional<std::string_view> below;
  if (below_code > 0) {
    below = std::string_view(p, below_code - 1);
    p += below_code - 1;
  }
  if (value_code > 0) {
    v.value = std::string_view(p, value_code - 1);
    p += value_code - 1;
  }
  const std::uint8_t f = flags(block);
  if ((f & kDirty) == 0) {
    v.below = v.value;  // a block made clean in place may still store a below and headers
    return v;
  }
  v.headers = std::string_view(p, headers_size);
  if ((f & kBelowKnown) != 0) v.below = below;
  return v;
}

std::string_view CacheEntry::key(const char* block) {
  std::uint32_t key_size;
  const char* p = get_varint(block + 1, key_size);
  return {p, key_size};
}

}  // namespace brook::internal
