#include "brook/internal/suppression_buffer.h"

#include <fmt/format.h>

#include <set>
#include <utility>

#include "brook/internal/change.h"
#include "brook/internal/coding.h"
#include "brook/internal/headers_codec.h"
#include "brook/state_store.h"
#include "core/bytes_hash.h"

namespace brook::internal {
namespace {

constexpr std::size_t kRowHeadBytes = 20;  // due, timestamp, headers' length

// `bytes` as a row of the store `store` and its change; StoreError if either is malformed.
std::pair<BufferedRow, ChangeBytes> checked_row(std::string_view bytes, const std::string& store) {
  const auto row = split_buffered_row(bytes);
  const auto change = row ? split_change(row->change) : std::nullopt;
  if (!change) {
    throw_store_error(store, Status::corruption(fmt::format(
                                 "buffered change of {} bytes, malformed", bytes.size())));
  }
  return {*row, *change};
}

// The row held for `key` in `store` (named `name`), read into `buffer`; StoreError if there is
// none.
std::pair<BufferedRow, ChangeBytes> read_held(KeyValueBytesStore& store, const std::string& name,
                                              std::string_view key, std::string& buffer) {
  if (!value_or_throw(store.get_into(key, buffer), name)) {
    throw_store_error(name, Status::corruption(fmt::format(
                                "a held key of {} bytes is not in the store", key.size())));
  }
  return checked_row(buffer, name);
}

}  // namespace

std::optional<BufferedRow> split_buffered_row(std::string_view bytes) {
  if (bytes.size() < kRowHeadBytes) return std::nullopt;
  const auto headers = get_big_endian<std::uint32_t>(bytes.data() + 16);
  if (headers > bytes.size() - kRowHeadBytes) return std::nullopt;
  return BufferedRow{.due = get_time(bytes),
                     .timestamp = get_time(bytes.substr(8)),
                     .headers = bytes.substr(kRowHeadBytes, headers),
                     .change = bytes.substr(kRowHeadBytes + headers)};
}

void append_buffered_row_head(std::string& out, Timestamp due, Timestamp timestamp,
                              const Headers& headers) {
  put_time(out, due);
  put_time(out, timestamp);
  append_big_endian(out, encoded_headers_size(headers), 4);
  append_headers(out, headers);
}

// Each held key's due time and row size, and the keys by due time.
struct SuppressionBuffer::Index {
  struct Held {
    Timestamp due;
    std::int64_t bytes;
  };
  BytesMap<Held> held;
  std::set<std::pair<Timestamp, std::string>> by_due;
  std::int64_t bytes = 0;
  bool loaded = false;

  void remember(std::string key, Timestamp due, std::size_t size) {
    by_due.emplace(due, key);
    held[std::move(key)] = {due, static_cast<std::int64_t>(size)};
    bytes += static_cast<std::int64_t>(size);
  }
  void resize(Held& entry, std::size_t size) {
    bytes += static_cast<std::int64_t>(size) - entry.bytes;
    entry.bytes = static_cast<std::int64_t>(size);
  }
  void forget(BytesMap<Held>::iterator it) {
    by_due.erase({it->second.due, it->first});
    bytes -= it->second.bytes;
    held.erase(it);
  }
};

SuppressionBuffer::SuppressionBuffer(std::string store_name, BufferConfig bounds, Leaves leaves,
                                     Emit emit)
    : store_name_(std::move(store_name)),
      bounds_(bounds),
      leaves_(leaves),
      emit_(std::move(emit)),
      index_(std::make_unique<Index>()) {}

SuppressionBuffer::~SuppressionBuffer() = default;

void SuppressionBuffer::attach(KeyValueBytesStore& store) { store_ = &store; }

void SuppressionBuffer::hold(std::string_view key, std::string_view change, Timestamp due,
                             Timestamp timestamp, const Headers& headers, Timestamp stream_time) {
  load_index();
  const auto update = split_change(change);
  if (!update) {
    throw_store_error(store_name_, Status::invalid_argument(fmt::format(
                                       "a change of {} bytes to hold, malformed", change.size())));
  }
  std::optional<std::string_view> old_value = update->old_value;
  const auto held = index_->held.find(key);
  if (held != index_->held.end()) {
    // The key's first held update set when it is due and what it changed from.
    const auto [row, before] = read_held(*store_, store_name_, key, held_);
    due = row.due;
    old_value = before.old_value;
  }
  if (!update->new_value && !old_value) {  // nothing changed in the end
    ok_or_throw(store_->put(key, std::nullopt), store_name_);
    if (held != index_->held.end()) index_->forget(held);
  } else {
    row_.clear();
    append_buffered_row_head(row_, due, timestamp, headers);
    append_change(row_, update->new_value, old_value);
    ok_or_throw(store_->put(key, row_), store_name_);
    if (held != index_->held.end()) {
      index_->resize(held->second, key.size() + row_.size());  // still due when it was
    } else {
      index_->remember(std::string(key), due, key.size() + row_.size());
    }
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
  const auto [row, change] = read_held(*store_, store_name_, key, held_);
  Headers headers = value_or_throw(decode_headers(row.headers), store_name_);
  ok_or_throw(store_->put(key, std::nullopt), store_name_);
  index_->forget(index_->held.find(key));
  if (leaves_ == Leaves::kFinalResults && !change.new_value) return;
  emit_(key, row.change, row.timestamp, std::move(headers));
}

// The index is built from the store before the first use: the store is restored after init.
void SuppressionBuffer::load_index() {
  if (index_->loaded) return;
  index_->loaded = true;
  ok_or_throw(store_->scan({},
                           [&](std::string_view key, std::string_view value) {
                             index_->remember(std::string(key),
                                              checked_row(value, store_name_).first.due,
                                              key.size() + value.size());
                             return true;
                           }),
              store_name_);
}

}  // namespace brook::internal
