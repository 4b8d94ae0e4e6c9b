// Request: a GET request as the endpoints see it, independent of the HTTP library.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace brook::internal {

struct Request {
  std::string target;                         // path and query as received (forwarded unchanged)
  std::vector<std::string> segments;          // the path's segments, percent-decoded
  std::map<std::string, std::string> params;  // the query's parameters, decoded
  std::string forwarded_by;                   // the instance that forwarded it here, if one did

  std::optional<std::string> param(const std::string& name) const {
    auto it = params.find(name);
    if (it == params.end()) return std::nullopt;
    return it->second;
  }
};

// The path of `target` split at '/' and percent-decoded; nullopt if an escape is malformed.
std::optional<std::vector<std::string>> path_segments(std::string_view target);
// `text` with every byte but unreserved ones (RFC 3986) percent-encoded: a path segment.
std::string percent_encode(std::string_view text);

}  // namespace brook::internal
