#include "serve/forwarder.h"

#include <fmt/format.h>
#include <httplib.h>

namespace brook::internal {

namespace {
constexpr std::size_t kMaxIdlePerServer = 16;
}

Forwarder::Forwarder(std::string self, std::chrono::milliseconds timeout, std::string auth_token)
    : self_(std::move(self)), timeout_(timeout), auth_token_(std::move(auth_token)) {}

Forwarder::~Forwarder() = default;

std::unique_ptr<httplib::Client> Forwarder::take(const std::string& server) {
  {
    std::lock_guard lock(mutex_);
    auto& idle = idle_[server];
    if (!idle.empty()) {
      auto client = std::move(idle.back());
      idle.pop_back();
      return client;
    }
  }
  auto client = std::make_unique<httplib::Client>("http://" + server);
  client->set_keep_alive(true);
  client->set_tcp_nodelay(true);
  client->set_connection_timeout(timeout_);
  client->set_read_timeout(timeout_);
  client->set_write_timeout(timeout_);
  return client;
}

void Forwarder::give_back(const std::string& server, std::unique_ptr<httplib::Client> client) {
  std::lock_guard lock(mutex_);
  auto& idle = idle_[server];
  if (idle.size() < kMaxIdlePerServer) idle.push_back(std::move(client));
}

Reply Forwarder::get(const std::string& server, const std::string& target) {
  httplib::Headers headers{{kForwardedHeader, self_}};
  if (!auth_token_.empty()) headers.emplace("Authorization", "Bearer " + auth_token_);
  auto client = take(server);
  auto response = client->Get(target, headers);
  if (!response) {
    return error_reply(503, fmt::format("the owner of the key, instance {}, cannot be reached "
                                        "({}); query again once its partitions have moved",
                                        server, httplib::to_string(response.error())));
  }
  Reply reply{.status = response->status,
              .body = response->body,
              .content_type = response->get_header_value("Content-Type")};
  for (const char* name : {"Retry-After", kAnsweredByHeader}) {
    if (response->has_header(name))
      reply.headers.emplace_back(name, response->get_header_value(name));
  }
  give_back(server, std::move(client));
  return reply;
}

}  // namespace brook::internal
