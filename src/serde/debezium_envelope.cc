// Debezium's JSON envelope (brook/change_event.h): reading it with or without its `schema`
// part, and writing its payload.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <utility>

#include "brook/change_event.h"
#include "brook/internal/json_text.h"

namespace brook::internal {
namespace {

using Json = nlohmann::json;

constexpr std::array<std::pair<char, ChangeOp>, 5> kOps{{{'c', ChangeOp::kCreate},
                                                         {'u', ChangeOp::kUpdate},
                                                         {'d', ChangeOp::kDelete},
                                                         {'r', ChangeOp::kRead},
                                                         {'t', ChangeOp::kTruncate}}};

std::string excerpt(std::string_view bytes) {
  constexpr std::size_t kMax = 80;
  return fmt::format("'{}{}'", bytes.substr(0, kMax), bytes.size() > kMax ? "..." : "");
}

Status too_deep(std::string_view bytes) {
  return Status::corruption(fmt::format("debezium serde: nested deeper than {} levels: {}",
                                        kMaxJsonDepth, excerpt(bytes)));
}

// The payload of {"schema": ..., "payload": ...} (the JSON converter with schemas.enable=true),
// else `json` itself.
const Json& unwrapped(const Json& json) {
  if (json.is_object() && json.size() == 2 && json.contains("payload") && json.contains("schema") &&
      (json["schema"].is_object() || json["schema"].is_null())) {
    return json["payload"];
  }
  return json;
}

// `object[name]` when it is a string (or, for Debezium 1.x's boolean `snapshot`, a boolean);
// empty when absent or null; nullopt when of another type.
std::optional<std::string> text_field(const Json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return std::string();
  if (it->is_string()) return it->get<std::string>();
  if (it->is_boolean()) return std::string(it->get<bool>() ? "true" : "false");
  return std::nullopt;
}

// `object[name]` as an integer: nullopt inside when absent or null, an error text naming
// `path` + name when it is not an integer or out of the range of an int64_t.
std::expected<std::optional<std::int64_t>, std::string> integer_field(const Json& object,
                                                                      const char* name,
                                                                      std::string_view path = "") {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return std::optional<std::int64_t>();
  if (!it->is_number_integer())
    return std::unexpected(fmt::format("'{}{}' is not an integer", path, name));
  // nlohmann would read one above 2^63 - 1 as a negative number.
  if (it->is_number_unsigned() &&
      it->get<std::uint64_t>() > std::uint64_t{std::numeric_limits<std::int64_t>::max()}) {
    return std::unexpected(fmt::format("'{}{}' is out of range: {}", path, name, it->dump()));
  }
  return std::optional<std::int64_t>(it->get<std::int64_t>());
}

std::expected<ChangeSource, std::string> read_source(const Json& payload) {
  ChangeSource source;
  auto it = payload.find("source");
  if (it == payload.end() || it->is_null()) return source;
  if (!it->is_object()) return std::unexpected(std::string("'source' is not an object"));
  for (auto [name, field] :
       {std::pair{"connector", &source.connector}, std::pair{"name", &source.name},
        std::pair{"db", &source.db}, std::pair{"schema", &source.schema},
        std::pair{"table", &source.table}, std::pair{"snapshot", &source.snapshot}}) {
    auto text = text_field(*it, name);
    if (!text) return std::unexpected(fmt::format("'source.{}' is not a string", name));
    *field = std::move(*text);
  }
  auto ts_ms = integer_field(*it, "ts_ms", "source.");
  if (!ts_ms) return std::unexpected(std::move(ts_ms.error()));
  source.ts_ms = ts_ms->value_or(0);
  for (auto [name, field] : {std::pair{"lsn", &source.lsn}, std::pair{"txId", &source.tx_id}}) {
    auto value = integer_field(*it, name, "source.");
    if (!value) return std::unexpected(std::move(value.error()));
    *field = *value;
  }
  return source;
}

}  // namespace

Status debezium_error(std::string_view what, std::string_view bytes, std::string_view why) {
  return Status::corruption(fmt::format("debezium serde: {} in {}: {}", what, excerpt(bytes), why));
}

Result<DebeziumEnvelope> parse_debezium_envelope(std::string_view bytes) {
  if (nested_too_deep(bytes)) return error(too_deep(bytes));
  const Json json = Json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return error(Status::corruption("debezium serde: not valid JSON: " + excerpt(bytes)));
  }
  auto invalid = [&](std::string_view why) {
    return error(debezium_error("not a change event", bytes, why));
  };
  const Json& payload = unwrapped(json);
  if (!payload.is_object()) return invalid("the payload is not a JSON object");
  auto op = payload.find("op");
  if (op == payload.end()) return invalid("no 'op'");
  const std::string op_text = op->is_string() ? op->get<std::string>() : op->dump();
  auto known = std::find_if(kOps.begin(), kOps.end(), [&](const auto& entry) {
    return op_text.size() == 1 && op_text[0] == entry.first;
  });
  if (known == kOps.end()) {
    return invalid(fmt::format("unknown op {} (Debezium's are c, u, d, r and t)", op_text));
  }
  DebeziumEnvelope envelope{.op = known->second};
  for (auto [name, row] :
       {std::pair{"before", &envelope.before}, std::pair{"after", &envelope.after}}) {
    auto it = payload.find(name);
    if (it == payload.end() || it->is_null()) continue;
    if (!it->is_object()) return invalid(fmt::format("'{}' is not an object", name));
    *row = *it;
  }
  const bool needs_after = envelope.op == ChangeOp::kCreate || envelope.op == ChangeOp::kRead ||
                           envelope.op == ChangeOp::kUpdate;
  if (needs_after && envelope.after.is_null()) {
    return invalid(fmt::format("op '{}' without the row after it ('after')", op_text));
  }
  auto source = read_source(payload);
  if (!source) return invalid(source.error());
  envelope.source = std::move(*source);
  auto ts_ms = integer_field(payload, "ts_ms");
  if (!ts_ms) return invalid(ts_ms.error());
  envelope.ts_ms = *ts_ms;
  return envelope;
}

