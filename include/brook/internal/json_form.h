// The text and JSON forms of store keys and values, for serving stores over HTTP: a key given
// as text in a URL (strings as they are, integers and floating-point numbers in decimal, any
// JSON-convertible type as its JSON), and keys and values rendered as JSON. Types without such
// a form have none (nullopt / no function): the serve layer then says so. Not for users.
#pragma once

#include <charconv>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "brook/serde.h"
#include "brook/state_store.h"

namespace brook::internal {

template <class T>
struct IsValueAndTimestamp : std::false_type {};
template <class V>
struct IsValueAndTimestamp<ValueAndTimestamp<V>> : std::true_type {};
template <class T>
struct IsOptional : std::false_type {};
template <class V>
struct IsOptional<std::optional<V>> : std::true_type {};

// Whether values of T have a JSON form.
template <class T>
struct HasJsonForm : std::bool_constant<std::is_constructible_v<nlohmann::json, const T&>> {};
template <class V>
struct HasJsonForm<ValueAndTimestamp<V>> : HasJsonForm<V> {};
template <class V>
struct HasJsonForm<std::optional<V>> : HasJsonForm<V> {};

template <class T>
nlohmann::json to_json_form(const T& value) {
  if constexpr (IsValueAndTimestamp<T>::value) {
    return {{"value", to_json_form(value.value)}, {"timestamp", value.timestamp.value()}};
  } else if constexpr (IsOptional<T>::value) {
    return value ? to_json_form(*value) : nlohmann::json();
  } else {
    return nlohmann::json(value);
  }
}

// T from its text form, or nullopt if `text` is not one.
template <class T>
std::optional<T> from_text_form(std::string_view text) {
  if constexpr (std::is_same_v<T, std::string>) {
    return std::string(text);
  } else if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    T out{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return out;
  } else if constexpr (JsonConvertible<T>) {
    auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) return std::nullopt;
    try {
      return json.template get<T>();
    } catch (const nlohmann::json::exception&) {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
}

template <class T>
constexpr bool has_text_form() {
  return std::is_same_v<T, std::string> || (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) ||
         JsonConvertible<T>;
}

// Bytes -> JSON through `serde`; kCorruption if the bytes do not deserialise.
using ToJson = std::function<Result<nlohmann::json>(std::string_view bytes)>;
// Text -> serialised key; kInvalidArgument naming the type if `text` is not a T.
using FromText = std::function<Result<std::string>(std::string_view text)>;

template <class T>
ToJson make_to_json(SerdePtr<T> serde) {
  if constexpr (!HasJsonForm<T>::value) {
    return nullptr;
  } else {
    return [serde = std::move(serde)](std::string_view bytes) -> Result<nlohmann::json> {
      auto value = serde->deserialize(bytes);
      if (!value) return error(std::move(value.error()));
      return to_json_form(*value);
    };
  }
}

template <class T>
FromText make_from_text(SerdePtr<T> serde) {
  if constexpr (!has_text_form<T>()) {
    return nullptr;
  } else {
    return [serde = std::move(serde)](std::string_view text) -> Result<std::string> {
      auto value = from_text_form<T>(text);
      if (!value) {
        // Appended, not "'" + std::string(...): g++ 12 -O3 warns (-Wrestrict) on the latter.
        std::string message = "'";
        message.append(text.substr(0, 100))
            .append("' is not a key of type ")
            .append(type_name<T>());
        return error(Status::invalid_argument(std::move(message)));
      }
      return serde->serialize(*value);
    };
  }
}

}  // namespace brook::internal
