#include "brook/internal/json_form.h"

namespace brook::internal {

Status not_a_key(std::string_view text, std::string_view type) {
  // Appended, not "'" + std::string(...): g++ 12 -O3 warns (-Wrestrict) on the latter.
  std::string message = "'";
  message.append(text.substr(0, 100)).append("' is not a key of type ").append(type);
  return Status::invalid_argument(std::move(message));
}

}  // namespace brook::internal
