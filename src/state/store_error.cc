#include <fmt/format.h>

#include "brook/state_store.h"

namespace brook::internal {

void throw_store_error(const std::string& store, const Status& status) {
  throw StoreError(fmt::format("state store {}: {}", store, status.to_string()));
}

}  // namespace brook::internal
