#include "cli/produce_input.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/json_record.h"

namespace brook::cli {
namespace {

using Json = nlohmann::json;

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
        json_timestamp(value[*input.timestamp_field], "\"" + *input.timestamp_field + "\"");
    if (!timestamp) return error(timestamp.error());
    record.timestamp = *timestamp;
  }
  return record;
}

}  // namespace brook::cli
