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

}  // namespace brook::internal
