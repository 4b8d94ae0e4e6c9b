// How `brook produce` turns a line of stdin into a record: text (KEY<SEP>VALUE, or VALUE) or
// JSON lines (one object a line: key, value, timestamp, headers, partition), and where the
// record's timestamp comes from.
#pragma once

#include <optional>
#include <string>

#include "brook/record.h"
#include "brook/status.h"

namespace brook::cli {

struct ProduceInput {
  enum class Format { kText, kJsonl };
  Format format = Format::kText;
  std::string topic;
  std::optional<Partition> partition;      // every record's, unless a JSON line names one
  std::optional<Timestamp> timestamp;      // every record's, unless the line gives one
  std::string key_separator = "\t";        // text only
  std::optional<std::string> null_marker;  // text only: a key or value equal to it is null
  // The name of a field of the value (a JSON object) holding the record's timestamp, in ms
  // since the Unix epoch.
  std::optional<std::string> timestamp_field;
};

// The record `line` describes; its timestamp, if nothing gives one, is `now`. kInvalidArgument
// saying what is wrong with the line.
Result<ProducerRecord> read_record(const ProduceInput& input, const std::string& line,
                                   Timestamp now);

}  // namespace brook::cli
