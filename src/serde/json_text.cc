#include "brook/internal/json_text.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <iterator>

#include "core/utf8.h"

namespace brook::internal {

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  std::size_t plain = 0;  // the start of the run of characters that need no escape
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (const std::size_t length = utf8_sequence_length(text.substr(i)); length > 0) {
        i += length;
        continue;
      }
    }
    out.append(text, plain, i - plain);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c >= 0x80) {
          out += "\xef\xbf\xbd";  // U+FFFD
        } else {
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
        }
    }
    plain = ++i;
  }
  out.append(text, plain);
  out += '"';
}

void append_json_number(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char digits[32];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}

namespace {

template <class Integer>
void append_decimal(std::string& out, Integer value) {
  char digits[24];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}

}  // namespace

void append_json_integer(std::string& out, std::int64_t value) { append_decimal(out, value); }
void append_json_integer(std::string& out, std::uint64_t value) { append_decimal(out, value); }

}  // namespace brook::internal
