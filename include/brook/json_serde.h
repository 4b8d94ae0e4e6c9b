// JsonSerde<T>: UTF-8 JSON for any type nlohmann::json converts (to_json/from_json),
// and the default serde of such types.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "brook/internal/type_name.h"
#include "brook/serde.h"

namespace brook {

template <class T>
concept JsonConvertible = requires(const T& value, const nlohmann::json& json) {
  nlohmann::json(value);
  json.template get<T>();
};

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
    auto json = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
      return error(Status::corruption("json serde: not valid JSON: " + excerpt(bytes)));
    }
    try {
      return json.template get<T>();
    } catch (const std::exception& e) {
      return error(Status::corruption(std::string("json serde: cannot read ") +
                                      internal::type_name<T>() + " from " + excerpt(bytes) + ": " +
                                      e.what()));
    }
  }

 private:
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

}  // namespace brook
