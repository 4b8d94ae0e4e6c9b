// Records as JSON lines, the form `brook produce --format jsonl` reads and `brook consume
// --format jsonl` writes, so that one's output is the other's input:
//   {"partition": 0, "offset": 7, "timestamp": 1700000000000, "key": "k", "value": {"n": 1},
//    "headers": [{"key": "h", "value": "x"}]}
// A key or value is written as a JSON string when it is UTF-8 text, else base64 in
// "key_base64" / "value_base64" (a header's in "value_base64"); null as null. Read, a key or
// value that is a JSON string is its text, null is null, any other JSON value its compact JSON
// text; headers may also be an object of names to strings.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "brook/record.h"
#include "brook/status.h"

namespace brook::cli {

// The JSON line of `record` (without the trailing newline).
std::string json_line(const ConsumerRecord& record);

// Fills `record`'s key, value, headers, and timestamp and partition if the line gives them,
// from a JSON line; kInvalidArgument saying what is wrong with it.
Status read_json_line(const std::string& line, ProducerRecord& record);

// A timestamp given in JSON: an integer >= 0, ms since the Unix epoch; kInvalidArgument naming
// `what` otherwise.
Result<Timestamp> json_timestamp(const nlohmann::json& json, std::string_view what);

}  // namespace brook::cli
