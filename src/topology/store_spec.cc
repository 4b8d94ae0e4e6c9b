// The messages of a store spec (brook/internal/store_spec.h).
#include "brook/internal/store_spec.h"

#include <fmt/format.h>

namespace brook::internal {

std::string StoreSpec::mismatch(std::string_view key, std::string_view value) const {
  return fmt::format("store {} holds <{}, {}>, not <{}, {}>", name, key_type_name, value_type_name,
                     key, value);
}

std::string StoreSpec::kind_mismatch(StoreKind wanted) const {
  if (kind == wanted) return {};
  return fmt::format("store {} is a {} store, not a {} store", name, kind_name(kind),
                     kind_name(wanted));
}

}  // namespace brook::internal
