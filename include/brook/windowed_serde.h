// Serdes of windowed keys, as Kafka Streams writes them:
//
//   TimeWindowedSerde<K>     [key bytes][8-byte big-endian window start]
//   SessionWindowedSerde<K>  [key bytes][8-byte big-endian session end][8-byte session start]
//
// A time-windowed key does not carry its window's end: the serde reads it as start + the
// window size it was given. DefaultSerde<Windowed<K>> is a TimeWindowedSerde over K's default
// serde with an unknown size, written as 0: its end reads as the start (an empty window), so
// give the size (or use SessionWindowedSerde for session windows) where the end matters.
// Malformed bytes (too short) give kCorruption naming the serde. Immutable, thread-safe.
//
// Both derive from WindowedSerde<K>, which says where the key ends within the bytes: a sink
// writing windowed keys partitions each record by the serialised key alone, as Kafka Streams'
// WindowedStreamPartitioner does, so all windows of a key share the key's partition. A sink
// given a Serde<Windowed<K>> of another kind partitions by all of its bytes.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "brook/internal/coding.h"
#include "brook/serde.h"
#include "brook/windowed.h"

namespace brook {

template <class K>
class WindowedSerde : public Serde<Windowed<K>> {
 public:
  // The serialised key within `bytes`, a windowed key this serde serialised.
  virtual std::string_view base_key(std::string_view bytes) const = 0;
};

template <class K>
class TimeWindowedSerde final : public WindowedSerde<K> {
 public:
  // `inner` (not null) writes the key; `window_size` gives the end read back.
  TimeWindowedSerde(SerdePtr<K> inner, std::chrono::milliseconds window_size)
      : inner_(std::move(inner)),
        window_size_(window_size),
        name_("time-windowed " + std::string(inner_->name())) {}

  std::string_view name() const override { return name_; }
  std::chrono::milliseconds window_size() const { return window_size_; }
  std::string_view base_key(std::string_view bytes) const override {
    return bytes.substr(0, bytes.size() - 8);
  }

  Result<std::string> serialize(const Windowed<K>& w) const override {
    return internal::serialize_by_appending<Windowed<K>>(*this, w);
  }
  Status serialize_into(const Windowed<K>& w, std::string& out) const override {
    if (Status s = inner_->serialize_into(w.key, out); !s.ok()) return s;
    internal::put_time(out, w.window.start);
    return {};
  }
  Result<Windowed<K>> deserialize(std::string_view bytes) const override {
    if (bytes.size() < 8) {
      return error(Status::corruption(name_ + ": " + std::to_string(bytes.size()) +
                                      " bytes are too short for a window start (8 bytes)"));
    }
    auto key = inner_->deserialize(bytes.substr(0, bytes.size() - 8));
    if (!key) return error(std::move(key.error()));
    const Timestamp start = internal::get_time(bytes.substr(bytes.size() - 8));
    // An end past the largest timestamp is the largest, as Kafka Streams'
    // TimeWindowedDeserializer caps it.
    constexpr std::int64_t kLargest = std::numeric_limits<std::int64_t>::max();
    const Timestamp end = start.value() > kLargest - window_size_.count() ? Timestamp(kLargest)
                                                                          : start + window_size_;
    return Windowed<K>{std::move(*key), {.start = start, .end = end}};
  }

 private:
  SerdePtr<K> inner_;
  std::chrono::milliseconds window_size_;
  std::string name_;
};

template <class K>
class SessionWindowedSerde final : public WindowedSerde<K> {
 public:
  explicit SessionWindowedSerde(SerdePtr<K> inner)
      : inner_(std::move(inner)), name_("session-windowed " + std::string(inner_->name())) {}

  std::string_view name() const override { return name_; }
  std::string_view base_key(std::string_view bytes) const override {
    return bytes.substr(0, bytes.size() - 16);
  }

  Result<std::string> serialize(const Windowed<K>& w) const override {
    return internal::serialize_by_appending<Windowed<K>>(*this, w);
  }
  Status serialize_into(const Windowed<K>& w, std::string& out) const override {
    if (Status s = inner_->serialize_into(w.key, out); !s.ok()) return s;
    internal::put_time(out, w.window.end);
    internal::put_time(out, w.window.start);
    return {};
  }
  Result<Windowed<K>> deserialize(std::string_view bytes) const override {
    if (bytes.size() < 16) {
      return error(Status::corruption(name_ + ": " + std::to_string(bytes.size()) +
                                      " bytes are too short for a session end and start "
                                      "(16 bytes)"));
    }
    auto key = inner_->deserialize(bytes.substr(0, bytes.size() - 16));
    if (!key) return error(std::move(key.error()));
    const auto suffix = bytes.substr(bytes.size() - 16);
    return Windowed<K>{
        std::move(*key),
        {.start = internal::get_time(suffix.substr(8)), .end = internal::get_time(suffix)}};
  }

 private:
  SerdePtr<K> inner_;
  std::string name_;
};

// Windowed<K> defaults to a TimeWindowedSerde over K's default serde with size 0 (the end
// reads as the start); none if K has no default serde.
template <class K>
struct DefaultSerde<Windowed<K>> {
  static SerdePtr<Windowed<K>> make() {
    SerdePtr<K> inner = DefaultSerde<K>::make();
    if (!inner) return nullptr;
    return std::make_shared<const TimeWindowedSerde<K>>(std::move(inner),
                                                        std::chrono::milliseconds(0));
  }
};

}  // namespace brook
