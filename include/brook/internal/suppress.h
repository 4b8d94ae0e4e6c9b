// The processor behind KTable::suppress(), and the serdes of its buffer's rows. Not for users.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "brook/internal/change.h"
#include "brook/internal/headers_codec.h"
#include "brook/internal/suppression_buffer.h"
#include "brook/internal/window_keys.h"
#include "brook/processor.h"
#include "brook/suppressed.h"
#include "brook/windowed.h"

namespace brook::internal {

template <class T>
inline constexpr bool kIsWindowed = false;
template <class K>
inline constexpr bool kIsWindowed<Windowed<K>> = true;

// A windowed key as a whole window key (window_keys.h), for the suppression buffer.
template <class K>
class FullWindowedSerde final : public Serde<Windowed<K>> {
 public:
  explicit FullWindowedSerde(SerdePtr<K> inner) : inner_(std::move(inner)) {}
  std::string_view name() const override { return inner_->name(); }
  Result<std::string> serialize(const Windowed<K>& key) const override {
    auto out = inner_->serialize(key.key);
    if (!out) return out;
    append_whole_window(*out, key.window);
    return out;
  }
  Result<Windowed<K>> deserialize(std::string_view bytes) const override {
    const auto parts = split_whole_window_key(bytes);
    if (!parts) {
      return error(too_few_bytes("windowed", name(), "key", bytes.size(), kWholeWindowSuffix));
    }
    auto key = inner_->deserialize(parts->first);
    if (!key) return error(std::move(key.error()));
    return Windowed<K>{std::move(*key), parts->second};
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

// The layout of BufferedRow (suppression_buffer.h).
template <class V>
class BufferedChangeSerde final : public Serde<BufferedChange<V>> {
 public:
  explicit BufferedChangeSerde(SerdePtr<V> inner) : change_(std::move(inner)) {}
  std::string_view name() const override { return change_.name(); }
  Result<std::string> serialize(const BufferedChange<V>& b) const override {
    auto change = change_.serialize(b.change);
    if (!change) return change;
    std::string out;
    append_buffered_row_head(out, b.due, b.timestamp, b.headers);
    return out.append(*change);
  }
  // The serde of the change inside.
  const ChangeSerde<V>* change_serde() const { return &change_; }
  Result<BufferedChange<V>> deserialize(std::string_view bytes) const override {
    const auto row = split_buffered_row(bytes);
    if (!row) {
      return error(Status::corruption("buffered change of " + std::to_string(bytes.size()) +
                                      " bytes, malformed"));
    }
    auto headers = decode_headers(row->headers);
    if (!headers) return error(std::move(headers.error()));
    auto change = change_.deserialize(row->change);
    if (!change) return error(std::move(change.error()));
    return BufferedChange<V>{row->due, row->timestamp, std::move(*change), std::move(*headers)};
  }

 private:
  ChangeSerde<V> change_;
};

// The typed node around a SuppressionBuffer (suppression_buffer.h): serialises each change
// for the buffer and deserialises what it emits. `due(record)` is when a key's first held
// update is due.
template <class K, class V>
class SuppressProcessor final : public Processor<K, Change<V>, K, Change<V>> {
 public:
  using DueTime = std::function<Timestamp(const Record<K, Change<V>>&)>;

  SuppressProcessor(std::string store, DueTime due, BufferConfig bounds,
                    SuppressionBuffer::Leaves leaves)
      : due_(std::move(due)),
        buffer_(std::move(store), bounds, leaves,
                [this](std::string_view key, std::string_view change, Timestamp timestamp,
                       Headers headers) {
                  this->context().forward(
                      Record<K, Change<V>>{check(key_serde_->deserialize(key)),
                                           check(rows_->change_serde()->deserialize(change)),
                                           timestamp, std::move(headers)});
                }) {}

  void init(ProcessorContext<K, Change<V>>& context) override {
    Processor<K, Change<V>, K, Change<V>>::init(context);
    const StoreAccess access = store_access(context, store_name());
    buffer_.attach(access.store);
    key_serde_ = std::static_pointer_cast<const Serde<K>>(access.spec.key_serde);
    rows_ = std::static_pointer_cast<const BufferedChangeSerde<V>>(
        std::static_pointer_cast<const Serde<BufferedChange<V>>>(access.spec.value_serde));
    // Fires whenever stream time moves, also when it moves without records (idle advance).
    context.schedule(std::chrono::milliseconds(1), PunctuationType::kStreamTime, [this](Timestamp) {
      buffer_.emit_due(this->context().current_stream_time());
    });
  }

  void process(Record<K, Change<V>> r) override {
    const Timestamp due = due_(r);
    buffer_.hold(check(key_serde_->serialize(r.key)),
                 check(rows_->change_serde()->serialize(r.value)), due, r.timestamp, r.headers,
                 this->context().current_stream_time());
  }

 private:
  const std::string& store_name() const { return buffer_.store_name(); }
  template <class T>
  T check(Result<T> result) {
    return value_or_throw(std::move(result), store_name());
  }

  DueTime due_;
  SuppressionBuffer buffer_;
  SerdePtr<K> key_serde_;
  std::shared_ptr<const BufferedChangeSerde<V>> rows_;  // the store's value serde
};

}  // namespace brook::internal
