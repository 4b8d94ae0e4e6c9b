// The untyped core of EmitStrategy::kOnWindowClose, inside a windowed aggregation's node: each
// window's changes are held in a SuppressionBuffer (suppression_buffer.h) until stream time
// passes the window's end by the close delay (the grace period; for sessions the gap and the
// grace), then the window's change is emitted once, as a final result (never a deletion:
// SuppressionBuffer::Leaves). Held on bytes: the key serialised, the values as the table's
// value serde writes them. The buffer's store is
// "<aggregation store>-emit-on-window-close-store" (in memory, logged, not cached); its rows
// are those of `KTable::suppress(Suppressed::until_window_closes())` (key a whole window key,
// window_keys.h; value a BufferedRow), so its changelog restores what it held. Not for users.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "brook/headers.h"
#include "brook/internal/bytes_store.h"
#include "brook/internal/change.h"
#include "brook/internal/suppression_buffer.h"
#include "brook/types.h"
#include "brook/windowed.h"

namespace brook::internal {

// What a windowed aggregation's node needs to emit on window close.
struct EmitOnClose {
  std::string store;  // the buffer's store
  std::chrono::milliseconds close_delay{0};
};

class WindowCloseBuffer {
 public:
  // A window's final change: its key's bytes, the window, the change's serialised values,
  // and the timestamp and headers of its latest update.
  using Emit = std::function<void(std::string_view key, const Window& window, ChangeBytes change,
                                  Timestamp timestamp, Headers headers)>;

  WindowCloseBuffer(EmitOnClose options, Emit emit);

  // The buffer's store; before anything else.
  void attach(KeyValueBytesStore& store) { buffer_.attach(store); }
  // Holds the change {new_value, old_value} of `window` of the key serialised as `key`, then
  // emits what is due at `stream_time`.
  void hold(std::string_view key, const Window& window, std::optional<std::string_view> new_value,
            std::optional<std::string_view> old_value, Timestamp timestamp, const Headers& headers,
            Timestamp stream_time);
  // Emits every window closed at `stream_time`.
  void emit_due(Timestamp stream_time) { buffer_.emit_due(stream_time); }

 private:
  std::chrono::milliseconds close_delay_;
  Emit emit_;
  SuppressionBuffer buffer_;
  std::string key_;     // the held key being built, reused
  std::string change_;  // the held change being built, reused
};

}  // namespace brook::internal
