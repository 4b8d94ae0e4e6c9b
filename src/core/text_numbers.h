// Numbers written as text (configuration values, command-line options, URL parameters) and
// bytes written as hex: the whole text must be the number or the bytes.
#pragma once

#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "brook/status.h"

namespace brook::internal {

// `text` as a Number (an integer or floating-point type), all of it; nullopt for anything
// else, or a number out of Number's range.
template <class Number>
std::optional<Number> parse_number(std::string_view text) {
  Number out{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return out;
}

// `text` as an integer from `min` to `max`; else kInvalidArgument "<what>: '<text>' is not an
// integer >= <min>" (or "from <min> to <max>"; without bounds, just "is not an integer").
Result<std::int64_t> parse_integer_in(std::string_view what, std::string_view text,
                                      std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                                      std::int64_t max = std::numeric_limits<std::int64_t>::max());

// Two lowercase hex digits per byte.
std::string to_hex(std::string_view bytes);
// The bytes of `hex` (digits of either case, two per byte); nullopt if it is not that.
std::optional<std::string> from_hex(std::string_view hex);

}  // namespace brook::internal
