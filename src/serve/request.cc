#include "serve/request.h"

#include <fmt/format.h>

#include <cctype>

#include "core/text_numbers.h"

namespace brook::internal {

namespace {

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    auto byte = from_hex(text.substr(i + 1, 2));
    if (!byte || byte->size() != 1) return std::nullopt;
    out += *byte;
    i += 2;
  }
  return out;
}

}  // namespace

std::optional<std::vector<std::string>> path_segments(std::string_view target) {
  const auto path = target.substr(0, target.find('?'));
  std::vector<std::string> out;
  std::size_t start = path.starts_with('/') ? 1 : 0;
  while (start <= path.size()) {
    auto end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    auto segment = percent_decode(path.substr(start, end - start));
    if (!segment) return std::nullopt;
    if (!(end == path.size() && segment->empty() && !out.empty())) out.push_back(*segment);
    start = end + 1;
  }
  return out;
}

std::string percent_encode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace brook::internal
