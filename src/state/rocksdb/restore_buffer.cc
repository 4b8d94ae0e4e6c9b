#include "state/rocksdb/restore_buffer.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "brook/internal/coding.h"

namespace brook::internal {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
constexpr std::size_t kMinSlots = 1024;
constexpr std::size_t kSortEntryBytes = 24;  // what loading's sort takes per key

// The first 16 bytes of `key`, zero-padded, as two big-endian numbers: compared as numbers they
// order keys as memcmp does, except for keys equal in those bytes.
std::pair<std::uint64_t, std::uint64_t> prefix_of(std::string_view key) {
  char bytes[16] = {};
  std::memcpy(bytes, key.data(), std::min<std::size_t>(key.size(), sizeof bytes));
  return {get_big_endian<std::uint64_t>(bytes), get_big_endian<std::uint64_t>(bytes + 8)};
}

}  // namespace

RestoreBuffer::RestoreBuffer() = default;
RestoreBuffer::~RestoreBuffer() = default;

std::uint32_t RestoreBuffer::size_at(const char* record, std::size_t at) {
  std::uint32_t size;
  std::memcpy(&size, record + at, sizeof size);
  return size;
}

std::string_view RestoreBuffer::key_of(const char* record) {
  return {record + kHeaderBytes, size_at(record, 0)};
}

std::optional<std::string_view> RestoreBuffer::value_of(const char* record) {
  if ((flags_of(record) & kDeleted) != 0) return std::nullopt;
  return std::string_view(record + kHeaderBytes + size_at(record, 0), size_at(record, 4));
}

std::size_t RestoreBuffer::bytes() const {
  return arena_bytes_ + slots_.size() * sizeof(Slot) + live_ * kSortEntryBytes;
}

void RestoreBuffer::reserve(std::size_t keys) {
  while (slots_.size() < 2 * keys) grow();
}

void RestoreBuffer::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(std::max(kMinSlots, 2 * old.size()), Slot());
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.record == nullptr) continue;
    std::size_t i = slot.hash & mask;
    while (slots_[i].record != nullptr) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

std::size_t RestoreBuffer::find(std::string_view key, std::size_t hash) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.record == nullptr || (slot.hash == hash && key_of(slot.record) == key)) return i;
  }
}

char* RestoreBuffer::append(std::string_view key, std::optional<std::string_view> value) {
  const std::size_t size = kHeaderBytes + key.size() + (value ? value->size() : 0);
  if (chunks_.empty() || chunks_.back().used + size > chunks_.back().size) {
    const std::size_t chunk = std::max(kChunkBytes, size);
    chunks_.push_back({std::make_unique_for_overwrite<char[]>(chunk), chunk, 0});
    arena_bytes_ += chunk;
  }
  Chunk& last = chunks_.back();
  char* record = last.bytes.get() + last.used;
  last.used += size;
  const auto key_size = static_cast<std::uint32_t>(key.size());
  const auto value_size = static_cast<std::uint32_t>(value ? value->size() : 0);
  std::memcpy(record, &key_size, sizeof key_size);
  std::memcpy(record + 4, &value_size, sizeof value_size);
  record[8] = static_cast<char>(value ? 0 : kDeleted);
  std::memcpy(record + kHeaderBytes, key.data(), key.size());
  if (value) std::memcpy(record + kHeaderBytes + key.size(), value->data(), value->size());
  return record;
}

void RestoreBuffer::put(std::string_view key, std::optional<std::string_view> value) {
  if (2 * (live_ + 1) > slots_.size()) grow();
  const std::size_t hash = std::hash<std::string_view>()(key);
  Slot& slot = slots_[find(key, hash)];
  if (slot.record == nullptr) {
    slot = {hash, append(key, value)};
    ++live_;
    return;
  }
  char* record = slot.record;
  if ((flags_of(record) & kDropped) == 0 && (!value || value->size() == size_at(record, 4))) {
    record[8] = static_cast<char>(value ? 0 : kDeleted);  // rewritten in place
    if (value) std::memcpy(record + kHeaderBytes + key.size(), value->data(), value->size());
    return;
  }
  slot.record = append(key, value);
  add_flags(record, kReplaced);
}

void RestoreBuffer::delete_range(std::string from, std::string to) {
  if (from >= to) return;
  for (const Slot& slot : slots_) {
    if (slot.record == nullptr) continue;
    const std::string_view key = key_of(slot.record);
    if (key >= from && key < to) add_flags(slot.record, kDropped);
  }
  ranges_.emplace_back(std::move(from), std::move(to));
}

std::vector<const char*> RestoreBuffer::records() const {
  std::vector<const char*> out;
  out.reserve(live_);
  for (const Chunk& chunk : chunks_) {
    for (const char* record = chunk.bytes.get(); record < chunk.bytes.get() + chunk.used;) {
      if ((flags_of(record) & (kDropped | kReplaced)) == 0) out.push_back(record);
      record += kHeaderBytes + size_at(record, 0) + size_at(record, 4);
    }
  }
  return out;
}

std::vector<const char*> RestoreBuffer::sorted_records() const {
  struct Entry {
    std::pair<std::uint64_t, std::uint64_t> prefix;
    const char* record;
  };
  std::vector<Entry> entries;
  entries.reserve(live_);
  for (const char* record : records()) entries.push_back({prefix_of(key_of(record)), record});
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    return key_of(a.record) < key_of(b.record);
  });
  std::vector<const char*> sorted;
  sorted.reserve(entries.size());
  for (const Entry& entry : entries) sorted.push_back(entry.record);
  return sorted;
}

void RestoreBuffer::clear() {
  chunks_.clear();
  arena_bytes_ = 0;
  slots_.clear();
  slots_.shrink_to_fit();
  live_ = 0;
  ranges_.clear();
}

}  // namespace brook::internal
