// JSON text written without a JSON library: strings and numbers, for the places that write
// JSON themselves (Debezium envelopes, rows of a PostgreSQL source, the JSON form of served
// store values). Not for users.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace brook::internal {

// Appends `text` to `out` as a JSON string: quoted, with '"', '\' and control characters
// escaped. Bytes that are not UTF-8 become U+FFFD, as the HTTP layer's replies write them.
void append_json_string(std::string& out, std::string_view text);

// Appends `value` as a JSON number: the shortest text that reads back as the same double;
// NaN and the infinities, which JSON has no number for, as null.
void append_json_number(std::string& out, double value);

// Appends an integer in decimal.
void append_json_integer(std::string& out, std::int64_t value);
void append_json_integer(std::string& out, std::uint64_t value);

template <std::integral T>
void append_json_number(std::string& out, T value) {
  if constexpr (std::is_signed_v<T>) {
    append_json_integer(out, static_cast<std::int64_t>(value));
  } else {
    append_json_integer(out, static_cast<std::uint64_t>(value));
  }
}

}  // namespace brook::internal
