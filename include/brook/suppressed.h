// KTable::suppress(): hold a table's updates back and emit fewer of them.
//
//   counts.suppress(brook::Suppressed::until_window_closes())         // final results only
//   table.suppress(brook::Suppressed::until_time_limit(10s, {.max_records = 10'000,
//                                                            .when_full = BufferFull::kEmitEarly}))
//
// The buffer keeps the latest update per key (with the value from before the first update it
// holds) in a state store whose changelog restores it, so a restart neither loses nor repeats
// what it held. Time is stream time: nothing is emitted until records move it (see the
// configuration key stream.time.idle.advance.ms for idle inputs).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "brook/state_store.h"

namespace brook {

// What a full suppression buffer does.
enum class BufferFull {
  kShutdown,   // the task stops with an error naming the buffer (nothing is lost or emitted)
  kEmitEarly,  // the updates due soonest are emitted now, before their time
};

// Bounds of a suppression buffer; 0 means no bound.
struct BufferConfig {
  std::int64_t max_records = 0;
  std::int64_t max_bytes = 0;  // serialised keys and values
  BufferFull when_full = BufferFull::kShutdown;
};

struct Suppressed {
  enum class Until {
    kWindowCloses,  // a window's result once, when it closes (end + grace <= stream time)
    kTimeLimit,     // a key's latest update once the limit has passed since its first update
  };

  // Final results of a windowed table. Emitting early would emit non-final results, so the
  // buffer must be unbounded or shut down when full. A deletion is not a final result: a
  // session merged into a later one after it closed keeps the result it was given then.
  static Suppressed until_window_closes(BufferConfig buffer = {}) {
    return {.until = Until::kWindowCloses, .buffer = buffer};
  }
  // At most one update per key per `limit` of stream time: an update waits until stream
  // time reaches its record's timestamp + limit; later updates of the key replace it.
  static Suppressed until_time_limit(std::chrono::milliseconds limit, BufferConfig buffer = {}) {
    return {.until = Until::kTimeLimit, .time_limit = limit, .buffer = buffer};
  }
  Suppressed with_name(std::string node_name) const {
    Suppressed named = *this;
    named.name = std::move(node_name);
    return named;
  }

  Until until = Until::kWindowCloses;
  std::chrono::milliseconds time_limit{0};
  BufferConfig buffer;
  // The node's name; its buffer is the store "<name>-store". Empty: generated.
  std::string name;
  StoreType store_type = StoreType::kInMemory;
};

}  // namespace brook
