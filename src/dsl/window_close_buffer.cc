#include "brook/internal/window_close_buffer.h"

#include <fmt/format.h>

#include <utility>

#include "brook/state_store.h"

namespace brook::internal {
namespace {

constexpr std::size_t kWindowBytes = 16;  // start, end

}  // namespace

std::string emit_on_close_store_name(const std::string& aggregation_store) {
  return aggregation_store + "-emit-on-window-close-store";
}

StoreSpec emit_on_close_store_spec(std::string name) {
  return {.name = std::move(name),
          .type = StoreType::kInMemory,
          .logging = true,
          .caching = false,
          .key_type_name = "windowed key bytes",
          .value_type_name = "buffered change bytes"};
}

WindowCloseBuffer::WindowCloseBuffer(EmitOnClose options, Emit emit)
    : close_delay_(options.close_delay),
      emit_(std::move(emit)),
      buffer_(std::move(options.store), BufferConfig{},
              [this](std::string_view key, std::string_view change, Timestamp timestamp,
                     Headers headers) {
                const auto parts = split_change(change);
                if (key.size() < kWindowBytes || !parts) {
                  throw_store_error(buffer_.store_name(),
                                    Status::corruption(fmt::format(
                                        "a held window of {} key bytes and {} change bytes, "
                                        "malformed",
                                        key.size(), change.size())));
                }
                // A session merged away after it closed: its final result went out already.
                if (!parts->new_value) return;
                const auto window = key.substr(key.size() - kWindowBytes);
                emit_(key.substr(0, key.size() - kWindowBytes),
                      Window{get_time(window), get_time(window.substr(8))}, *parts, timestamp,
                      std::move(headers));
              }) {}

void WindowCloseBuffer::hold(std::string_view key, const Window& window,
                             std::optional<std::string_view> new_value,
                             std::optional<std::string_view> old_value, Timestamp timestamp,
                             const Headers& headers, Timestamp stream_time) {
  key_.assign(key);
  put_time(key_, window.start);
  put_time(key_, window.end);
  change_.clear();
  append_change(change_, new_value, old_value);
  buffer_.hold(key_, change_, window.end + close_delay_, timestamp, headers, stream_time);
}

}  // namespace brook::internal
