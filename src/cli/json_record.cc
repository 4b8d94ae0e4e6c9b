#include "cli/json_record.h"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "core/utf8.h"

namespace brook::cli {
namespace {

using Json = nlohmann::json;

// Sets `out[name]` to the bytes as text, or `out[name + "_base64"]` when they are not UTF-8.
void put_bytes(Json& out, const std::string& name, const std::optional<std::string>& bytes) {
  if (!bytes) {
    out[name] = nullptr;
  } else if (internal::is_utf8(*bytes)) {
    out[name] = *bytes;
  } else {
    out[name + "_base64"] = internal::base64_encode(*bytes);
  }
}

// A key or value read: a string is its text, null is null, any other JSON value its JSON text.
std::optional<std::string> bytes_of(const Json& json) {
  if (json.is_null()) return std::nullopt;
  if (json.is_string()) return json.get<std::string>();
  return json.dump();
}

Result<std::string> from_base64(const Json& json, std::string_view field) {
  auto bytes = json.is_string() ? internal::base64_decode(json.get<std::string>()) : std::nullopt;
  if (!bytes) {
    return error(Status::invalid_argument(fmt::format("\"{}\" is not base64 text", field)));
  }
  return *bytes;
}

Status read_headers(const Json& json, Headers& headers) {
  if (json.is_object()) {
    for (const auto& [name, value] : json.items()) {
      if (!value.is_string() && !value.is_null()) {
        return Status::invalid_argument(
            fmt::format("header \"{}\" is {}, not a string or null", name, value.dump()));
      }
      headers.add(name, bytes_of(value));
    }
    return Status();
  }
  if (!json.is_array()) {
    return Status::invalid_argument(
        "\"headers\" is neither an object of names to values nor an array of {\"key\", \"value\"}");
  }
  for (const auto& header : json) {
    std::string name;
    if (header.is_object() && header.contains("key_base64")) {
      auto bytes = from_base64(header["key_base64"], "key_base64");
      if (!bytes) return bytes.error();
      name = std::move(*bytes);
    } else if (header.is_object() && header.contains("key") && header["key"].is_string()) {
      name = header["key"].get<std::string>();
    } else {
      return Status::invalid_argument(
          fmt::format("header {} has no \"key\" string", header.dump()));
    }
    if (header.contains("value_base64")) {
      auto bytes = from_base64(header["value_base64"], "value_base64");
      if (!bytes) return bytes.error();
      headers.add(std::move(name), std::move(*bytes));
    } else {
      const Json value = header.value("value", Json());
      if (!value.is_string() && !value.is_null()) {
        return Status::invalid_argument(
            fmt::format("header {} has a value that is not a string", header.dump()));
      }
      headers.add(std::move(name), bytes_of(value));
    }
  }
  return Status();
}

}  // namespace

Result<Timestamp> json_timestamp(const nlohmann::json& json, std::string_view what) {
  if (!json.is_number_integer() || json.get<std::int64_t>() < 0) {
    return error(Status::invalid_argument(
        fmt::format("{} is {}, not an integer >= 0 (ms since the Unix epoch)", what, json.dump())));
  }
  return Timestamp(json.get<std::int64_t>());
}

std::string json_line(const ConsumerRecord& record) {
  Json out = {{"partition", record.partition.value()},
              {"offset", record.offset.value()},
              {"timestamp", record.timestamp.value()}};
  put_bytes(out, "key", record.key);
  put_bytes(out, "value", record.value);
  Json headers = Json::array();
  for (const auto& header : record.headers) {
    Json entry = Json::object();
    put_bytes(entry, "key", header.key);
    put_bytes(entry, "value", header.value);
    headers.push_back(std::move(entry));
  }
  out["headers"] = std::move(headers);
  return out.dump();
}

Status read_json_line(const std::string& line, ProducerRecord& record) {
  const Json json = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Status::invalid_argument("not valid JSON");
  if (!json.is_object()) return Status::invalid_argument("not a JSON object");
  if (!json.contains("value") && !json.contains("value_base64")) {
    return Status::invalid_argument("no \"value\" (write \"value\": null for a tombstone)");
  }
  for (const auto& [field, value] : json.items()) {
    if (field == "key" || field == "value") {
      (field == "key" ? record.key : record.value) = bytes_of(value);
    } else if (field == "key_base64" || field == "value_base64") {
      auto bytes = from_base64(value, field);
      if (!bytes) return bytes.error();
      (field == "key_base64" ? record.key : record.value) = std::move(*bytes);
    } else if (field == "timestamp") {
      auto timestamp = json_timestamp(value, "\"timestamp\"");
      if (!timestamp) return timestamp.error();
      record.timestamp = *timestamp;
    } else if (field == "partition") {
      if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
          value.get<std::int64_t>() > std::numeric_limits<std::int32_t>::max()) {
        return Status::invalid_argument(
            fmt::format("\"partition\" is {}, not a partition number", value.dump()));
      }
      record.partition = Partition(value.get<std::int32_t>());
    } else if (field == "headers") {
      if (auto s = read_headers(value, record.headers); !s.ok()) return s;
    } else if (field != "offset") {  // consume's output carries it; the log assigns its own
      return Status::invalid_argument(
          fmt::format("unknown field \"{}\" (a line has key, value, timestamp, headers, "
                      "partition)",
                      field));
    }
  }
  return Status();
}

}  // namespace brook::cli
