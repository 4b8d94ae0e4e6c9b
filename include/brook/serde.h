// Serdes: how typed keys and values become bytes at the log boundary and back.
//
// A Serde<T> turns a T into bytes and bytes into a T. It never throws for bad input:
// deserialize() returns a Status naming the serde and what was wrong with the bytes.
// Serdes are immutable after construction and safe to share between threads.
//
// The default serde of a type comes from the trait DefaultSerde<T>; Brook provides it for
// std::string, std::int32_t, std::int64_t, double, Bytes, and, where brook/json_serde.h is
// included, every type that nlohmann::json can convert (to_json/from_json), which is encoded
// as JSON. Specialise DefaultSerde<T> for your own types, or pass a serde explicitly where a
// topic is read or written.
//
// Null: Kafka keys and values may be null. A std::optional<T> key or value uses T's serde and
// maps null <-> std::nullopt exactly. Any other type reads null as a value-initialised T
// (an empty string, 0) and never writes null: use std::optional<T> to tell null from empty.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "brook/status.h"

namespace brook {

// Raw bytes, for keys and values that stay opaque.
using Bytes = std::vector<std::byte>;

template <class T>
class Serde {
 public:
  using value_type = T;
  virtual ~Serde() = default;
  // A short name used in error messages, e.g. "int32".
  virtual std::string_view name() const = 0;
  // Fails only if the value cannot be represented (e.g. it does not match an Avro schema).
  virtual Result<std::string> serialize(const T& value) const = 0;
  // Fails with kCorruption and a message naming this serde if the bytes are malformed.
  virtual Result<T> deserialize(std::string_view bytes) const = 0;

