// The text and JSON forms of store keys and values, for serving stores over HTTP: a key given
// as text in a URL (strings as they are, integers and floating-point numbers in decimal, any
// JSON-convertible type as its JSON), and keys and values rendered as JSON text. Types without
// such a form have none (no function): the serve layer then says so. Not for users.
#pragma once

#include <charconv>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "brook/internal/json_text.h"
#include "brook/internal/type_name.h"
#include "brook/serde.h"
#include "brook/state_store.h"

namespace brook::internal {

// How values of T are written as JSON (kValues: append(out, value)) and read from their text
// in a URL (kKeys: parse(text), nullopt if `text` is not one). Given here for strings and
// numbers, and by brook/json_serde.h for the types nlohmann::json converts; other types have
// neither.
template <class T>
struct JsonForm {
  static constexpr bool kValues = false;
  static constexpr bool kKeys = false;
};

template <>
struct JsonForm<std::string> {
  static constexpr bool kValues = true;
  static constexpr bool kKeys = true;
  static void append(std::string& out, const std::string& value) { append_json_string(out, value); }
  static std::optional<std::string> parse(std::string_view text) { return std::string(text); }
};

template <>
struct JsonForm<bool> {
  static constexpr bool kValues = true;
  static constexpr bool kKeys = false;
  static void append(std::string& out, bool value) { out += value ? "true" : "false"; }
};

template <class T>
  requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
struct JsonForm<T> {
  static constexpr bool kValues = true;
  static constexpr bool kKeys = true;
  static void append(std::string& out, T value) { append_json_number(out, value); }
  static std::optional<T> parse(std::string_view text) {
    T out{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return out;
  }
};

template <class T>
inline constexpr bool kIsValueAndTimestamp = false;
template <class V>
inline constexpr bool kIsValueAndTimestamp<ValueAndTimestamp<V>> = true;

// Whether values of T have a JSON form: their own, or that of what they wrap.
template <class T>
struct HasJsonForm : std::bool_constant<JsonForm<T>::kValues> {};
template <class V>
struct HasJsonForm<ValueAndTimestamp<V>> : HasJsonForm<V> {};
template <class V>
struct HasJsonForm<std::optional<V>> : HasJsonForm<V> {};

template <class T>
void append_json_form(std::string& out, const T& value) {
  if constexpr (kIsOptional<T>) {
    if (value) {
      append_json_form(out, *value);
    } else {
      out += "null";
    }
  } else if constexpr (kIsValueAndTimestamp<T>) {
    out += "{\"timestamp\":";
    append_json_number(out, value.timestamp.value());
    out += ",\"value\":";
    append_json_form(out, value.value);
    out += '}';
  } else {
    JsonForm<T>::append(out, value);
  }
}

// Bytes -> JSON text through `serde`; kCorruption if the bytes do not deserialise.
using ToJson = std::function<Result<std::string>(std::string_view bytes)>;
// Text -> serialised key; kInvalidArgument naming the type if `text` is not a T.
using FromText = std::function<Result<std::string>(std::string_view text)>;

template <class T>
ToJson make_to_json(SerdePtr<T> serde) {
  if constexpr (!HasJsonForm<T>::value) {
    return nullptr;
  } else {
    return [serde = std::move(serde)](std::string_view bytes) -> Result<std::string> {
      auto value = serde->deserialize(bytes);
      if (!value) return error(std::move(value.error()));
      std::string out;
      append_json_form(out, *value);
      return out;
    };
  }
}

// The kInvalidArgument of `text`, which is not a key of type `type`.
Status not_a_key(std::string_view text, std::string_view type);

template <class T>
FromText make_from_text(SerdePtr<T> serde) {
  if constexpr (!JsonForm<T>::kKeys) {
    return nullptr;
  } else {
    return [serde = std::move(serde)](std::string_view text) -> Result<std::string> {
      auto value = JsonForm<T>::parse(text);
      if (!value) return error(not_a_key(text, type_name<T>()));
      return serde->serialize(*value);
    };
  }
}

}  // namespace brook::internal
