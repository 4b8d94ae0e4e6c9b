#include "brook/window_store.h"

namespace brook::internal {

void put_duplicate(KeyValueBytesStore& store, std::string_view key, Timestamp start,
                   std::string_view value, std::string& last) {
  std::string prefix = window_key(key, start, 0);
  prefix.resize(prefix.size() - 4);
  // A run of values of one key and window (a burst within a millisecond) does not probe the
  // sequences it has just used again.
  const std::uint32_t from =
      !last.empty() && std::string_view(last).substr(0, last.size() - 4) == prefix
          ? window_key_sequence(last) + 1
          : 0;
  last = value_or_throw(unused_sequence_key(store, std::move(prefix), from), store.name());
  ok_or_throw(store.put(last, value), store.name());
}

}  // namespace brook::internal
