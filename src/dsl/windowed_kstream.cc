#include "brook/windowed_kstream.h"

#include <fmt/format.h>

namespace brook::internal {

std::chrono::milliseconds window_retention(GraphBuilder& graph, const Status& windows,
                                           const std::string& store,
                                           std::chrono::milliseconds asked,
                                           std::chrono::milliseconds needed) {
  if (!windows.ok()) {
    graph.add_error(
        Status::invalid_argument(fmt::format("store {}: {}", store, windows.message())));
  }
  if (asked.count() == 0) return needed;
  if (asked < needed) {
    graph.add_error(Status::invalid_argument(fmt::format(
        "store {}: retention {} ms is less than its windows need (size + grace = {} ms)", store,
        asked.count(), needed.count())));
  }
  return std::max(asked, needed);
}

std::optional<EmitOnClose> emit_on_close(GraphBuilder& graph, const std::string& store,
                                         std::chrono::milliseconds close_delay, EmitStrategy emit,
                                         std::vector<std::string>& stores) {
  if (emit != EmitStrategy::kOnWindowClose) return std::nullopt;
  EmitOnClose options{.store = store + "-emit-on-window-close-store", .close_delay = close_delay};
  graph.add_store({.name = options.store,
                   .type = StoreType::kInMemory,
                   .logging = true,
                   .caching = false,
                   .key_type_name = "whole window key bytes",
                   .value_type_name = "buffered change bytes"});
  stores.push_back(options.store);
  return options;
}

}  // namespace brook::internal
