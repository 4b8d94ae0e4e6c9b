#include "serve/store_endpoints.h"

#include <fmt/format.h>

#include "brook/internal/partitioner.h"
#include "brook/internal/topology_data.h"
#include "brook/internal/window_keys.h"
#include "core/text_numbers.h"

namespace brook::internal {

namespace {

// The smallest key after `key`, as a range's start.
std::string after(std::string key) {
  key.push_back('\0');
  return key;
}

// A continuation token: the partition to go on with and the last key read there, if any.
struct Token {
  std::int32_t partition = 0;
  std::optional<std::string> last;
};
std::string encode_token(const Token& token) {
  return fmt::format("{}.{}", token.partition, token.last ? to_hex(*token.last) : "");
}
std::optional<Token> decode_token(std::string_view text) {
  const auto dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto partition = parse_number<std::int32_t>(text.substr(0, dot));
  if (!partition || *partition < 0) return std::nullopt;
  Token token{.partition = *partition};
  if (dot + 1 < text.size()) {
    token.last = from_hex(text.substr(dot + 1));
    if (!token.last) return std::nullopt;
  }
  return token;
}

std::string_view kind_of(const StoreSpec& spec) { return kind_name(spec.kind); }

// The JSON form of a key or value (StoreSpec's key_to_json, value_to_json) as a tree to reply
// with.
Result<nlohmann::json> parsed(Result<std::string> text) {
  if (!text) return error(std::move(text.error()));
  auto json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return error(Status::internal("the JSON form of a store's key or value is not JSON: " +
                                  text->substr(0, 100)));
  }
  return json;
}

}  // namespace

StoreEndpoints::StoreEndpoints(Streams& app, const ServeOptions& options, Forwarder& forwarder)
    : app_(app), options_(options), forwarder_(forwarder) {
  if (auto it = app.config().find("application.server"); it != app.config().end()) {
    self_ = it->second;
  }
  for (const auto& renderer : options.renderers)
    renderers_.insert_or_assign(renderer.type, renderer);
}

Result<StoreEndpoints::Found> StoreEndpoints::find(const std::string& store,
                                                   bool allow_stale) const {
  auto query = app_.store_query(store, {.allow_stale = allow_stale});
  if (!query) return error(std::move(query.error()));
  const auto& spec = (*query)->spec();
  return Found{*query, &spec};
}

std::optional<Reply> StoreEndpoints::key_bytes(const StoreSpec& spec, const std::string& text,
                                               std::string& out) const {
  if (!spec.key_from_text) {
    return error_reply(415, fmt::format("store {} has keys of type {}, which have no text form "
                                        "for a URL",
                                        spec.name, spec.key_type_name));
  }
  auto bytes = spec.key_from_text(text);
  if (!bytes)
    return error_reply(400, fmt::format("store {}: {}", spec.name, bytes.error().message()));
  out = std::move(*bytes);
  return std::nullopt;
}

Result<bool> StoreEndpoints::allows_stale(const Request& request) const {
  auto stale = request.param("stale");
  if (!stale || *stale == "false") return false;
  if (*stale == "true") return true;
  return error(Status::invalid_argument("stale: '" + *stale + "' is not true or false"));
}

Result<std::vector<std::string>> StoreEndpoints::forward_to(const StoreSpec& spec,
                                                            const std::string& key,
                                                            const Request& request,
                                                            bool stale) const {
  if (!request.forwarded_by.empty()) return std::vector<std::string>();  // one hop only
  auto where = app_.query_metadata_for_serialized_key(spec.name, key);
  if (!where) return error(std::move(where.error()));
  const auto& standbys = where->standby_servers;
  if (where->local || (stale && !standbys.empty() && standbys.front() == self_)) {
    return std::vector<std::string>();
  }
  std::vector<std::string> out;
  if (!where->active_server.empty()) out.push_back(where->active_server);
  if (stale) out.insert(out.end(), standbys.begin(), standbys.end());
  if (out.empty()) {
    return error(Status::unavailable(fmt::format(
        "store {}: no instance runs the active task of the key's partition {} now (a rebalance "
        "is moving it); query again shortly, or add stale=true to read a standby replica",
        spec.name, where->partition.value())));
  }
  return out;
}

