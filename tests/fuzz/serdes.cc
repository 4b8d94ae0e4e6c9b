// Fuzzes the built-in serdes of record bytes (brook/serde.h): string, int32, int64, double,
// bytes, the timestamped values of stores (TimestampedSerde), table changes (ChangeSerde), the
// suppression buffer's entries (BufferedChangeSerde) and the record headers inside them
// (headers_codec.h). The input's first byte picks the decoder, the rest are its bytes.
// Properties: a decode succeeds or fails with kCorruption, never crashes; what it decodes
// encodes and decodes again to the same value (doubles: the same bits); that encoding is the
// input itself, except that the formats with lengths (changes, headers) may drop bytes that
// decode to nothing (the new value's length of a change without one, an old value's bytes
// without the flag, a header count of 0): their encoding is then shorter, never otherwise
// different.
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "brook/internal/change.h"
#include "brook/internal/headers_codec.h"
#include "brook/internal/suppress.h"
#include "brook/serde.h"
#include "brook/state_store.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/serde_checks.h"

namespace {

using namespace brook;
using namespace brook::internal;

using fuzz::check_encoding;
using fuzz::check_serde;
using fuzz::Encoding;

// The same for headers, which have functions rather than a serde.
void check_headers(std::string_view bytes) {
  auto decoded = decode_headers(bytes);
  if (!decoded) {
    FUZZ_CHECK(decoded.error().code() == StatusCode::kCorruption);
    return;
  }
  std::string encoded;
  append_headers(encoded, *decoded);
  FUZZ_CHECK(encoded.size() == encoded_headers_size(*decoded));
  check_encoding(encoded, bytes, Encoding::kMayDropUnused);
  auto again = decode_headers(encoded);
  FUZZ_CHECK(again.has_value() && *again == *decoded);
}

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

bool same_buffered(const BufferedChange<std::string>& a, const BufferedChange<std::string>& b) {
  return a.due == b.due && a.timestamp == b.timestamp && a.change == b.change &&
         a.headers == b.headers;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto string_serde = std::make_shared<const StringSerde>();
  static const auto int32_serde = std::make_shared<const Int32Serde>();
  static const auto int64_serde = std::make_shared<const Int64Serde>();
  static const DoubleSerde double_serde;
  static const BytesSerde bytes_serde;
  static const TimestampedSerde<std::string> timestamped_string(string_serde);
  static const TimestampedSerde<std::int64_t> timestamped_int64(int64_serde);
  static const ChangeSerde<std::string> string_change(string_serde);
  static const ChangeSerde<std::int32_t> int32_change(int32_serde);
  static const BufferedChangeSerde<std::string> buffered_change(string_serde);
  using enum Encoding;

  fuzz::FuzzInput input(data, size);
  const std::uint8_t selector = input.byte();
  const std::string_view bytes = input.rest();
  switch (selector % 11) {
    case 0: check_serde(*string_serde, bytes, kCanonical); break;
    case 1: check_serde(*int32_serde, bytes, kCanonical); break;
    case 2: check_serde(*int64_serde, bytes, kCanonical); break;
    case 3: check_serde(double_serde, bytes, kCanonical, same_bits); break;
    case 4: check_serde(bytes_serde, bytes, kCanonical); break;
    case 5: check_serde(timestamped_string, bytes, kCanonical); break;
    case 6: check_serde(timestamped_int64, bytes, kCanonical); break;
    case 7: check_serde(string_change, bytes, kMayDropUnused); break;
    case 8: check_serde(int32_change, bytes, kMayDropUnused); break;
    case 9: check_serde(buffered_change, bytes, kMayDropUnused, same_buffered); break;
    case 10: check_headers(bytes); break;
  }
  return 0;
}
