// Record headers as bytes, for state that keeps them (the record cache, the suppression
// buffer): [u32 count] then per header [u32 key length][key][i32 value length, -1: null]
// [value], integers big-endian. No headers encode as nothing at all. Not for users.
#pragma once

#include <string>
#include <string_view>

#include "brook/headers.h"
#include "brook/status.h"

namespace brook::internal {

// Appends the encoding of `headers` to `out` (nothing if there are none).
void append_headers(std::string& out, const Headers& headers);
// The encoded size of `headers`.
std::size_t encoded_headers_size(const Headers& headers);
// Decodes what append_headers() wrote (empty bytes: no headers); kCorruption if malformed.
Result<Headers> decode_headers(std::string_view bytes);

}  // namespace brook::internal