Reply StoreEndpoints::forward(const std::vector<std::string>& servers, const Request& request) {
  Reply reply;
  for (const auto& server : servers) {
    reply = forwarder_.get(server, request.target);
    if (reply.status != 503) break;
  }
  return reply;
}

Result<nlohmann::json> StoreEndpoints::copy_of(const StoreSpec& spec,
                                               std::int32_t partition) const {
  auto lag = app_.local_store_lag(spec.name, partition);
  if (!lag) return error(std::move(lag.error()));
  return nlohmann::json{
      {"standby", lag->standby}, {"restoring", lag->restoring}, {"lag", lag->lag}};
}

Reply StoreEndpoints::answered_from(const StoreSpec& spec, std::int32_t partition, bool stale,
                                    nlohmann::json body) const {
  if (stale && !spec.global) {
    auto copy = copy_of(spec, partition);
    if (!copy) return status_reply(copy.error());
    body.update(*copy);
  }
  return answered(std::move(body));
}

Result<nlohmann::json> StoreEndpoints::render_value(const StoreSpec& spec,
                                                    std::string_view bytes) const {
  if (auto it = renderers_.find(spec.value_type); it != renderers_.end()) {
    return it->second.render(spec.value_serde.get(), bytes);
  }
  if (spec.value_to_json) return parsed(spec.value_to_json(bytes));
  return error(Status::internal(
      fmt::format("store {} holds values of type {}, which have no JSON form: give it to_json, "
                  "or a renderer (brook::render_values in ServeOptions::renderers)",
                  spec.name, spec.value_type_name)));
}

nlohmann::json StoreEndpoints::render_key(const StoreSpec& spec, std::string_view bytes) const {
  if (spec.key_to_json) {
    if (auto json = parsed(spec.key_to_json(bytes))) return std::move(*json);
  }
  return to_hex(bytes);
}

Reply StoreEndpoints::answered(nlohmann::json body) const {
  body["server"] = self_;
  Reply reply = json_reply(body);
  reply.headers.emplace_back(kAnsweredByHeader, self_);
  return reply;
}

Result<std::size_t> StoreEndpoints::page_size(const Request& request) const {
  auto limit = request.param("limit");
  if (!limit) return options_.default_page;
  auto n = parse_number<std::size_t>(*limit);
  if (!n || *n == 0 || *n > options_.max_page) {
    return error(Status::invalid_argument(
        fmt::format("limit: '{}' is not a number from 1 to {}", *limit, options_.max_page)));
  }
  return *n;
}

Reply StoreEndpoints::stores() const {
  nlohmann::json out = nlohmann::json::array();
  const auto local = app_.metadata_for_all_clients();
  for (const auto& spec : internal::topology_data(app_.topology()).stores) {
    std::vector<std::int32_t> here;
    if (!local.empty()) {
      if (auto it = local[0].store_partitions.find(spec.name);
          it != local[0].store_partitions.end()) {
        here = it->second;
      }
    }
    out.push_back({{"name", spec.name},
                   {"kind", kind_of(spec)},
                   {"global", spec.global},
                   {"key_type", spec.key_type_name},
                   {"value_type", spec.value_type_name},
                   {"partitions_here", here}});
  }
  return answered({{"stores", std::move(out)}});
}

Reply StoreEndpoints::key(const std::string& store, const std::string& text,
                          const Request& request) {
  auto stale = allows_stale(request);
  if (!stale) return status_reply(stale.error());
  auto found = find(store, *stale);
  if (!found) return status_reply(found.error());
  const auto& spec = *found->spec;
  if (spec.kind != StoreKind::kKeyValue) {
    return error_reply(400, fmt::format("store {} is a {} store: ask /v1/stores/{}/keys/{{key}}/"
                                        "windows",
                                        spec.name, kind_of(spec), spec.name));
  }
  std::string key;
  if (auto bad = key_bytes(spec, text, key)) return *bad;
  auto servers = forward_to(spec, key, request, *stale);
  if (!servers) return status_reply(servers.error());
  if (!servers->empty()) return forward(*servers, request);
  auto value = found->query->get(key);
  if (!value) {
    // kNotFound here: the key's partition is not on this instance (it moved since the
    // forwarding instance looked): retry, not "no such key".
    if (value.error().code() == StatusCode::kNotFound) {
      return error_reply(503, value.error().message() + "; query again once it has moved");
    }
    return status_reply(value.error());
  }
  if (!*value) {
    return error_reply(404, fmt::format("store {} has no key {}", spec.name, text));
  }
  auto rendered = render_value(spec, **value);
  if (!rendered) return status_reply(rendered.error());
  const auto partition = partition_for_key(key, found->query->partitions()).value();
  return answered_from(spec, partition, *stale,
                       {{"store", spec.name},
                        {"key", render_key(spec, key)},
                        {"value", std::move(*rendered)},
                        {"partition", partition}});
}

