#include "cli/produce_input.h"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>

namespace brook::cli {
namespace {

using Json = nlohmann::json;

// A key or value of a JSON line: a string is its bytes, null is null, any other JSON value
// its compact JSON text.
std::optional<std::string> bytes_of(const Json& json) {
  if (json.is_null()) return std::nullopt;
  if (json.is_string()) return json.get<std::string>();
  return json.dump();
}

Result<Timestamp> timestamp_of(const Json& json, std::string_view what) {
  if (!json.is_number_integer() || json.get<std::int64_t>() < 0) {
    return error(Status::invalid_argument(
        fmt::format("{} is {}, not an integer >= 0 (ms since the Unix epoch)", what, json.dump())));
  }
  return Timestamp(json.get<std::int64_t>());
}

Status read_json_line(const std::string& line, ProducerRecord& record) {
  const Json json = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Status::invalid_argument("not valid JSON");
  if (!json.is_object()) return Status::invalid_argument("not a JSON object");
  if (!json.contains("value")) {
    return Status::invalid_argument("no \"value\" (write \"value\": null for a tombstone)");
  }
  for (const auto& [field, value] : json.items()) {
    if (field == "key") {
      record.key = bytes_of(value);
    } else if (field == "value") {
      record.value = bytes_of(value);
    } else if (field == "timestamp") {
      auto timestamp = timestamp_of(value, "\"timestamp\"");
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
      if (!value.is_object()) {
        return Status::invalid_argument("\"headers\" is not an object of names to values");
      }
      for (const auto& [name, header] : value.items()) {
        if (!header.is_string() && !header.is_null()) {
          return Status::invalid_argument(
              fmt::format("header \"{}\" is {}, not a string or null", name, header.dump()));
        }
        record.headers.add(name, bytes_of(header));
      }
    } else {
      return Status::invalid_argument(fmt::format(
          "unknown field \"{}\" (a line has key, value, timestamp, headers, partition)", field));
    }
  }
  return Status();
}

void read_text_line(const ProduceInput& input, const std::string& line, ProducerRecord& record) {
  const auto split = line.find(input.key_separator);
  if (split == std::string::npos) {
    record.value = line;
  } else {
    record.key = line.substr(0, split);
    record.value = line.substr(split + input.key_separator.size());
  }
  if (input.null_marker) {
    if (record.key == input.null_marker) record.key.reset();
    if (record.value == input.null_marker) record.value.reset();
  }
}

}  // namespace

Result<ProducerRecord> read_record(const ProduceInput& input, const std::string& line,
                                   Timestamp now) {
  ProducerRecord record{.topic = input.topic,
                        .partition = input.partition,
                        .timestamp = input.timestamp.value_or(now)};
  if (input.format == ProduceInput::Format::kText) {
    read_text_line(input, line, record);
  } else if (auto s = read_json_line(line, record); !s.ok()) {
    return error(s);
  }
  if (input.timestamp_field) {
    const Json value = record.value ? Json::parse(*record.value, nullptr, false) : Json();
    if (!value.is_object() || !value.contains(*input.timestamp_field)) {
      return error(Status::invalid_argument(
          fmt::format("the value has no field \"{}\" for --timestamp-field (it must be a JSON "
                      "object)",
                      *input.timestamp_field)));
    }
    auto timestamp =
        timestamp_of(value[*input.timestamp_field], "\"" + *input.timestamp_field + "\"");
    if (!timestamp) return error(timestamp.error());
    record.timestamp = *timestamp;
  }
  return record;
}

}  // namespace brook::cli
