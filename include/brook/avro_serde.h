// AvroSerde: Avro binary encoding of generic records, optionally in the Confluent wire format.
//
// Values are nlohmann::json documents shaped like the schema:
//
//   Avro type                      JSON value
//   null                           null
//   boolean                        true / false
//   int, long                      an integer number (in range for the type)
//   float, double                  any number (an integer converts; a float must be in range)
//   string                         a string
//   bytes, fixed                   a string holding the raw bytes (or a JSON binary value);
//                                  a fixed must have exactly its size
//   enum                           a string, one of the symbols
//   array                          an array
//   map                            an object
//   record                         an object with one member per field, in any order
//   union                          the plain value of the branch, or null for a null branch
//
// Writing a union picks the first branch whose type fits the JSON value (null for null, int or
// long for an integer in range, float or double for any number, string, bytes, or a fixed of
// that length for a string, an enum whose symbols contain the string, array for an array, map or
// record for an object), preferring a branch that keeps the value whole: ["float", "double"]
// writes 0.5 as a float and 0.1 as a double.
// The common nullable field ["null", T] therefore takes null or a T. A record member that is
// absent from the JSON object is written as null if its type is a union with a null branch and
// is an error otherwise; members that are not fields of the record are ignored. Reading always
// yields every field, unions as their plain value, bytes and fixed as strings, and floats as
// doubles. Strings read from bytes and fixed hold raw bytes that need not be valid UTF-8, which
// nlohmann::json::dump() rejects by default (pass error_handler_t::replace to print them).
//
// Example:
//
//   auto serde = brook::AvroSerde::make(R"({"type": "record", "name": "User", "fields": [
//       {"name": "name", "type": "string"}, {"name": "age", "type": ["null", "int"]}]})");
//   if (!serde) return serde.error();                      // InvalidArgument: the schema
//   auto bytes = (*serde)->serialize({{"name", "a"}, {"age", 1}});  // 02 61 02 02
//
// Thread safety: an AvroSerde is immutable after make(); serialize() and deserialize() may be
// called concurrently from any number of threads on one instance.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "brook/serde.h"
#include "brook/status.h"

namespace brook {

struct AvroOptions {
  // When set, bytes use the Confluent wire format: magic byte 0, this schema id as 4 bytes
  // big-endian, then the Avro binary body. deserialize() checks both and names the mismatch.
  std::optional<std::int32_t> confluent_schema_id;
};

// Avro binary encoding of generic records (see the top of this file for the JSON shape).
class AvroSerde final : public Serde<nlohmann::json> {
 public:
  // Parses schema_json (an Avro schema in its JSON form) with the Avro C library.
  //
  // Returns the serde, or kInvalidArgument whose message names what the Avro library said
  // about the schema (e.g. "avro serde: invalid schema: Unknown Avro \"type\": foo").
  // Supported types: null, boolean, int, long, float, double, bytes, string, record, enum,
  // array, map, union and fixed, including recursive records.
  static Result<std::shared_ptr<const AvroSerde>> make(std::string_view schema_json,
                                                       AvroOptions options = {});

  AvroSerde(const AvroSerde&) = delete;
  AvroSerde& operator=(const AvroSerde&) = delete;
  ~AvroSerde() override;

  // "avro".
  std::string_view name() const override;

  // Encodes value with the schema (prefixed by the Confluent header if configured).
  //
  // Returns kInvalidArgument if value does not fit the schema; the message names the path of
  // the offending value from the top-level record, e.g.
  // "avro serde: field 'user.age': expected int, got string" (array elements as "tags[2]",
  // map values as "attrs[\"k\"]"). Returns kInternal if the Avro library fails unexpectedly.
  Result<std::string> serialize(const nlohmann::json& value) const override;

  // Decodes bytes written with this schema (and, if configured, the Confluent header with this
  // schema id).
  //
  // Returns kCorruption, with a message starting "avro serde:" that names the problem and where
  // it was found, if the bytes are not exactly one encoded value: truncated, malformed (e.g. an
  // enum index or union branch out of range, a negative length), followed by trailing bytes,
  // nested deeper than 256 levels, holding more than 2^20 zero-size array items or a map key
  // with a NUL character (which serialize() refuses too), or with a missing or different
  // Confluent magic byte or schema id. Any byte string is safe to pass: it is checked against
  // the schema before the Avro library decodes it.
  Result<nlohmann::json> deserialize(std::string_view bytes) const override;

 private:
  struct Impl;
  explicit AvroSerde(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace brook