Reply StoreEndpoints::windows(const std::string& store, const std::string& text,
                              const Request& request) {
  auto stale = allows_stale(request);
  if (!stale) return status_reply(stale.error());
  auto found = find(store, *stale);
  if (!found) return status_reply(found.error());
  const auto& spec = *found->spec;
  if (spec.kind == StoreKind::kKeyValue) {
    return error_reply(400, fmt::format("store {} is a key-value store: ask /v1/stores/{}/keys/"
                                        "{{key}}",
                                        spec.name, spec.name));
  }
  std::int64_t from = 0, to = kMaxKeyTime.value();
  for (auto [name, out] : {std::pair{"from", &from}, std::pair{"to", &to}}) {
    if (auto value = request.param(name)) {
      auto n = parse_number<std::int64_t>(*value);
      if (!n || *n < 0) {
        return error_reply(
            400, fmt::format("{}: '{}' is not a time in ms since the epoch (>= 0)", name, *value));
      }
      *out = *n;
    }
  }
  std::string key;
  if (auto bad = key_bytes(spec, text, key)) return *bad;
  auto servers = forward_to(spec, key, request, *stale);
  if (!servers) return status_reply(servers.error());
  if (!servers->empty()) return forward(*servers, request);

  nlohmann::json entries = nlohmann::json::array();
  Status failure;
  const bool window = spec.kind == StoreKind::kWindow;
  const auto range = window ? window_key_range(key, Timestamp(from), Timestamp(to))
                            : session_key_range(key, Timestamp(from));
  auto scanned = found->query->scan_keyed(key, range, [&](std::string_view k, std::string_view v) {
    Window w;
    if (window) {
      if (!window_key_is(k, key)) return true;
      w.start = window_key_start(k);
      w.end = w.start + spec.window_size;
    } else {
      if (!session_key_is(k, key)) return true;
      w = session_key_window(k);
      if (w.start.value() > to) return true;
    }
    if (entries.size() == options_.max_page) {
      failure = Status::invalid_argument(
          fmt::format("more than {} windows of the key between {} and {}: narrow from and to",
                      options_.max_page, from, to));
      return false;
    }
    auto value = render_value(spec, v);
    if (!value) {
      failure = value.error();
      return false;
    }
    entries.push_back({{"start", w.start.value()}, {"end", w.end.value()}, {"value", *value}});
    return true;
  });
  if (!scanned.ok()) {
    if (scanned.code() == StatusCode::kNotFound) return error_reply(503, scanned.message());
    return status_reply(scanned);
  }
  if (!failure.ok()) return status_reply(failure);
  const auto partition = partition_for_key(key, found->query->partitions()).value();
  return answered_from(spec, partition, *stale,
                       {{"store", spec.name},
                        {"key", render_key(spec, key)},
                        {"windows", entries},
                        {"partition", partition}});
}

Reply StoreEndpoints::partition(const std::string& store, const std::string& partition_text,
                                const Request& request) {
  auto stale = allows_stale(request);
  if (!stale) return status_reply(stale.error());
  auto found = find(store, *stale);
  if (!found) return status_reply(found.error());
  auto partition = parse_number<std::int32_t>(partition_text);
  if (!partition) return error_reply(400, "partition: '" + partition_text + "' is not a number");
  auto limit = page_size(request);
  if (!limit) return status_reply(limit.error());
  KeyRange range;
  for (auto [name, out] : {std::pair{"from", &range.from}, std::pair{"to", &range.to}}) {
    if (auto value = request.param(name)) {
      *out = from_hex(*value);
      if (!*out) return error_reply(400, fmt::format("{}: not hex-encoded key bytes", name));
    }
  }
  if (auto last = request.param("after")) {
    auto bytes = from_hex(*last);
    if (!bytes) return error_reply(400, "after: not hex-encoded key bytes");
    range.from = after(std::move(*bytes));
  }
  nlohmann::json entries = nlohmann::json::array();
  auto scanned =
      found->query->scan_partition(*partition, range, [&](std::string_view k, std::string_view v) {
        entries.push_back({to_hex(k), to_hex(v)});
        return entries.size() < *limit;
      });
  if (!scanned.ok()) {
    if (scanned.code() == StatusCode::kNotFound) return error_reply(503, scanned.message());
    return status_reply(scanned);
  }
  return answered_from(*found->spec, *partition, *stale, {{"entries", std::move(entries)}});
}

