#include "core/text_numbers.h"

#include <fmt/format.h>

namespace brook::internal {

Result<std::int64_t> parse_integer_in(std::string_view what, std::string_view text,
                                      std::int64_t min, std::int64_t max) {
  auto value = parse_number<std::int64_t>(text);
  if (value && *value >= min && *value <= max) return *value;
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  const std::string range = min == kMin && max == kMax ? ""
                            : max == kMax              ? fmt::format(" >= {}", min)
                                                       : fmt::format(" from {} to {}", min, max);
  return error(
      Status::invalid_argument(fmt::format("{}: '{}' is not an integer{}", what, text, range)));
}

std::string to_hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0xf]);
  }
  return out;
}

std::optional<std::string> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out(hex.size() / 2, '\0');
  for (std::size_t i = 0; i < out.size(); ++i) {
    unsigned value = 0;
    const char* first = hex.data() + 2 * i;
    const auto [end, ec] = std::from_chars(first, first + 2, value, 16);
    if (ec != std::errc() || end != first + 2) return std::nullopt;
    out[i] = static_cast<char>(value);
  }
  return out;
}

}  // namespace brook::internal
