// Windows and windowed keys: what windowed aggregations produce and window stores hold.
#pragma once

#include <compare>

#include "brook/types.h"

namespace brook {

// A span of event time. Time windows (tumbling, hopping) are [start, end): `end` is the first
// instant after the window. Sliding and session windows are [start, end], both inclusive.
struct Window {
  Timestamp start;
  Timestamp end;
  friend auto operator<=>(const Window&, const Window&) = default;
};

// A key within one window: the key of a windowed aggregation's result.
template <class K>
struct Windowed {
  K key{};
  Window window;
  friend bool operator==(const Windowed&, const Windowed&) = default;
};

}  // namespace brook

// Their serdes (and DefaultSerde<Windowed<K>>), so that every user of Windowed<K> sees them.
#include "brook/windowed_serde.h"  // IWYU pragma: export
