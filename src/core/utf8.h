// UTF-8 validation (RFC 3629): for commit metadata, JSON text, and records the CLI prints.
#pragma once

#include <cstddef>
#include <string_view>

namespace brook::internal {

// The length of the UTF-8 sequence at the start of `text`, or 0 if none starts there (empty
// text, a stray continuation byte, overlong forms, surrogates and code points above
// U+10FFFF are not UTF-8).
std::size_t utf8_sequence_length(std::string_view text);

// The offset of the first byte of `text` that does not start a UTF-8 sequence, or npos.
std::size_t first_non_utf8(std::string_view text);
inline bool is_utf8(std::string_view text) {
  return first_non_utf8(text) == std::string_view::npos;
}

}  // namespace brook::internal
