// "host:port" addresses (application.server, serve.listen), split at the last colon.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/text_numbers.h"

namespace brook::internal {

// The host and port of `address`; nullopt unless it is a non-empty host, a colon and a port
// from `min_port` to 65535.
inline std::optional<std::pair<std::string, int>> host_and_port(std::string_view address,
                                                                int min_port) {
  const auto colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  const auto port = parse_number<int>(address.substr(colon + 1));
  if (!port || *port < min_port || *port > 65535) return std::nullopt;
  return std::pair{std::string(address.substr(0, colon)), *port};
}

}  // namespace brook::internal
