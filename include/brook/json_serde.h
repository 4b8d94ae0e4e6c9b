// JsonSerde<T>: UTF-8 JSON for any type nlohmann::json converts (to_json/from_json), and
// the default serde of such types. Include this header wherever such a type is a key or value
// with its default serde (best: in the header that declares its to_json/from_json): the core
// headers leave nlohmann's header out, which every translation unit would otherwise parse.
#pragma once

#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "brook/internal/json_form.h"
#include "brook/internal/type_name.h"
#include "brook/serde.h"

namespace brook {

template <class T>
concept JsonConvertible = requires(const T& value, const nlohmann::json& json) {
  nlohmann::json(value);
  json.template get<T>();
};

namespace internal {
// How deep the JSON that Brook reads may nest arrays and objects: Jackson's default, as Kafka's
// Java JSON serdes read it. nlohmann parses deeper text, but copying, comparing and writing
// the value recurse once per level, and a deep enough value (100000 levels) overflows the stack.
inline constexpr int kMaxJsonDepth = 1000;
// Whether `text` nests arrays and objects deeper than kMaxJsonDepth (brackets within strings
// do not count).
bool nested_too_deep(std::string_view text);

// The first number of `input` that `read` does not hold as it is, described with its path
// ("field 'items[2].qty': -1 does not fit, read as 4294967295"); nullopt when there is none.
// `read` is the JSON that to_json writes of the value from_json made of `input`. Each number of
// `input` is compared with the number at the same place in `read`: object members by name,
// array elements by position or, when that differs, as sets (the order of std::set, of std::map
// with keys that are not strings). Places that `read` lacks, or holds something other than a
// number, are not checked. A number is held as it is when it has the same value, except that a
// floating-point number may be rounded to the precision of a floating-point field, as long as
// it stays finite.
std::optional<std::string> changed_number(const nlohmann::json& input, const nlohmann::json& read);

// `json` read as T by from_json, with the checks JsonSerde::deserialize documents; on failure,
// why (from_json's exception, or the number that did not fit).
template <class T>
std::expected<T, std::string> json_as(const nlohmann::json& json) {
  try {
    if constexpr (std::is_same_v<T, nlohmann::json>) {
      return json;  // nothing converted
    } else {
      T value = json.template get<T>();
      if (auto changed = changed_number(json, nlohmann::json(value))) {
        return std::unexpected(std::move(*changed));
      }
      return value;
    }
  } catch (const std::exception& e) {
    return std::unexpected(std::string(e.what()));
  }
}
}  // namespace internal

// deserialize() fails with kCorruption, naming the type and quoting the start of the bytes, when
// the bytes are not valid JSON, when from_json throws (a missing field, a string where a number
// belongs), or when a number does not fit exactly the field it is read into, naming the field:
// out of the field's range (1e30 or 18446744073709551615 into an int64_t, 300 into a uint8_t, a
// finite number that becomes infinite in a float), a fraction into an integer (1.5), a negative
// number into an unsigned field, an integer that a floating-point field cannot hold exactly
// (9007199254740993 into a double). nlohmann converts such numbers silently, so deserialize()
// compares the input with what to_json writes of the value read (internal::changed_number): it
// relies on to_json writing back each number from_json read, at the same place, as a serde that
// round-trips does. Fields that from_json does not read are not checked. It also fails when the
// bytes nest arrays and objects deeper than 1000 levels (internal::kMaxJsonDepth).
template <JsonConvertible T>
class JsonSerde final : public Serde<T> {
 public:
  std::string_view name() const override { return "json"; }

  Result<std::string> serialize(const T& value) const override {
    try {
      return nlohmann::json(value).dump();
    } catch (const std::exception& e) {
      return error(Status::invalid_argument(std::string("json serde: cannot encode ") +
                                            internal::type_name<T>() + ": " + e.what()));
    }
  }

  Result<T> deserialize(std::string_view bytes) const override {
    if (internal::nested_too_deep(bytes)) {
      return error(Status::corruption("json serde: nested deeper than " +
                                      std::to_string(internal::kMaxJsonDepth) +
                                      " levels: " + excerpt(bytes)));
    }
    auto json = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
      return error(Status::corruption("json serde: not valid JSON: " + excerpt(bytes)));
    }
    auto value = internal::json_as<T>(json);
    if (!value) return cannot_read(bytes, value.error());
    return std::move(*value);
  }

 private:
  static std::unexpected<Status> cannot_read(std::string_view bytes, const std::string& why) {
    return error(Status::corruption(std::string("json serde: cannot read ") +
                                    internal::type_name<T>() + " from " + excerpt(bytes) + ": " +
                                    why));
  }

  static std::string excerpt(std::string_view bytes) {
    constexpr std::size_t kMax = 64;
    std::string s(bytes.substr(0, kMax));
    if (bytes.size() > kMax) s += "...";
    return "'" + s + "'";
  }
};

// Types that default to JSON: the convertible ones without a serde of their own.
template <class T>
concept JsonByDefault =
    JsonConvertible<T> && !std::is_arithmetic_v<T> && !std::is_same_v<T, std::string>;

template <JsonByDefault T>
struct DefaultSerde<T> {
  static SerdePtr<T> make() { return std::make_shared<const JsonSerde<T>>(); }
};

namespace internal {
// Served store keys and values of these types as JSON (brook/internal/json_form.h).
template <JsonByDefault T>
struct JsonForm<T> {
  static constexpr bool kValues = true;
  static constexpr bool kKeys = true;
  static void append(std::string& out, const T& value) {
    out += nlohmann::json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  static std::optional<T> parse(std::string_view text) {
    if (nested_too_deep(text)) return std::nullopt;
    auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) return std::nullopt;
    auto value = json_as<T>(json);
    if (!value) return std::nullopt;
    return std::move(*value);
  }
};
}  // namespace internal

}  // namespace brook
