#include "brook/internal/suppression_buffer.h"

#include <fmt/format.h>

#include <set>
#include <unordered_map>
#include <utility>

#include "brook/internal/coding.h"
#include "brook/internal/headers_codec.h"
#include "brook/state_store.h"

namespace brook::internal {
namespace {

// A row of the buffer's store (BufferedChangeSerde's layout):
//   [8-byte due][8-byte timestamp][4-byte headers length][headers][change]
constexpr std::size_t kRowHeaderBytes = 20;
// A change (ChangeSerde's layout): [flags: bit 0 new, bit 1 old][4-byte new length][new][old]
constexpr std::size_t kChangeHeaderBytes = 5;
constexpr char kNewPresent = 1, kOldPresent = 2;

// A row's parts, checked against its size.
struct Row {
  Timestamp due;
  Timestamp timestamp;
  std::string_view headers;
  std::string_view change;
};

// A change's parts, checked against its size.
struct ChangeParts {
  char flags = 0;
  std::string_view new_bytes;
  std::string_view old_bytes;
};

Timestamp time_at(std::string_view bytes) {
  return Timestamp(static_cast<std::int64_t>(get_big_endian<std::uint64_t>(bytes.data())));
}

std::optional<ChangeParts> parse_change(std::string_view bytes) {
  if (bytes.size() < kChangeHeaderBytes || static_cast<unsigned char>(bytes[0]) > 3) return {};
  const auto n = get_big_endian<std::uint32_t>(bytes.data() + 1);
  if (n > bytes.size() - kChangeHeaderBytes) return {};
  return ChangeParts{.flags = bytes[0],
                     .new_bytes = bytes.substr(kChangeHeaderBytes, n),
                     .old_bytes = bytes.substr(kChangeHeaderBytes + n)};
}

std::optional<Row> parse_row(std::string_view bytes) {
  if (bytes.size() < kRowHeaderBytes) return {};
  const auto headers = get_big_endian<std::uint32_t>(bytes.data() + 16);
  if (headers > bytes.size() - kRowHeaderBytes) return {};
  const auto change = bytes.substr(kRowHeaderBytes + headers);
  if (!parse_change(change)) return {};
  return Row{.due = time_at(bytes),
             .timestamp = time_at(bytes.substr(8)),
             .headers = bytes.substr(kRowHeaderBytes, headers),
             .change = change};
}

// `bytes` as a row of the store `store`; StoreError if it is malformed.
Row checked_row(std::string_view bytes, const std::string& store) {
  auto row = parse_row(bytes);
  if (!row) {
    throw_store_error(store, Status::corruption(fmt::format(
                                 "buffered change of {} bytes, malformed", bytes.size())));
  }
  return *row;
}

// The row held for `key` in `store`, read into `buffer`; StoreError if there is none.
Row read_held(KeyValueBytesStore& store, std::string_view key, std::string& buffer) {
  if (!value_or_throw(store.get_into(key, buffer), store.name())) {
    throw_store_error(store.name(), Status::corruption(fmt::format(
                                        "a held key of {} bytes is not in the store", key.size())));
  }
  return checked_row(buffer, store.name());
}

// Hashes std::string and std::string_view alike, so that lookups need no string.
struct KeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view key) const { return std::hash<std::string_view>()(key); }
};

}  // namespace

// Each held key's due time and row size, and the keys by due time.
struct SuppressionBuffer::Index {
  struct Held {
    Timestamp due;
    std::int64_t bytes;
  };
  using Map = std::unordered_map<std::string, Held, KeyHash, std::equal_to<>>;
  Map held;
  std::set<std::pair<Timestamp, std::string>> by_due;
  std::int64_t bytes = 0;
  bool loaded = false;

  void remember(std::string key, Timestamp due, std::size_t size) {
    by_due.emplace(due, key);
    held[std::move(key)] = {due, static_cast<std::int64_t>(size)};
    bytes += static_cast<std::int64_t>(size);
  }
  void forget(Map::iterator it) {
    by_due.erase({it->second.due, it->first});
    bytes -= it->second.bytes;
    held.erase(it);
  }
};

