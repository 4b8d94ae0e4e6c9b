#include "brook/internal/window_close_buffer.h"

#include <fmt/format.h>

#include <utility>

#include "brook/internal/window_keys.h"
#include "brook/state_store.h"

namespace brook::internal {

WindowCloseBuffer::WindowCloseBuffer(EmitOnClose options, Emit emit)
    : close_delay_(options.close_delay),
      emit_(std::move(emit)),
      buffer_(std::move(options.store), BufferConfig{}, SuppressionBuffer::Leaves::kFinalResults,
              [this](std::string_view key, std::string_view change, Timestamp timestamp,
                     Headers headers) {
                const auto window_key = split_whole_window_key(key);
                const auto parts = split_change(change);
                if (!window_key || !parts) {
                  throw_store_error(buffer_.store_name(),
                                    Status::corruption(fmt::format(
                                        "a held window of {} key bytes and {} change bytes, "
                                        "malformed",
                                        key.size(), change.size())));
                }
                emit_(window_key->first, window_key->second, *parts, timestamp, std::move(headers));
              }) {}

void WindowCloseBuffer::hold(std::string_view key, const Window& window,
                             std::optional<std::string_view> new_value,
                             std::optional<std::string_view> old_value, Timestamp timestamp,
                             const Headers& headers, Timestamp stream_time) {
  key_.assign(key);
  append_whole_window(key_, window);
  change_.clear();
  append_change(change_, new_value, old_value);
  buffer_.hold(key_, change_, window.end + close_delay_, timestamp, headers, stream_time);
}

}  // namespace brook::internal
