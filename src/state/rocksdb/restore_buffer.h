// Restoration's writes to a RocksDB store (rocksdb_store.h), held in memory until the store loads
// them in one go: the latest write of each key (a value or a deletion) and the range deletions
// that came before them. Every buffered write is newer than every range deletion that covers
// its key (a range deletion drops the buffered writes it covers), so loading applies the range
// deletions to the store first, then the writes.
//
// Compact, for restoring millions of records: each write is a record appended to an arena of
// 1 MiB chunks ([4-byte key size][4-byte value size][flags byte][key][value]; a rewrite of the
// same size overwrites its record, another appends a new one and marks the old one replaced),
// found through an open-addressing table of a hash code and a record pointer per slot (at most
// half full). No allocation per record, about 40 bytes per key besides its key and value bytes,
// and the records of a chunk are read in arena order for the sort that loading needs.
//
// Free of RocksDB; not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace brook::internal {

class RestoreBuffer {
 public:
  RestoreBuffer();
  ~RestoreBuffer();
  RestoreBuffer(const RestoreBuffer&) = delete;
  RestoreBuffer& operator=(const RestoreBuffer&) = delete;

  // Writes `value` to `key`; nullopt deletes the key.
  void put(std::string_view key, std::optional<std::string_view> value);
  // Deletes the keys in [from, to): those buffered now, and at loading those of the store.
  void delete_range(std::string from, std::string to);
  // Makes room for `keys` keys.
  void reserve(std::size_t keys);

  bool empty() const { return live_ == 0 && ranges_.empty(); }
  // The memory it takes, with what loading needs to sort it.
  std::size_t bytes() const;
  const std::vector<std::pair<std::string, std::string>>& ranges() const { return ranges_; }

  // Calls visit(key, value) for each buffered write, in key order if `sorted` (else in no
  // particular order); a deletion has no value.
  template <class Visit>
  void for_each(bool sorted, Visit visit) const {
    for (const char* record : sorted ? sorted_records() : records()) {
      visit(key_of(record), value_of(record));
    }
  }

  void clear();

 private:
  // Flags of a record.
  static constexpr std::uint8_t kDeleted = 1;   // a deletion (its value bytes are stale)
  static constexpr std::uint8_t kDropped = 2;   // dropped by a later range deletion
  static constexpr std::uint8_t kReplaced = 4;  // a later record of its key replaced it
  static constexpr std::size_t kHeaderBytes = 9;

  struct Slot {
    std::size_t hash = 0;
    char* record = nullptr;  // null: the slot is empty
  };
  struct Chunk {
    std::unique_ptr<char[]> bytes;
    std::size_t size = 0;
    std::size_t used = 0;
  };

  static std::uint32_t size_at(const char* record, std::size_t at);
  static std::uint8_t flags_of(const char* record) { return static_cast<std::uint8_t>(record[8]); }
  static void add_flags(char* record, std::uint8_t flags) { record[8] |= flags; }
  static std::string_view key_of(const char* record);
  static std::optional<std::string_view> value_of(const char* record);

  // The slot of `key` (hash `hash`): its record's, or the empty one where it would go.
  std::size_t find(std::string_view key, std::size_t hash) const;
  // A new record for `key` and `value` in the arena.
  char* append(std::string_view key, std::optional<std::string_view> value);
  void grow();
  // The records neither replaced nor dropped, in arena order, or in key order.
  std::vector<const char*> records() const;
  std::vector<const char*> sorted_records() const;

  std::vector<Chunk> chunks_;  // the last one fills up
  std::size_t arena_bytes_ = 0;
  std::vector<Slot> slots_;  // a power of two of them
  std::size_t live_ = 0;     // records in the table (the dropped ones too)
  std::vector<std::pair<std::string, std::string>> ranges_;  // [from, to), in order
};

}  // namespace brook::internal