Reply StoreEndpoints::range(const std::string& store, bool all, const Request& request) {
  auto stale = allows_stale(request);
  if (!stale) return status_reply(stale.error());
  auto found = find(store, *stale);
  if (!found) return status_reply(found.error());
  const auto& spec = *found->spec;
  if (spec.kind != StoreKind::kKeyValue) {
    return error_reply(400, fmt::format("store {} is a {} store: ranges are for key-value stores",
                                        spec.name, kind_of(spec)));
  }
  auto limit = page_size(request);
  if (!limit) return status_reply(limit.error());
  KeyRange range;
  if (!all) {
    for (auto [name, out] : {std::pair{"from", &range.from}, std::pair{"to", &range.to}}) {
      if (auto text = request.param(name)) {
        std::string bytes;
        if (auto bad = key_bytes(spec, *text, bytes)) return *bad;
        *out = std::move(bytes);
      }
    }
  }
  Token token;
  if (auto text = request.param("after")) {
    auto decoded = decode_token(*text);
    if (!decoded) return error_reply(400, "after: '" + *text + "' is not a continuation token");
    token = std::move(*decoded);
  }
  const auto instances = app_.metadata_for_all_clients();
  std::int32_t partitions = 0;
  for (const auto& instance : instances) {
    for (const auto* held : {&instance.store_partitions, &instance.standby_store_partitions}) {
      if (auto it = held->find(spec.name); it != held->end()) {
        for (auto p : it->second) partitions = std::max(partitions, p + 1);
      }
    }
  }
  nlohmann::json entries = nlohmann::json::array();
  nlohmann::json copies = nlohmann::json::array();  // stale: where each partition was read
  std::optional<Token> next;
  for (std::int32_t p = token.partition; p < partitions && !next; ++p) {
    KeyRange part = range;
    if (p == token.partition && token.last) part.from = after(*token.last);
    auto page = read_partition(*found, instances, p, part, *limit - entries.size(), *stale);
    if (!page) return std::move(page.error());
    for (const auto& [k, v] : page->entries) {
      auto value = render_value(spec, v);
      if (!value) return status_reply(value.error());
      entries.push_back({{"key", render_key(spec, k)},
                         {"value", std::move(*value)},
                         {"partition", p},
                         {"server", page->server}});
    }
    if (*stale) {
      page->copy["partition"] = p;
      page->copy["server"] = page->server;
      copies.push_back(std::move(page->copy));
    }
    if (entries.size() == *limit) next = Token{.partition = p, .last = page->entries.back().first};
  }
  nlohmann::json body{{"store", spec.name},
                      {"entries", std::move(entries)},
                      {"next", next ? nlohmann::json(encode_token(*next)) : nlohmann::json()}};
  if (*stale) body["partitions"] = std::move(copies);
  return answered(std::move(body));
}

