#include "core/base64.h"

#include <algorithm>
#include <cstdint>

namespace brook::internal {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t group = 0;
    for (std::size_t j = 0; j < 3; ++j) {
      group = group << 8 | (j < n ? static_cast<unsigned char>(bytes[i + j]) : 0u);
    }
    for (std::size_t j = 0; j < 4; ++j) {
      out += j <= n ? kAlphabet[(group >> (18 - 6 * j)) & 0x3f] : '=';
    }
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  for (int padding = 0; padding < 2 && text.ends_with('='); ++padding) text.remove_suffix(1);
  std::string out;
  std::uint32_t bits = 0;
  int pending = 0;  // bits not yet output
  for (char c : text) {
    const auto at = kAlphabet.find(c);
    if (at == std::string_view::npos) return std::nullopt;
    bits = bits << 6 | static_cast<std::uint32_t>(at);
    pending += 6;
    if (pending >= 8) {
      pending -= 8;
      out += static_cast<char>(bits >> pending);
    }
  }
  return out;
}

}  // namespace brook::internal
