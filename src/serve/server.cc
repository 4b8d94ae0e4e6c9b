// brook::serve(): the HTTP server (cpp-httplib), its safety checks and its routes.
#include <fmt/format.h>
#include <httplib.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "brook/serve.h"
#include "core/host_port.h"
#include "serve/bounded_pool.h"
#include "serve/forwarder.h"
#include "serve/prometheus.h"
#include "serve/request.h"
#include "serve/store_endpoints.h"
#include "serve/web_page.h"

namespace brook {

namespace {

using internal::error_reply;
using internal::json_reply;
using internal::Reply;
using internal::Request;

constexpr std::size_t kMaxTargetLength = 2048;
constexpr std::size_t kRequestsPerConnection = 100;

// Equal, in time independent of where they differ.
bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

Result<std::pair<std::string, int>> listen_address(std::string_view address) {
  auto parsed = internal::host_and_port(address, 0);
  if (!parsed) {
    return error(Status::invalid_argument(
        fmt::format("serve: '{}' is not host:port (a port from 0 to 65535)", address)));
  }
  return std::move(*parsed);
}

class HttpServer final : public Server {
 public:
  HttpServer(Streams& app, ServeOptions options)
      : app_(app),
        options_(std::move(options)),
        forwarder_(self(app), options_.timeout, options_.auth_token),
        stores_(app, options_, forwarder_) {}
  ~HttpServer() override { stop(); }

  Status start(const std::string& host, int port) {
    const int threads = options_.threads;
    // Connections beyond the threads wait for one, a few per thread at most (bounded_pool.h).
    server_.new_task_queue = [threads] { return new internal::BoundedPool(threads, 4 * threads); };
    // Not httplib's default SO_REUSEPORT, with which a second server binds a taken port.
    server_.set_socket_options([](socket_t sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    // A small response waits for no ACK (Nagle's algorithm against delayed ACKs costs 40 ms
    // a request on a kept-alive connection).
    server_.set_tcp_nodelay(true);
    server_.set_payload_max_length(1024);  // GET only: no bodies
    server_.set_read_timeout(options_.timeout);
    server_.set_write_timeout(options_.timeout);
    server_.set_keep_alive_timeout(2);  // an idle connection holds a pool thread this long
    // A kept-alive connection holds its pool thread: after this many requests it is closed,
    // so that connections waiting for a thread get one within about that many requests' time
    // (httplib's default of 5 made every fifth request pay a new connection).
    server_.set_keep_alive_max_count(kRequestsPerConnection);
    server_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      send(res, handle(req));
      return httplib::Server::HandlerResponse::Handled;
    });
    server_.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr e) {
          std::string what = "unknown exception";
          try {
            std::rethrow_exception(e);
          } catch (const std::exception& ex) {
            what = ex.what();
          } catch (...) {
          }
          send(res, error_reply(500, "internal error: " + what));
        });
    errno = 0;
    const bool bound = port == 0 ? (port_ = server_.bind_to_any_port(host)) > 0
                                 : server_.bind_to_port(host, port_ = port);
    if (!bound) {
      return Status::already_exists(
          fmt::format("serve: cannot listen on {}:{}: {} (is another process using the port?)",
                      host, port, errno != 0 ? std::strerror(errno) : "bind failed"));
    }
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    return {};
  }

  int port() const override { return port_; }

  void stop() override {
    if (!thread_.joinable()) return;
    server_.stop();
    thread_.join();
  }

 private:
  static std::string self(const Streams& app) {
    auto it = app.config().find("application.server");
    return it == app.config().end() ? "" : it->second;
  }

  static void send(httplib::Response& res, const Reply& reply) {
    res.status = reply.status;
    for (const auto& [name, value] : reply.headers) res.set_header(name, value);
    res.set_content(reply.body,
                    reply.content_type.empty() ? "application/json" : reply.content_type.c_str());
  }

