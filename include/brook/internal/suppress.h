// The processor behind KTable::suppress(), and the serdes of its buffer. Not for users.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "brook/internal/change.h"
#include "brook/internal/headers_codec.h"
#include "brook/internal/window_keys.h"
#include "brook/processor.h"
#include "brook/suppressed.h"
#include "brook/windowed.h"

namespace brook::internal {

template <class T>
inline constexpr bool kIsWindowed = false;
template <class K>
inline constexpr bool kIsWindowed<Windowed<K>> = true;

// Timestamps as 8 big-endian bytes (any value: a due time may be far off).
inline void put_time(std::string& out, Timestamp t) {
  append_big_endian(out, static_cast<std::uint64_t>(t.value()), 8);
}
inline Timestamp get_time(std::string_view bytes) {
  return Timestamp(static_cast<std::int64_t>(read_big_endian(bytes.substr(0, 8))));
}

// A windowed key with its whole window: [key][8-byte start][8-byte end]. For stores that
// must give the key back exactly (the suppression buffer), unlike the topic layout.
template <class K>
class FullWindowedSerde final : public Serde<Windowed<K>> {
 public:
  explicit FullWindowedSerde(SerdePtr<K> inner) : inner_(std::move(inner)) {}
  std::string_view name() const override { return inner_->name(); }
  Result<std::string> serialize(const Windowed<K>& key) const override {
    auto out = inner_->serialize(key.key);
    if (!out) return out;
    put_time(*out, key.window.start);
    put_time(*out, key.window.end);
    return out;
  }
  Result<Windowed<K>> deserialize(std::string_view bytes) const override {
    if (bytes.size() < 16) {
      return error(Status::corruption("windowed " + std::string(name()) + " key of " +
                                      std::to_string(bytes.size()) + " bytes, needs at least 16"));
    }
    auto key = inner_->deserialize(bytes.substr(0, bytes.size() - 16));
    if (!key) return error(std::move(key.error()));
    const auto tail = bytes.substr(bytes.size() - 16);
    return Windowed<K>{std::move(*key), Window{get_time(tail), get_time(tail.substr(8))}};
  }

 private:
  SerdePtr<K> inner_;
};

// One key's update held by a suppression buffer: when it is due, its record's timestamp and
// headers (of the latest update) and the change (old: the value from before the first update
// the buffer holds).
template <class V>
struct BufferedChange {
  Timestamp due;
  Timestamp timestamp;
  Change<V> change;
  Headers headers;
};

// [8-byte due][8-byte timestamp][4-byte headers length][headers][ChangeSerde bytes], the
// headers as brook/internal/headers_codec.h writes them.
template <class V>
class BufferedChangeSerde final : public Serde<BufferedChange<V>> {
 public:
  explicit BufferedChangeSerde(SerdePtr<V> inner) : change_(std::move(inner)) {}
  std::string_view name() const override { return change_.name(); }
  Result<std::string> serialize(const BufferedChange<V>& b) const override {
    auto change = change_.serialize(b.change);
    if (!change) return change;
    std::string out;
    put_time(out, b.due);
    put_time(out, b.timestamp);
    append_big_endian(out, encoded_headers_size(b.headers), 4);
    append_headers(out, b.headers);
    return out.append(*change);
  }
  Result<BufferedChange<V>> deserialize(std::string_view bytes) const override {
    const std::size_t headers_size = bytes.size() < 20 ? 0 : read_big_endian(bytes.substr(16, 4));
    if (bytes.size() < 20 || headers_size > bytes.size() - 20) {
      return error(Status::corruption("buffered change of " + std::to_string(bytes.size()) +
                                      " bytes, malformed"));
    }
    auto headers = decode_headers(bytes.substr(20, headers_size));
    if (!headers) return error(std::move(headers.error()));
    auto change = change_.deserialize(bytes.substr(20 + headers_size));
    if (!change) return error(std::move(change.error()));
    return BufferedChange<V>{get_time(bytes), get_time(bytes.substr(8)), std::move(*change),
                             std::move(*headers)};
  }

 private:
  ChangeSerde<V> change_;
};

// Holds each key's latest change until stream time reaches its due time (`due(record)` of the
// key's first buffered update), then forwards it; a change that ends where it began (inserted
// and deleted while held) is dropped. The buffer's store logs every write, and its index of
// due times is rebuilt from the store before the first record after a (re)start.
template <class K, class V>
class SuppressProcessor final : public Processor<K, Change<V>, K, Change<V>> {
 public:
  using DueTime = std::function<Timestamp(const Record<K, Change<V>>&)>;

