// Fuzzes AvroSerde::deserialize (brook/avro_serde.h) with two fixed schemas: a recursive record
// of every kind of field (string, long, int, double, float, boolean, a nullable string, an
// array, a map, bytes, an enum, a fixed and a nullable record of its own type), plain and in
// the Confluent wire format (magic byte 0, schema id), and a union of the primitive types, an
// array and a map. The input's first byte picks the serde, the rest are its bytes.
// (No array of items that encode to nothing: up to 2^20 of them are valid, and such inputs
// would take the fuzzer's time.)
// Properties: a decode succeeds or fails with kCorruption, never crashes; a success had the
// Confluent header where the serde expects it and reads what the bytes hold, as a reader of Avro's
// binary encoding written here from the specification reads them (it runs on the bytes the serde
// accepted); the value decoded encodes, and that encoding decodes to the same value (numbers of the
// same kind and value, floating-point ones with the same bits) and encodes to the same bytes again.
#include "brook/avro_serde.h"

#include <bit>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "brook/internal/coding.h"
#include "fuzz/fuzz_support.h"

namespace {

using namespace brook;
using Json = nlohmann::json;

constexpr std::int32_t kSchemaId = 42;

constexpr const char* kRecordSchema = R"({"type": "record", "name": "Event", "fields": [
    {"name": "id", "type": "string"},
    {"name": "seq", "type": "long"},
    {"name": "count", "type": "int"},
    {"name": "score", "type": "double"},
    {"name": "ratio", "type": "float"},
    {"name": "ok", "type": "boolean"},
    {"name": "note", "type": ["null", "string"]},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
    {"name": "attrs", "type": {"type": "map", "values": "long"}},
    {"name": "payload", "type": "bytes"},
    {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B", "C"]}},
    {"name": "digest", "type": {"type": "fixed", "name": "Digest", "size": 4}},
    {"name": "next", "type": ["null", "Event"]}]})";

// Double before float: a number written back takes the first branch that holds it, and a
// double read from the union would be written back rounded to a float (a reported finding).
constexpr const char* kUnionSchema = R"(["null", "boolean", "int", "long", "double", "float",
    "string", "bytes", {"type": "array", "items": ["null", "double"]},
    {"type": "map", "values": "bytes"}])";

// Reads Avro's binary encoding of a value of a schema (in its JSON form) as AvroSerde shows it:
// unions as their branch's value, enums as their symbol, bytes and fixed as strings, floats as
// doubles, a map key that repeats as its last value. Only for bytes that AvroSerde accepted:
// it trusts them to nest and repeat within AvroSerde's limits.
class SpecReader {
 public:
  explicit SpecReader(std::string_view bytes) : rest_(bytes) {}

  // The value of `schema` at the front of the bytes; false if they do not hold one.
  bool read(const Json& schema, Json& out) {
    if (schema.is_array()) {  // a union
      std::int64_t branch;
      if (!read_long(branch) || branch < 0 || branch >= std::int64_t(schema.size())) return false;
      return read(schema[branch], out);
    }
    if (schema.is_string()) {
      const std::string& type = schema.get_ref<const std::string&>();
      if (auto named = named_.find(type); named != named_.end()) return read(*named->second, out);
      return read_primitive(type, out);
    }
    const std::string& type = schema["type"].get_ref<const std::string&>();
    if (schema.contains("name")) named_.emplace(schema["name"].get<std::string>(), &schema);
    if (type == "record") {
      out = Json::object();
      for (const Json& field : schema["fields"]) {
        if (!read(field["type"], out[field["name"].get<std::string>()])) return false;
      }
      return true;
    }
    if (type == "enum") {
      std::int64_t index;
      if (!read_long(index) || index < 0 || index >= std::int64_t(schema["symbols"].size())) {
        return false;
      }
      out = schema["symbols"][index];
      return true;
    }
    if (type == "fixed") return read_bytes(schema["size"].get<std::size_t>(), out);
    if (type == "array" || type == "map") return read_blocks(schema, type == "map", out);
    return read_primitive(type, out);
  }

  bool at_end() const { return rest_.empty(); }

 private:
  bool read_primitive(const std::string& type, Json& out) {
    if (type == "null") {
      out = nullptr;
      return true;
    }
    if (type == "boolean") {
      if (rest_.empty() || static_cast<std::uint8_t>(rest_[0]) > 1) return false;
      out = rest_[0] == 1;
      rest_.remove_prefix(1);
      return true;
    }
    if (type == "int" || type == "long") {
      std::int64_t v;
      if (!read_long(v)) return false;
      if (type == "int" && (v < std::numeric_limits<std::int32_t>::min() ||
                            v > std::numeric_limits<std::int32_t>::max())) {
        return false;
      }
      out = v;
      return true;
    }
    if (type == "float" || type == "double") {
      const std::size_t size = type == "float" ? 4 : 8;
      if (rest_.size() < size) return false;
      const std::uint64_t bits = internal::read_big_endian(reversed(rest_.substr(0, size)));
      rest_.remove_prefix(size);
      out = size == 4 ? double(std::bit_cast<float>(std::uint32_t(bits)))
                      : std::bit_cast<double>(bits);
      return true;
    }
    if (type == "string" || type == "bytes") {
      std::int64_t size;
      return read_long(size) && size >= 0 && read_bytes(std::uint64_t(size), out);
    }
    return false;
  }

