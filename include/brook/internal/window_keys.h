// The byte layouts of window and session store keys, as Kafka Streams lays them out, and of
// the suppression buffer's windowed keys:
//
//   window store key   [key bytes][8-byte window start][4-byte sequence]
//   session store key  [key bytes][8-byte session end][8-byte session start]
//   whole window key   [key bytes][8-byte window start][8-byte window end]
//
// Integers are big-endian and timestamps are non-negative, encoded as uint64, so for one key
// the byte order is the time order (window start, then sequence; session end, then start).
// A segmented store (src/state/segmented_store.h) files a window key under its start and a
// session key under its end. Keys of different lengths may share prefixes ("a" and "ab"): a
// scan over the keys of one key must check that an entry's key part is exactly that key
// (window_key_is / session_key_is). Not for users.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "brook/internal/bytes_store.h"
#include "brook/internal/coding.h"
#include "brook/types.h"
#include "brook/windowed.h"

namespace brook::internal {

inline constexpr std::size_t kWindowKeySuffix = 12;    // start + sequence
inline constexpr std::size_t kSessionKeySuffix = 16;   // end + start
inline constexpr std::size_t kWholeWindowSuffix = 16;  // start + end
inline constexpr std::uint32_t kMaxSequence = std::numeric_limits<std::uint32_t>::max();
// The largest timestamp a key encodes (open upper bounds of scans).
inline constexpr Timestamp kMaxKeyTime{std::numeric_limits<std::int64_t>::max()};

// A timestamp as a key encodes it: negative ones (invalid) as 0.
inline std::uint64_t key_time(Timestamp t) {
  return t.value() < 0 ? 0 : static_cast<std::uint64_t>(t.value());
}

// ---- window store keys ----

// Appends what follows the key in a window key: its window start and sequence number.
inline void append_window_key_suffix(std::string& out, Timestamp start, std::uint32_t seq) {
  append_big_endian(out, key_time(start), 8);
  append_big_endian(out, seq, 4);
}
inline std::string window_key(std::string_view key, Timestamp start, std::uint32_t seq) {
  std::string out;
  out.reserve(key.size() + kWindowKeySuffix);
  out.append(key);
  append_window_key_suffix(out, start, seq);
  return out;
}
// The parts of a window key. The key must have at least kWindowKeySuffix bytes.
inline std::string_view window_key_key(std::string_view window_key) {
  return window_key.substr(0, window_key.size() - kWindowKeySuffix);
}
inline Timestamp window_key_start(std::string_view window_key) {
  return get_time(window_key.substr(window_key.size() - kWindowKeySuffix, 8));
}
inline std::uint32_t window_key_sequence(std::string_view window_key) {
  return static_cast<std::uint32_t>(read_big_endian(window_key.substr(window_key.size() - 4)));
}
// True if `window_key` is a key of `key` (not of a longer key sharing its prefix).
inline bool window_key_is(std::string_view window_key, std::string_view key) {
  return window_key.size() == key.size() + kWindowKeySuffix && window_key.starts_with(key);
}
// `prefix` + the first 4-byte sequence from `from` on that no key in `store` has: for a value
// kept beside the others under the same prefix (retain_duplicates), one point lookup when the
// prefix is new. Sequences of one prefix are contiguous from 0 (values are removed per prefix,
// or dropped with their segment), so probing from 0 keeps them in insertion order; a caller
// adding to the prefix it added to last may start after the sequence it got.
inline Result<std::string> unused_sequence_key(KeyValueBytesStore& store, std::string prefix,
                                               std::uint32_t from = 0) {
  const std::size_t at = prefix.size();
  prefix.append(4, '\0');
  for (std::uint32_t seq = from;; ++seq) {
    for (int i = 0; i < 4; ++i) prefix[at + i] = static_cast<char>((seq >> (8 * (3 - i))) & 0xff);
    auto found = store.get(prefix);
    if (!found) return error(found.error());
    if (!*found) return prefix;
  }
}
// The scan range of `key`'s windows with from <= start <= to (every sequence).
inline KeyRange window_key_range(std::string_view key, Timestamp from, Timestamp to) {
  return {.from = window_key(key, from, 0), .to = window_key(key, to, kMaxSequence)};
}

// ---- session store keys ----

inline std::string session_key(std::string_view key, const Window& session) {
  std::string out;
  out.reserve(key.size() + kSessionKeySuffix);
  out.append(key);
  append_big_endian(out, key_time(session.end), 8);
  append_big_endian(out, key_time(session.start), 8);
  return out;
}
// The parts of a session key. The key must have at least kSessionKeySuffix bytes.
inline std::string_view session_key_key(std::string_view session_key) {
  return session_key.substr(0, session_key.size() - kSessionKeySuffix);
}
inline Window session_key_window(std::string_view session_key) {
  const auto suffix = session_key.substr(session_key.size() - kSessionKeySuffix);
  return {.start = get_time(suffix.substr(8)), .end = get_time(suffix)};
}
inline bool session_key_is(std::string_view session_key, std::string_view key) {
  return session_key.size() == key.size() + kSessionKeySuffix && session_key.starts_with(key);
}
// The scan range of `key`'s sessions with end >= earliest_end, in end order.
inline KeyRange session_key_range(std::string_view key, Timestamp earliest_end) {
  return {.from = session_key(key, {.start = Timestamp(0), .end = earliest_end}),
          .to = session_key(key, {.start = kMaxKeyTime, .end = kMaxKeyTime})};
}

// ---- the time a segmented store files a key under ----

// The window start of a window key / the session end of a session key.
inline Timestamp window_key_time(std::string_view window_key) {
  return window_key_start(window_key);
}
inline Timestamp session_key_time(std::string_view session_key) {
  return session_key_window(session_key).end;
}

// ---- whole window keys ----
// A windowed key with its whole window, for a store that must give the window back exactly
// (the suppression buffer): window and session keys alike, unlike their topic layouts.

// Appends what follows the key in a whole window key.
inline void append_whole_window(std::string& out, const Window& window) {
  put_time(out, window.start);
  put_time(out, window.end);
}
// The key's bytes and the window of a whole window key; nullopt if it is too short.
inline std::optional<std::pair<std::string_view, Window>> split_whole_window_key(
    std::string_view bytes) {
  if (bytes.size() < kWholeWindowSuffix) return std::nullopt;
  const auto window = bytes.substr(bytes.size() - kWholeWindowSuffix);
  return std::pair(bytes.substr(0, bytes.size() - kWholeWindowSuffix),
                   Window{get_time(window), get_time(window.substr(8))});
}

}  // namespace brook::internal