SuppressionBuffer::SuppressionBuffer(std::string store_name, BufferConfig bounds, Emit emit)
    : store_name_(std::move(store_name)),
      bounds_(bounds),
      emit_(std::move(emit)),
      index_(std::make_unique<Index>()) {}

SuppressionBuffer::~SuppressionBuffer() = default;

void SuppressionBuffer::attach(KeyValueBytesStore& store) { store_ = &store; }

void SuppressionBuffer::hold(std::string_view key, std::string_view change, Timestamp due,
                             Timestamp timestamp, const Headers& headers, Timestamp stream_time) {
  load_index();
  auto update = parse_change(change);
  if (!update) {
    throw_store_error(store_name_, Status::invalid_argument(fmt::format(
                                       "a change of {} bytes to hold, malformed", change.size())));
  }
  std::string_view old_bytes = update->old_bytes;
  char old_flag = static_cast<char>(update->flags & kOldPresent);
  if (auto it = index_->held.find(key); it != index_->held.end()) {
    // The key's first held update sets when it is due and what it changed from.
    const Row row = read_held(*store_, key, held_);
    const auto before = parse_change(row.change);
    due = row.due;
    old_bytes = before->old_bytes;
    old_flag = static_cast<char>(before->flags & kOldPresent);
    index_->forget(it);
  }
  const char flags = static_cast<char>((update->flags & kNewPresent) | old_flag);
  if (flags == 0) {
    ok_or_throw(store_->put(key, std::nullopt), store_name_);  // nothing changed in the end
  } else {
    row_.clear();
    append_big_endian(row_, static_cast<std::uint64_t>(due.value()), 8);
    append_big_endian(row_, static_cast<std::uint64_t>(timestamp.value()), 8);
    append_big_endian(row_, encoded_headers_size(headers), 4);
    append_headers(row_, headers);
    row_.push_back(flags);
    append_big_endian(row_, update->new_bytes.size(), 4);
    row_.append(update->new_bytes).append(old_bytes);
    ok_or_throw(store_->put(key, row_), store_name_);
    index_->remember(std::string(key), due, key.size() + row_.size());
  }
  emit_due(stream_time);
  while (full()) {
    if (bounds_.when_full == BufferFull::kShutdown) {
      throw StoreError(fmt::format(
          "suppression buffer {} is full ({} records, {} bytes); raise its BufferConfig bounds "
          "or let it emit early",
          store_name_, index_->held.size(), index_->bytes));
    }
    emit_first();
  }
}

void SuppressionBuffer::emit_due(Timestamp stream_time) {
  load_index();
  while (!index_->by_due.empty() && index_->by_due.begin()->first <= stream_time) emit_first();
}

bool SuppressionBuffer::full() const {
  return (bounds_.max_records > 0 &&
          static_cast<std::int64_t>(index_->held.size()) > bounds_.max_records) ||
         (bounds_.max_bytes > 0 && index_->bytes > bounds_.max_bytes);
}

void SuppressionBuffer::emit_first() {
  const std::string key = index_->by_due.begin()->second;
  const Row row = read_held(*store_, key, held_);
  Headers headers = value_or_throw(decode_headers(row.headers), store_name_);
  ok_or_throw(store_->put(key, std::nullopt), store_name_);
  index_->forget(index_->held.find(key));
  emit_(key, row.change, row.timestamp, std::move(headers));
}

// The index is built from the store before the first use: the store is restored after init.
void SuppressionBuffer::load_index() {
  if (index_->loaded) return;
  index_->loaded = true;
  ok_or_throw(store_->scan({},
                           [&](std::string_view key, std::string_view value) {
                             index_->remember(std::string(key), checked_row(value, store_name_).due,
                                              key.size() + value.size());
                             return true;
                           }),
              store_name_);
}

}  // namespace brook::internal
