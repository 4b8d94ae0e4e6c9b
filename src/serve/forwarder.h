// Forwarder: sends a request on, once, to the instance that owns its key (or partition), over
// a pool of kept-alive connections per instance.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "serve/reply.h"

namespace httplib {
class Client;
}

namespace brook::internal {

// The header a forwarded request carries (the forwarding instance's application.server): the
// receiver answers from its own stores and never forwards it again.
inline constexpr const char* kForwardedHeader = "X-Brook-Forwarded-By";
// The header naming the instance whose stores answered.
inline constexpr const char* kAnsweredByHeader = "X-Brook-Answered-By";

class Forwarder {
 public:
  // `self`: this instance's application.server; `auth_token`: sent on as the bearer token.
  Forwarder(std::string self, std::chrono::milliseconds timeout, std::string auth_token);
  ~Forwarder();

  // GET `target` (path and query, as received) from `server` ("host:port"): its reply, or a
  // 503 with Retry-After if it cannot be reached (its partitions will move to another).
  Reply get(const std::string& server, const std::string& target);

 private:
  std::unique_ptr<httplib::Client> take(const std::string& server);
  void give_back(const std::string& server, std::unique_ptr<httplib::Client> client);

  std::string self_;
  std::chrono::milliseconds timeout_;
  std::string auth_token_;
  std::mutex mutex_;
  std::map<std::string, std::vector<std::unique_ptr<httplib::Client>>> idle_;  // by server
};

}  // namespace brook::internal