  // Appends what serialize() returns to `out`; on failure `out` may hold part of it. Callers
  // that serialise into a buffer they reuse (state stores, sinks) allocate nothing per call
  // where a serde overrides this, as the built-in ones do.
  virtual Status serialize_into(const T& value, std::string& out) const {
    auto bytes = serialize(value);
    if (!bytes) return std::move(bytes.error());
    out.append(*bytes);
    return {};
  }
  // What serialize() returns, as a view valid while `value` and `buffer` are: of `value`
  // itself where it is its own bytes (a string: no copy), else of `buffer`, whose content
  // serialize_into() replaced.
  virtual Result<std::string_view> serialize_view(const T& value, std::string& buffer) const {
    buffer.clear();
    if (Status s = serialize_into(value, buffer); !s.ok()) return error(std::move(s));
    return std::string_view(buffer);
  }
};

template <class T>
using SerdePtr = std::shared_ptr<const Serde<T>>;

namespace internal {
// The kCorruption of `size` bytes too few for the `what` ("value", "key") of the `form`
// ("timestamped", "windowed") of serde `serde`, which needs at least `needed`.
Status too_few_bytes(std::string_view form, std::string_view serde, std::string_view what,
                     std::size_t size, std::size_t needed);

// serialize() of a serde that writes its bytes with serialize_into().
template <class T>
Result<std::string> serialize_by_appending(const Serde<T>& serde, const T& value) {
  std::string out;
  if (Status s = serde.serialize_into(value, out); !s.ok()) return error(std::move(s));
  return out;
}
}  // namespace internal

class StringSerde final : public Serde<std::string> {
 public:
  std::string_view name() const override { return "string"; }
  Result<std::string> serialize(const std::string& v) const override { return v; }
  Result<std::string> deserialize(std::string_view b) const override { return std::string(b); }
  Status serialize_into(const std::string& v, std::string& out) const override {
    out.append(v);
    return {};
  }
  Result<std::string_view> serialize_view(const std::string& v, std::string&) const override {
    return std::string_view(v);
  }
};

// Big-endian two's complement, 4 bytes, as Kafka's IntegerSerializer writes it.
class Int32Serde final : public Serde<std::int32_t> {
 public:
  std::string_view name() const override { return "int32"; }
  Result<std::string> serialize(const std::int32_t& v) const override;
  Status serialize_into(const std::int32_t& v, std::string& out) const override;
  Result<std::int32_t> deserialize(std::string_view b) const override;
};

// Big-endian two's complement, 8 bytes, as Kafka's LongSerializer writes it.
class Int64Serde final : public Serde<std::int64_t> {
 public:
  std::string_view name() const override { return "int64"; }
  Result<std::string> serialize(const std::int64_t& v) const override;
  Status serialize_into(const std::int64_t& v, std::string& out) const override;
  Result<std::int64_t> deserialize(std::string_view b) const override;
};

// IEEE 754 bits, big-endian, 8 bytes, as Kafka's DoubleSerializer writes it.
class DoubleSerde final : public Serde<double> {
 public:
  std::string_view name() const override { return "double"; }
  Result<std::string> serialize(const double& v) const override;
  Status serialize_into(const double& v, std::string& out) const override;
  Result<double> deserialize(std::string_view b) const override;
};

class BytesSerde final : public Serde<Bytes> {
 public:
  std::string_view name() const override { return "bytes"; }
  Result<std::string> serialize(const Bytes& v) const override;
  Status serialize_into(const Bytes& v, std::string& out) const override;
  Result<Bytes> deserialize(std::string_view b) const override;
};

// The default serde trait. The primary template has none: a stream of such a type needs an
// explicit serde, and StreamsBuilder::build() reports the node that lacks one.
template <class T>
struct DefaultSerde {
  static SerdePtr<T> make() { return nullptr; }
};

template <class S, class T>
struct BuiltinDefault {
  static_assert(std::is_base_of_v<Serde<T>, S>);
  static SerdePtr<T> make() { return std::make_shared<const S>(); }
};
template <>
struct DefaultSerde<std::string> : BuiltinDefault<StringSerde, std::string> {};
template <>
struct DefaultSerde<std::int32_t> : BuiltinDefault<Int32Serde, std::int32_t> {};
template <>
struct DefaultSerde<std::int64_t> : BuiltinDefault<Int64Serde, std::int64_t> {};
template <>
struct DefaultSerde<double> : BuiltinDefault<DoubleSerde, double> {};
template <>
struct DefaultSerde<Bytes> : BuiltinDefault<BytesSerde, Bytes> {};

// For a nullable key or value type std::optional<T>, the serde that encodes T.
template <class T>
struct SerdeTarget {
  using type = T;
};
template <class T>
struct SerdeTarget<std::optional<T>> {
  using type = T;
};
template <class T>
using SerdeTargetT = typename SerdeTarget<T>::type;

// The serde a key or value of type T uses when none is given, or nullptr.
template <class T>
SerdePtr<SerdeTargetT<T>> default_serde() {
  return DefaultSerde<SerdeTargetT<T>>::make();
}

namespace internal {
template <class T>
inline constexpr bool kIsOptional = false;
template <class T>
inline constexpr bool kIsOptional<std::optional<T>> = true;
}  // namespace internal

namespace internal {
// The null rule of decode/encode, around `read()` / `write(value)` of the non-null case.
template <class T, class Read>
Result<T> decode_nullable(bool null, Read read) {
  if (null) return T{};
  if constexpr (kIsOptional<T>) {
    auto v = read();
    if (!v) return error(std::move(v.error()));
    return T(std::move(*v));
  } else {
    return read();
  }
}
template <class T, class Value, class Write>
Result<std::optional<std::string>> encode_nullable(Value& value, Write write) {
  if constexpr (kIsOptional<T>) {
    if (!value) return std::optional<std::string>();
    return write(*value);
  } else {
    return write(value);
  }
}
}  // namespace internal

// Decodes nullable bytes into a T with the null rule described at the top of this file.
template <class T>
Result<T> decode(const Serde<SerdeTargetT<T>>& serde, std::optional<std::string_view> bytes) {
  return internal::decode_nullable<T>(!bytes, [&] { return serde.deserialize(*bytes); });
}

// Encodes a T into nullable bytes (null only for an empty std::optional).
template <class T>
Result<std::optional<std::string>> encode(const Serde<SerdeTargetT<T>>& serde, const T& value) {
  return internal::encode_nullable<T>(value, [&](const auto& v) { return serde.serialize(v); });
}
// encode() as a view valid while `value` and `buffer` are (Serde::serialize_view).
template <class T>
Result<std::optional<std::string_view>> encode_view(const Serde<SerdeTargetT<T>>& serde,
                                                    const T& value, std::string& buffer) {
  if constexpr (internal::kIsOptional<T>) {
    if (!value) return std::optional<std::string_view>();
    return serde.serialize_view(*value, buffer);
  } else {
    return serde.serialize_view(value, buffer);
  }
}

}  // namespace brook
