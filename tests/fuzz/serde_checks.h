// The round-trip property of a serde, shared by the serde fuzz targets.
#pragma once

#include <functional>
#include <optional>
#include <string_view>

#include "brook/serde.h"
#include "fuzz/fuzz_support.h"

namespace brook::fuzz {

// What encoding a decoded value again may give, next to the input it was decoded from.
enum class Encoding {
  kCanonical,      // a value has one encoding: the input itself
  kMayDropUnused,  // the input, or fewer bytes: bytes that decode to nothing are dropped
  kAny,            // any (JSON: spacing, the order of an object's members)
};

inline void check_encoding(std::string_view encoded, std::string_view input, Encoding encoding) {
  switch (encoding) {
    case Encoding::kCanonical: FUZZ_CHECK(encoded == input); break;
    case Encoding::kMayDropUnused:
      FUZZ_CHECK(encoded == input || encoded.size() < input.size());
      break;
    case Encoding::kAny: break;
  }
}

// Decodes `bytes` with `serde`. A failure must be kCorruption; a success must encode as
// `encoding` allows, decode again to a value `same` as the first and encode again to the same
// bytes. Returns the value decoded.
template <class T, class Same = std::equal_to<T>>
std::optional<T> check_serde(const Serde<T>& serde, std::string_view bytes, Encoding encoding,
                             Same same = {}) {
  auto decoded = serde.deserialize(bytes);
  if (!decoded) {
    FUZZ_CHECK(decoded.error().code() == StatusCode::kCorruption);
    return std::nullopt;
  }
  auto encoded = serde.serialize(*decoded);
  FUZZ_CHECK(encoded.has_value());
  check_encoding(*encoded, bytes, encoding);
  auto again = serde.deserialize(*encoded);
  FUZZ_CHECK(again.has_value() && same(*again, *decoded));
  auto reencoded = serde.serialize(*again);
  FUZZ_CHECK(reencoded.has_value() && *reencoded == *encoded);
  return std::move(*decoded);
}

}  // namespace brook::fuzz