std::string write_debezium_envelope(ChangeOp op, std::string_view before, std::string_view after,
                                    const ChangeSource& source, std::optional<std::int64_t> ts_ms) {
  const auto known =
      std::find_if(kOps.begin(), kOps.end(), [&](const auto& entry) { return entry.second == op; });
  std::string out;
  out.reserve(before.size() + after.size() + 256);
  auto number = [&](std::optional<std::int64_t> n) {
    if (!n) {
      out += "null";
      return;
    }
    append_json_number(out, *n);
  };
  out += "{\"before\":";
  out += before.empty() ? "null" : before;
  out += ",\"after\":";
  out += after.empty() ? "null" : after;
  out += ",\"source\":{";
  for (auto [name, value] :
       {std::pair{"\"connector\":", &source.connector}, std::pair{",\"name\":", &source.name},
        std::pair{",\"db\":", &source.db}, std::pair{",\"schema\":", &source.schema},
        std::pair{",\"table\":", &source.table}, std::pair{",\"snapshot\":", &source.snapshot}}) {
    out += name;
    append_json_string(out, *value);
  }
  out += ",\"ts_ms\":";
  number(source.ts_ms);
  out += ",\"lsn\":";
  number(source.lsn);
  out += ",\"txId\":";
  number(source.tx_id);
  out += "},\"op\":\"";
  out += known->first;
  out += "\",\"ts_ms\":";
  number(ts_ms);
  out += '}';
  return out;
}

Result<nlohmann::json> parse_debezium_key(std::string_view bytes) {
  if (nested_too_deep(bytes)) return error(too_deep(bytes));
  Json json = Json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return error(
        Status::corruption("debezium serde: a key that is not valid JSON: " + excerpt(bytes)));
  }
  Json key = unwrapped(json);
  if (!key.is_object()) {
    return error(debezium_error("not a Debezium key", bytes,
                                "not a JSON object of the primary key's columns"));
  }
  return key;
}

}  // namespace brook::internal
