// Fuzzes what the HTTP interface (src/serve) makes of a request's target, the untrusted text of
// a GET, before a store sees it: path_segments (the path split at '/' and percent-decoded, the
// routes' input), percent_encode (how a store's name goes into a forwarded target), and a key's
// text form (StoreSpec::key_from_text, which /v1/stores/{store}/keys/{key} and
// /v1/instances/for-key?key= read a key with, and key_to_json, which writes it into the answer)
// for each key type a served store can have. The input is the target: path, '?', query. The
// routes (server.cc) and the store endpoints need a running application behind an HTTP server,
// so they are not called.
//
// Properties:
// - path_segments is nullopt exactly when the path (up to the first '?') holds a '%' not
//   followed by two hex digits; else it gives the path's parts (without the leading '/', and
//   without the last part when it is empty: "/health/" is "/health"), each percent-decoded
//   (decoded here independently).
// - percent_encode leaves the unreserved bytes of RFC 3986 (letters, digits, "-._~") and writes
//   every other byte as %XX; path_segments decodes it back to the text it was given.
// - A key's text form, when a key type reads the text (else kInvalidArgument), gives key bytes
//   that key_to_json writes as valid JSON of the same key: the text itself (strings; UTF-8
//   only), the number (integers, doubles; null for NaN and the infinities) or the JSON value.
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "brook/internal/store_spec.h"
#include "brook/json_serde.h"
#include "core/text_numbers.h"
#include "core/utf8.h"
#include "fuzz/fuzz_support.h"
#include "serve/request.h"

namespace {

using namespace brook;
using namespace brook::internal;
using Json = nlohmann::json;

std::optional<unsigned> hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return std::nullopt;
}

// `text` with each "%XX" replaced by its byte; nullopt if a '%' is not followed by two hex
// digits.
std::optional<std::string> decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    const auto high = i + 2 < text.size() ? hex_digit(text[i + 1]) : std::nullopt;
    const auto low = high ? hex_digit(text[i + 2]) : std::nullopt;
    if (!low) return std::nullopt;
    out += static_cast<char>(*high << 4 | *low);
    i += 2;
  }
  return out;
}

// The segments path_segments should give of `target`, decoded independently.
std::optional<std::vector<std::string>> expected_segments(std::string_view target) {
  std::string_view path = target.substr(0, target.find('?'));
  if (path.starts_with('/')) path.remove_prefix(1);
  std::vector<std::string> segments;
  for (std::size_t start = 0;;) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    auto segment = decoded(path.substr(start, end - start));
    if (!segment) return std::nullopt;
    segments.push_back(std::move(*segment));
    if (end == path.size()) break;
    start = end + 1;
  }
  if (segments.size() > 1 && segments.back().empty()) segments.pop_back();
  return segments;
}

bool is_unreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

void check_percent_encode(std::string_view text) {
  const std::string encoded = percent_encode(text);
  std::size_t at = 0;
  for (const unsigned char c : text) {
    if (is_unreserved(c)) {
      FUZZ_CHECK(encoded[at] == static_cast<char>(c));
      at += 1;
    } else {
      constexpr char kHex[] = "0123456789ABCDEF";
      FUZZ_CHECK(encoded.compare(at, 3, std::string{'%', kHex[c >> 4], kHex[c & 15]}) == 0);
      at += 3;
    }
  }
  FUZZ_CHECK(at == encoded.size());
  const auto segments = path_segments("/" + encoded);
  FUZZ_CHECK(segments && *segments == std::vector<std::string>{std::string(text)});
}

// The JSON of the key of type K that `text` names, as key_to_json should write it.
template <class K>
Json expected_key(std::string_view text) {
  if constexpr (std::is_same_v<K, std::string>) {
    return std::string(text);
  } else if constexpr (std::is_arithmetic_v<K>) {
    const K number = *parse_number<K>(text);
    if constexpr (std::is_floating_point_v<K>) {
      if (!std::isfinite(number)) return nullptr;
    }
    return number;
  } else {
    return Json::parse(text);
  }
}

// `text` as a key of a store of K keys: read with key_from_text, written by key_to_json.
template <class K>
void check_key(std::string_view text) {
  static const StoreSpec spec = StoreSpec::make<K, std::string>(
      "store", StoreType::kInMemory, /*logging=*/true, /*caching=*/true, DefaultSerde<K>::make(),
      DefaultSerde<std::string>::make());
  const auto bytes = spec.key_from_text(text);
  if (!bytes) {
    FUZZ_CHECK(bytes.error().code() == StatusCode::kInvalidArgument);
    return;
  }
  const auto written = spec.key_to_json(*bytes);
  FUZZ_CHECK(written.has_value());
  const Json json = Json::parse(*written, nullptr, /*allow_exceptions=*/false);
  FUZZ_CHECK(!json.is_discarded());
  if (std::is_same_v<K, std::string> && !is_utf8(text)) return;  // written with U+FFFD
  FUZZ_CHECK(json == expected_key<K>(text));
}

void check_key_forms(std::string_view text) {
  check_key<std::string>(text);
  check_key<std::int32_t>(text);
  check_key<std::int64_t>(text);
  check_key<double>(text);
  check_key<Json>(text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view target(reinterpret_cast<const char*>(data), size);
  const auto segments = path_segments(target);
  const auto expected = expected_segments(target);
  FUZZ_CHECK(segments.has_value() == expected.has_value());
  check_percent_encode(target);
  if (!segments) return 0;
  FUZZ_CHECK(*segments == *expected);
  for (const std::string& segment : *segments) {
    check_percent_encode(segment);
    check_key_forms(segment);
  }
  return 0;
}
