// Fuzzes the decoders of windowed keys and of the foreign-key join's internal topics: the
// topic serdes of time-windowed and session-windowed keys (brook/windowed_serde.h), the
// suppression buffer's windowed keys (FullWindowedSerde), the window and session store keys
// (brook/internal/window_keys.h), and the subscriptions and responses of the foreign-key join
// (brook/internal/foreign_key_join_core.h). The input's first byte picks the decoder.
// Properties: a serde's decode succeeds or fails with kCorruption, never crashes, and a
// success encodes to the input's own bytes and decodes again to the same value (a response
// without a value may drop the bytes after that flag: its encoding is then shorter, never
// otherwise different); a windowed serde's base_key() is the encoding of the key. A store key
// splits into a key, times and a sequence that build the same key again (times below 0, which
// keys never hold, build 0), that belong to it (window_key_is / session_key_is) and whose scan
// range holds it; for one key, the order of store keys is the order of their times.
#include "brook/internal/window_keys.h"

#include <chrono>
#include <compare>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "brook/internal/coding.h"
#include "brook/internal/foreign_key_join_core.h"
#include "brook/internal/suppress.h"
#include "brook/serde.h"
#include "brook/windowed_serde.h"
#include "fuzz/fuzz_support.h"
#include "fuzz/serde_checks.h"

namespace {

using namespace brook;
using namespace brook::internal;

using fuzz::check_serde;
using fuzz::Encoding;

// check_serde(), and base_key() must be the encoding of the key.
template <class K>
std::optional<Windowed<K>> check_windowed(const WindowedSerde<K>& serde, const Serde<K>& key_serde,
                                          std::string_view bytes) {
  auto windowed = check_serde(serde, bytes, Encoding::kCanonical);
  if (windowed) {
    auto key = key_serde.serialize(windowed->key);
    FUZZ_CHECK(key.has_value() && serde.base_key(bytes) == *key);
  }
  return windowed;
}

// A window's end is its start + size, or the largest timestamp where that would pass it.
template <class K>
void check_time_windowed(const TimeWindowedSerde<K>& serde, const Serde<K>& key_serde,
                         std::string_view bytes) {
  const auto windowed = check_windowed(serde, key_serde, bytes);
  if (!windowed) return;
  const std::int64_t start = windowed->window.start.value();
  const std::int64_t largest = std::numeric_limits<std::int64_t>::max();
  const std::int64_t size = serde.window_size().count();
  FUZZ_CHECK(windowed->window.end.value() == (start > largest - size ? largest : start + size));
}

void check_window_store_key(std::string_view bytes) {
  if (bytes.size() < kWindowKeySuffix) return;
  const std::string_view key = window_key_key(bytes);
  const Timestamp start = window_key_start(bytes);
  const std::uint32_t sequence = window_key_sequence(bytes);
  FUZZ_CHECK(window_key_is(bytes, key) && window_key_time(bytes) == start);
  const std::string rebuilt = window_key(key, start, sequence);
  FUZZ_CHECK(window_key_key(rebuilt) == key && window_key_sequence(rebuilt) == sequence &&
             window_key_start(rebuilt) == Timestamp(key_time(start)));
  if (start.value() < 0) return;
  FUZZ_CHECK(rebuilt == bytes);
  const KeyRange range = window_key_range(key, start, start);
  FUZZ_CHECK(range.from <= bytes && range.to && bytes <= *range.to);
}

void check_session_store_key(std::string_view bytes) {
  if (bytes.size() < kSessionKeySuffix) return;
  const std::string_view key = session_key_key(bytes);
  const Window session = session_key_window(bytes);
  FUZZ_CHECK(session_key_is(bytes, key) && session_key_time(bytes) == session.end);
  const std::string rebuilt = session_key(key, session);
  const Window encoded{Timestamp(key_time(session.start)), Timestamp(key_time(session.end))};
  FUZZ_CHECK(session_key_key(rebuilt) == key && session_key_window(rebuilt) == encoded);
  if (session.start.value() < 0 || session.end.value() < 0) return;
  FUZZ_CHECK(rebuilt == bytes);
  const KeyRange range = session_key_range(key, session.end);
  FUZZ_CHECK(range.from <= bytes && range.to && bytes <= *range.to);
}

std::weak_ordering order_of(std::string_view a, std::string_view b) { return a.compare(b) <=> 0; }

// Two store keys of one key sort as their times: window keys by start and sequence, session
// keys by end and start.
void check_store_key_order(fuzz::FuzzInput& input) {
  const std::string_view key = input.short_bytes();
  auto time = [&] { return Timestamp(static_cast<std::int64_t>(read_big_endian(input.bytes(8)))); };
  const Timestamp t1 = time(), t2 = time(), t3 = time(), t4 = time();
  const auto s1 = static_cast<std::uint32_t>(read_big_endian(input.bytes(4)));
  const auto s2 = static_cast<std::uint32_t>(read_big_endian(input.bytes(4)));
  FUZZ_CHECK(order_of(window_key(key, t1, s1), window_key(key, t2, s2)) ==
             (std::tuple(key_time(t1), s1) <=> std::tuple(key_time(t2), s2)));
  FUZZ_CHECK(order_of(session_key(key, {t1, t2}), session_key(key, {t3, t4})) ==
             (std::tuple(key_time(t2), key_time(t1)) <=> std::tuple(key_time(t4), key_time(t3))));
}

bool same_subscription(const Subscription& a, const Subscription& b) {
  return a.instruction == b.instruction && a.hash == b.hash && a.primary_key == b.primary_key &&
         a.primary_partition == b.primary_partition;
}

// The primary partition routes a response and is not in its bytes.
bool same_response(const SubscriptionResponse& a, const SubscriptionResponse& b) {
  return a.hash == b.hash && a.value == b.value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto string_serde = std::make_shared<const StringSerde>();
  static const auto int64_serde = std::make_shared<const Int64Serde>();
  static const TimeWindowedSerde<std::int64_t> time_windowed_int64(int64_serde,
                                                                   std::chrono::minutes(5));
  static const SessionWindowedSerde<std::string> session_windowed(string_serde);
  static const FullWindowedSerde<std::string> full_windowed(string_serde);
  static const auto subscriptions = subscription_serde();
  static const auto responses = subscription_response_serde();

  fuzz::FuzzInput input(data, size);
  const std::uint8_t selector = input.byte();
  switch (selector % 9) {
    case 0: {
      // The default serde's size (0), a second, a day, a year.
      static const TimeWindowedSerde<std::string> time_windowed[] = {
          {string_serde, std::chrono::milliseconds(0)},
          {string_serde, std::chrono::seconds(1)},
          {string_serde, std::chrono::days(1)},
          {string_serde, std::chrono::years(1)}};
      const auto& serde = time_windowed[input.byte() % std::size(time_windowed)];
      check_time_windowed(serde, *string_serde, input.rest());
      break;
    }
    case 1: check_time_windowed(time_windowed_int64, *int64_serde, input.rest()); break;
    case 2: check_windowed(session_windowed, *string_serde, input.rest()); break;
    case 3: check_serde(full_windowed, input.rest(), Encoding::kCanonical); break;
    case 4: check_window_store_key(input.rest()); break;
    case 5: check_session_store_key(input.rest()); break;
    case 6: check_store_key_order(input); break;
    case 7:
      check_serde(*subscriptions, input.rest(), Encoding::kCanonical, same_subscription);
      break;
    case 8: check_serde(*responses, input.rest(), Encoding::kMayDropUnused, same_response); break;
  }
  return 0;
}