  SuppressProcessor(std::string store, DueTime due, BufferConfig bounds)
      : store_name_(std::move(store)), due_(std::move(due)), bounds_(bounds) {}

  void init(ProcessorContext<K, Change<V>>& context) override {
    Processor<K, Change<V>, K, Change<V>>::init(context);
    const StoreAccess access = store_access(context, store_name_);
    store_ = &access.store;
    key_serde_ = std::static_pointer_cast<const Serde<K>>(access.spec.key_serde);
    value_serde_ =
        std::static_pointer_cast<const Serde<BufferedChange<V>>>(access.spec.value_serde);
    // Fires whenever stream time moves, also when it moves without records (idle advance).
    context.schedule(std::chrono::milliseconds(1), PunctuationType::kStreamTime,
                     [this](Timestamp) { emit_due(); });
  }

  void process(Record<K, Change<V>> r) override {
    load_index();
    const std::string key = check(key_serde_->serialize(r.key));
    BufferedChange<V> entry{due_(r), r.timestamp, std::move(r.value), std::move(r.headers)};
    if (auto held = entries_.find(key); held != entries_.end()) {
      auto before = check(value_serde_->deserialize(check(store_->get(key)).value()));
      entry.due = before.due;
      entry.change.old_value = std::move(before.change.old_value);
      forget(held);
    }
    if (!entry.change.new_value && !entry.change.old_value) {
      ok(store_->put(key, std::nullopt));  // nothing changed in the end
    } else {
      const std::string bytes = check(value_serde_->serialize(entry));
      ok(store_->put(key, bytes));
      remember(key, entry.due, key.size() + bytes.size());
    }
    emit_due();
    while (full()) {
      if (bounds_.when_full == BufferFull::kShutdown) {
        throw StoreError("suppression buffer " + store_name_ + " is full (" +
                         std::to_string(entries_.size()) + " records, " + std::to_string(bytes_) +
                         " bytes); raise its BufferConfig bounds or let it emit early");
      }
      emit(by_due_.begin()->second);
    }
  }

 private:
  bool full() const {
    return (bounds_.max_records > 0 &&
            static_cast<std::int64_t>(entries_.size()) > bounds_.max_records) ||
           (bounds_.max_bytes > 0 && bytes_ > bounds_.max_bytes);
  }

  void emit_due() {
    load_index();
    const Timestamp now = this->context().current_stream_time();
    while (!by_due_.empty() && by_due_.begin()->first <= now) emit(by_due_.begin()->second);
  }

  void emit(std::string key) {
    auto entry = check(value_serde_->deserialize(check(store_->get(key)).value()));
    ok(store_->put(key, std::nullopt));
    forget(entries_.find(key));
    this->context().forward(Record<K, Change<V>>{check(key_serde_->deserialize(key)),
                                                 std::move(entry.change), entry.timestamp,
                                                 std::move(entry.headers)});
  }

  // The index is built from the store before the first use: the store is restored after init.
  void load_index() {
    if (loaded_) return;
    loaded_ = true;
    ok(store_->scan({}, [&](std::string_view key, std::string_view value) {
      remember(std::string(key), check(value_serde_->deserialize(value)).due,
               key.size() + value.size());
      return true;
    }));
  }

  struct Held {
    Timestamp due;
    std::int64_t bytes;
  };
  void remember(const std::string& key, Timestamp due, std::size_t bytes) {
    entries_[key] = {due, static_cast<std::int64_t>(bytes)};
    by_due_.emplace(due, key);
    bytes_ += static_cast<std::int64_t>(bytes);
  }
  void forget(typename std::map<std::string, Held>::iterator it) {
    by_due_.erase({it->second.due, it->first});
    bytes_ -= it->second.bytes;
    entries_.erase(it);
  }

  template <class T>
  T check(Result<T> result) {
    return value_or_throw(std::move(result), store_name_);
  }
  void ok(const Status& status) { ok_or_throw(status, store_name_); }

  std::string store_name_;
  DueTime due_;
  BufferConfig bounds_;
  KeyValueBytesStore* store_ = nullptr;
  SerdePtr<K> key_serde_;
  SerdePtr<BufferedChange<V>> value_serde_;
  std::map<std::string, Held> entries_;
  std::set<std::pair<Timestamp, std::string>> by_due_;
  std::int64_t bytes_ = 0;
  bool loaded_ = false;
};

}  // namespace brook::internal
