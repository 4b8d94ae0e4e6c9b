#include "serve/reply.h"

namespace brook::internal {

std::string dump_json(const nlohmann::json& json) {
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Reply json_reply(const nlohmann::json& body, int status) {
  return {.status = status, .body = dump_json(body)};
}

Reply error_reply(int status, std::string_view message) {
  Reply reply = json_reply({{"error", {{"status", status}, {"message", message}}}}, status);
  if (status == 503) reply.headers.emplace_back("Retry-After", "1");
  return reply;
}

Reply status_reply(const Status& status) {
  switch (status.code()) {
    case StatusCode::kInvalidArgument: return error_reply(400, status.message());
    case StatusCode::kNotFound: return error_reply(404, status.message());
    case StatusCode::kUnavailable:
    case StatusCode::kFailedPrecondition: return error_reply(503, status.message());
    case StatusCode::kDeadlineExceeded: return error_reply(504, status.message());
    default: return error_reply(500, status.to_string());
  }
}

}  // namespace brook::internal
