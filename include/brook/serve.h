// serve: a running application's HTTP interface (DESIGN.md, serve layer): interactive queries
// routed to the instance that owns the key, instance metadata, Prometheus metrics, the
// topology, health, and a small live web page. Read-only.
//
//   brook::Streams app(*topology, {{"application.id", "stocks"},
//                                  {"application.server", "10.0.0.5:8080"}, ...});
//   if (auto s = app.start(); !s.ok()) return brook::report(s);
//   auto server = brook::serve(app);          // listens on 127.0.0.1:8080 (serve.listen)
//   if (!server) return brook::report(server.error());
//
// Endpoints (JSON unless noted; docs/patterns/interactive_queries.md):
//   GET /v1/stores                                   stores, kinds, partitions hosted here
//   GET /v1/stores/{store}/keys/{key}                a key's value, from its owner
//   GET /v1/stores/{store}/keys/{key}/windows?from=&to=   a window or session store's key
//   GET /v1/stores/{store}?from=&to=&limit=&after=   a key range, every instance's partitions
//   GET /v1/stores/{store}/all?limit=&after=         every entry, page by page
//   GET /v1/instances, /v1/instances/for-key?store=&key=
//   GET /metrics (Prometheus text 0.0.4), /topology (text; ?format=dot), /health, / (web page)
// A keyed request for a key another instance owns is forwarded there, once (the answer says
// which instance answered). Errors are JSON {"error": {"status", "message"}}: 400 malformed
// input, 401 a missing or wrong bearer token, 404 no such store or key, 405 not GET, 414 a
// path too long, 415 a key type with no text form, 503 with Retry-After while the owner
// rebalances or restores, 500 a value type with no JSON form and no renderer.
//
// Thread safety: a Server answers on its own bounded pool of threads; stop() from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <typeindex>
#include <vector>

#include "brook/state_store.h"
#include "brook/status.h"
#include "brook/streams.h"

namespace brook {

// Renders the values of stores holding V (or ValueAndTimestamp<V>) as JSON, for value types
// without to_json. Make one with render_values<V>().
struct ValueRenderer {
  std::type_index type;  // the store's value type
  // `serde` is the store's Serde<type>.
  std::function<Result<nlohmann::json>(const void* serde, std::string_view bytes)> render;
};

template <class V>
std::vector<ValueRenderer> render_values(std::function<nlohmann::json(const V&)> render) {
  auto plain = [render](const void* serde, std::string_view bytes) -> Result<nlohmann::json> {
    auto value = static_cast<const Serde<V>*>(serde)->deserialize(bytes);
    if (!value) return error(std::move(value.error()));
    return render(*value);
  };
  auto timestamped = [render](const void* serde, std::string_view bytes) -> Result<nlohmann::json> {
    auto value = static_cast<const Serde<ValueAndTimestamp<V>>*>(serde)->deserialize(bytes);
    if (!value) return error(std::move(value.error()));
    return nlohmann::json{{"value", render(value->value)}, {"timestamp", value->timestamp.value()}};
  };
  return {{typeid(V), plain}, {typeid(ValueAndTimestamp<V>), timestamped}};
}

struct ServeOptions {
  // host:port to listen on (serve.listen). Empty: 127.0.0.1 and the port of
  // application.server. Port 0: any free port (Server::port() tells which).
  std::string listen;
  int threads = 8;                 // serve.threads: the pool answering requests (bounded)
  std::size_t max_page = 1000;     // serve.max.page: the largest `limit` of a range or all
  std::size_t default_page = 100;  // entries per page without a `limit`
  // serve.timeout.ms: reading a request, writing a response, a forwarded request.
  std::chrono::milliseconds timeout{5000};
  // serve.auth.token: non-empty: every request but GET / needs "Authorization: Bearer <it>".
  std::string auth_token;
  std::vector<ValueRenderer> renderers;  // for value types without to_json
};

// ServeOptions from the application's configuration: serve.listen, serve.threads,
// serve.max.page, serve.timeout.ms, serve.auth.token. kInvalidArgument naming every unknown
// serve.* key and bad value.
Result<ServeOptions> serve_options(const Streams& app);

class Server {
 public:
  virtual ~Server() = default;  // stop()s
  // The port it listens on.
  virtual int port() const = 0;
  // Stops accepting, finishes the requests in flight, joins the threads. Idempotent.
  virtual void stop() = 0;
};

// Starts answering for `app` (which must outlive the server; it may start later: until it
// runs, queries answer 503). kAlreadyExists naming the address if the port is taken;
// kInvalidArgument for bad options or a missing listen address (neither serve.listen nor
// application.server).
Result<std::unique_ptr<Server>> serve(Streams& app, ServeOptions options);
// serve() with serve_options(app).
Result<std::unique_ptr<Server>> serve(Streams& app);

}  // namespace brook