std::expected<StoreEndpoints::PartitionPage, Reply> StoreEndpoints::read_partition(
    const Found& found, const std::vector<StreamsMetadata>& instances, std::int32_t p,
    const KeyRange& range, std::size_t limit, bool stale) {
  const auto& spec = *found.spec;
  auto holds = [&](const std::map<std::string, std::vector<std::int32_t>>& held) {
    auto it = held.find(spec.name);
    return it != held.end() &&
           std::find(it->second.begin(), it->second.end(), p) != it->second.end();
  };
  // The instances to read from, in turn: the owner (this one first, then the newest); with
  // `stale`, this instance first if it keeps a standby, and then the standbys' instances.
  std::vector<const StreamsMetadata*> readers;
  auto add = [&](const StreamsMetadata& instance) {
    if (std::find(readers.begin(), readers.end(), &instance) == readers.end()) {
      readers.push_back(&instance);
    }
  };
  if (stale && !instances.empty() && instances[0].local &&
      holds(instances[0].standby_store_partitions)) {
    add(instances[0]);
  }
  for (const auto& instance : instances) {
    if (holds(instance.store_partitions)) {
      add(instance);
      break;
    }
  }
  if (stale) {
    for (const auto& instance : instances) {
      if (holds(instance.standby_store_partitions)) add(instance);
    }
  }
  if (readers.empty()) {
    return std::unexpected(error_reply(
        503,
        fmt::format("store {}: no instance holds partition {} now (a rebalance is moving "
                    "it); query again{}",
                    spec.name, p, stale ? "" : ", or add stale=true to read a standby replica")));
  }
  Reply failed;
  for (const auto* reader : readers) {
    PartitionPage page{.server = reader->server};
    if (reader->local) {
      auto scanned =
          found.query->scan_partition(p, range, [&](std::string_view k, std::string_view v) {
            page.entries.emplace_back(k, v);
            return page.entries.size() < limit;
          });
      if (scanned.code() == StatusCode::kNotFound) {
        failed = error_reply(503, scanned.message());
        continue;
      }
      if (!scanned.ok()) return std::unexpected(status_reply(scanned));
      if (stale) {
        auto copy = copy_of(spec, p);
        if (!copy) return std::unexpected(status_reply(copy.error()));
        page.copy = std::move(*copy);
      }
      return page;
    }
    std::string target =
        fmt::format("/v1/stores/{}/partitions/{}?limit={}{}", percent_encode(spec.name), p, limit,
                    stale ? "&stale=true" : "");
    if (range.from) target += "&from=" + to_hex(*range.from);
    if (range.to) target += "&to=" + to_hex(*range.to);
    Reply reply = forwarder_.get(reader->server, target);
    if (reply.status == 503) {
      failed = std::move(reply);
      continue;
    }
    if (reply.status != 200) return std::unexpected(std::move(reply));  // never a partial answer
    try {
      const auto answer = nlohmann::json::parse(reply.body);
      for (const auto& entry : answer.at("entries")) {
        // value() throws for text that is not hex: an unreadable answer, as below.
        page.entries.emplace_back(from_hex(entry.at(0).get<std::string>()).value(),
                                  from_hex(entry.at(1).get<std::string>()).value());
      }
      if (stale) {
        page.copy = {{"standby", answer.at("standby")},
                     {"restoring", answer.at("restoring")},
                     {"lag", answer.at("lag")}};
      }
    } catch (const std::exception& e) {
      return std::unexpected(error_reply(
          502, fmt::format("instance {} answered partition {} of store {} with something "
                           "unreadable: {}",
                           reader->server, p, spec.name, e.what())));
    }
    return page;
  }
  return std::unexpected(std::move(failed));
}

namespace {

nlohmann::json instance_json(const StreamsMetadata& m) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& task : m.tasks) tasks.push_back(task.to_string());
  return {{"server", m.server},
          {"state", m.state},
          {"local", m.local},
          {"stores", m.store_partitions},
          {"standby_stores", m.standby_store_partitions},
          {"tasks", std::move(tasks)}};
}

}  // namespace

Reply StoreEndpoints::instances() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& instance : app_.metadata_for_all_clients())
    out.push_back(instance_json(instance));
  return answered({{"instances", std::move(out)}});
}

Reply StoreEndpoints::for_key(const Request& request) {
  auto store = request.param("store");
  auto text = request.param("key");
  if (!store || !text) return error_reply(400, "for-key needs the parameters store and key");
  auto found = find(*store);
  if (!found) return status_reply(found.error());
  std::string key;
  if (auto bad = key_bytes(*found->spec, *text, key)) return *bad;
  auto where = app_.query_metadata_for_serialized_key(*store, key);
  if (!where) return status_reply(where.error());
  return answered({{"store", *store},
                   {"key", render_key(*found->spec, key)},
                   {"active_server", where->active_server},
                   {"local", where->local},
                   {"standby_servers", where->standby_servers},
                   {"partition", where->partition.value()}});
}

}  // namespace brook::internal