  static std::string reversed(std::string_view little_endian) {
    return {little_endian.rbegin(), little_endian.rend()};
  }

  // A zigzag varint of up to 10 bytes.
  bool read_long(std::int64_t& out) {
    std::uint64_t raw = 0;
    for (int shift = 0;; shift += 7) {
      if (rest_.empty() || shift > 63) return false;
      const auto b = static_cast<std::uint8_t>(rest_[0]);
      rest_.remove_prefix(1);
      raw |= std::uint64_t(b & 0x7f) << shift;
      if ((b & 0x80) == 0) break;
    }
    out = static_cast<std::int64_t>(raw >> 1) ^ -static_cast<std::int64_t>(raw & 1);
    return true;
  }

  bool read_bytes(std::uint64_t size, Json& out) {
    if (size > rest_.size()) return false;
    out = std::string(rest_.substr(0, size));
    rest_.remove_prefix(size);
    return true;
  }

  // Blocks of items, each a count (negative: then its size in bytes), up to a count of 0.
  bool read_blocks(const Json& schema, bool map, Json& out) {
    out = map ? Json::object() : Json::array();
    const Json& items = schema[map ? "values" : "items"];
    for (;;) {
      std::int64_t count, size;
      if (!read_long(count)) return false;
      if (count == 0) return true;
      if (count < 0 && !read_long(size)) return false;
      for (std::uint64_t i = 0; i < (count < 0 ? 0 - std::uint64_t(count) : std::uint64_t(count));
           ++i) {
        Json key, item;
        if ((map && !read_primitive("string", key)) || !read(items, item)) return false;
        if (map) {
          out[key.get<std::string>()] = std::move(item);
        } else {
          out.push_back(std::move(item));
        }
      }
    }
  }

  std::string_view rest_;
  std::map<std::string, const Json*> named_;
};

// Equal, with numbers of the same kind and floating-point ones of the same bits (-0.0 is not
// 0.0, a NaN is itself).
bool same(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_number_float()) {
    return std::bit_cast<std::uint64_t>(a.get<double>()) ==
           std::bit_cast<std::uint64_t>(b.get<double>());
  }
  if (a.is_array() || a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y) {
      if ((a.is_object() && x.key() != y.key()) || !same(*x, *y)) return false;
    }
    return true;
  }
  return a == b;
}

struct Case {
  std::shared_ptr<const AvroSerde> serde;
  Json schema;
  bool confluent = false;
};

Case make_case(const char* schema, bool confluent) {
  AvroOptions options;
  if (confluent) options.confluent_schema_id = kSchemaId;
  auto serde = AvroSerde::make(schema, options);
  FUZZ_CHECK(serde.has_value());
  return {*serde, Json::parse(schema), confluent};
}

void check(const Case& c, std::string_view bytes) {
  auto decoded = c.serde->deserialize(bytes);
  if (!decoded) {
    FUZZ_CHECK(decoded.error().code() == StatusCode::kCorruption);
    return;
  }
  std::string_view body = bytes;
  if (c.confluent) {
    FUZZ_CHECK(bytes.size() >= 5 && bytes[0] == '\0' &&
               internal::get_big_endian<std::int32_t>(bytes.data() + 1) == kSchemaId);
    body.remove_prefix(5);
  }
  SpecReader reader(body);
  Json expected;
  FUZZ_CHECK(reader.read(c.schema, expected) && reader.at_end());
  FUZZ_CHECK(same(*decoded, expected));

  auto encoded = c.serde->serialize(*decoded);
  FUZZ_CHECK(encoded.has_value());
  auto again = c.serde->deserialize(*encoded);
  FUZZ_CHECK(again.has_value() && same(*again, *decoded));
  auto reencoded = c.serde->serialize(*again);
  FUZZ_CHECK(reencoded.has_value() && *reencoded == *encoded);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Case cases[] = {make_case(kRecordSchema, false), make_case(kRecordSchema, true),
                               make_case(kUnionSchema, false)};
  fuzz::FuzzInput input(data, size);
  const Case& c = cases[input.byte() % std::size(cases)];
  check(c, input.rest());
  return 0;
}