  Reply handle(const httplib::Request& req) {
    if (req.method != "GET" && req.method != "HEAD") {
      Reply reply = error_reply(405, fmt::format("{} is not allowed: the interface is read-only "
                                                 "(GET)",
                                                 req.method));
      reply.headers.emplace_back("Allow", "GET, HEAD");
      return reply;
    }
    if (req.target.size() > kMaxTargetLength) {
      return error_reply(414, fmt::format("the path and query are {} bytes, more than {}",
                                          req.target.size(), kMaxTargetLength));
    }
    auto segments = internal::path_segments(req.target);
    if (!segments) return error_reply(400, "the path has a malformed percent-escape");
    const bool page = segments->size() == 1 && segments->front().empty();
    if (!options_.auth_token.empty() && !page) {
      const std::string expected = "Bearer " + options_.auth_token;
      if (!same_secret(req.get_header_value("Authorization"), expected)) {
        Reply reply = error_reply(401,
                                  "this server needs \"Authorization: Bearer <token>\" "
                                  "(serve.auth.token)");
        reply.headers.emplace_back("WWW-Authenticate", "Bearer");
        return reply;
      }
    }
    Request request{.target = req.target,
                    .segments = std::move(*segments),
                    .forwarded_by = req.get_header_value(internal::kForwardedHeader)};
    for (const auto& [name, value] : req.params) {
      if (!request.params.emplace(name, value).second) {
        return error_reply(400, fmt::format("the parameter {} is given twice", name));
      }
    }
    return route(request);
  }

  Reply route(const Request& request) {
    const auto& s = request.segments;
    const auto n = s.size();
    if (n == 1) {
      if (s[0].empty())
        return {.body = std::string(internal::web_page()),
                .content_type = "text/html; charset=utf-8"};
      if (s[0] == "health") return health();
      if (s[0] == "metrics") {
        return {.body = internal::prometheus_text(app_),
                .content_type = "text/plain; version=0.0.4; charset=utf-8"};
      }
      if (s[0] == "topology") return topology(request);
    }
    if (n >= 2 && s[0] == "v1" && s[1] == "stores") {
      if (n == 2) return stores_.stores();
      if (n == 3) return stores_.range(s[2], false, request);
      if (n == 4 && s[3] == "all") return stores_.range(s[2], true, request);
      if (n == 5 && s[3] == "keys") return stores_.key(s[2], s[4], request);
      if (n == 6 && s[3] == "keys" && s[5] == "windows")
        return stores_.windows(s[2], s[4], request);
      if (n == 5 && s[3] == "partitions") return stores_.partition(s[2], s[4], request);
    }
    if (n == 2 && s[0] == "v1" && s[1] == "instances") return stores_.instances();
    if (n == 3 && s[0] == "v1" && s[1] == "instances" && s[2] == "for-key") {
      return stores_.for_key(request);
    }
    return error_reply(404, "no such endpoint: " + request.target.substr(0, 200) +
                                " (see GET / or docs/patterns/interactive_queries.md)");
  }

  Reply health() {
    const auto state = app_.state();
    const auto instances = app_.metadata_for_all_clients();  // this one first
    nlohmann::json body{{"state", to_string(state)},
                        {"server", self(app_)},
                        {"instances", instances.size()},
                        {"tasks", instances.empty() ? 0 : instances.front().tasks.size()}};
    if (auto lag = app_.lag()) body["lag"] = *lag;
    return json_reply(body, state == Streams::State::kRunning ? 200 : 503);
  }

  Reply topology(const Request& request) {
    const auto format = request.param("format").value_or("text");
    if (format == "dot") {
      return {.body = app_.topology().describe_dot(), .content_type = "text/vnd.graphviz"};
    }
    if (format != "text") return error_reply(400, "format: '" + format + "' is not text or dot");
    return {.body = app_.topology().describe(), .content_type = "text/plain; charset=utf-8"};
  }

  Streams& app_;
  ServeOptions options_;
  internal::Forwarder forwarder_;
  internal::StoreEndpoints stores_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace

Result<std::unique_ptr<Server>> serve(Streams& app, ServeOptions options) {
  if (options.threads < 1) return error(Status::invalid_argument("serve: threads must be >= 1"));
  if (options.listen.empty()) {
    auto it = app.config().find("application.server");
    if (it == app.config().end()) {
      return error(Status::invalid_argument(
          "serve: no address to listen on: set application.server (host:port) or serve.listen"));
    }
    auto address = listen_address(it->second);
    if (!address) return error(std::move(address.error()));
    options.listen = fmt::format("127.0.0.1:{}", address->second);
  }
  auto address = listen_address(options.listen);
  if (!address) return error(std::move(address.error()));
  auto server = std::make_unique<HttpServer>(app, std::move(options));
  if (auto s = server->start(address->first, address->second); !s.ok()) return error(std::move(s));
  return std::unique_ptr<Server>(std::move(server));
}

Result<std::unique_ptr<Server>> serve(Streams& app) {
  auto options = serve_options(app);
  if (!options) return error(std::move(options.error()));
  return serve(app, std::move(*options));
}

}  // namespace brook
