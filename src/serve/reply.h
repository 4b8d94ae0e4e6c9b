// Reply: what an endpoint answers, independent of the HTTP library; JSON bodies and errors.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "brook/status.h"

namespace brook::internal {

struct Reply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
};

// `json` as text; bytes that are not UTF-8 (a string key of raw bytes) become U+FFFD.
std::string dump_json(const nlohmann::json& json);
Reply json_reply(const nlohmann::json& body, int status = 200);
// {"error": {"status": <status>, "message": <message>}}; 503s say Retry-After: 1.
Reply error_reply(int status, std::string_view message);
// The error reply for a failed call, by its code: kInvalidArgument 400, kNotFound 404,
// kUnavailable and kFailedPrecondition 503 (retry: a rebalance, a restoration, not started),
// kDeadlineExceeded 504, others 500.
Reply status_reply(const Status& status);

}  // namespace brook::internal
