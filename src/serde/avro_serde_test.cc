#include "brook/avro_serde.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace brook {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string bytes(std::initializer_list<unsigned> values) {
  std::string out;
  for (unsigned v : values) out.push_back(static_cast<char>(v));
  return out;
}

std::shared_ptr<const AvroSerde> make_serde(std::string_view schema, AvroOptions options = {}) {
  auto serde = AvroSerde::make(schema, options);
  EXPECT_TRUE(serde.has_value()) << serde.error().to_string();
  return serde ? *serde : nullptr;
}

json round_trip(const AvroSerde& serde, const json& value) {
  auto encoded = serde.serialize(value);
  EXPECT_TRUE(encoded.has_value()) << encoded.error().to_string();
  if (!encoded) return json();
  auto decoded = serde.deserialize(*encoded);
  EXPECT_TRUE(decoded.has_value()) << decoded.error().to_string();
  return decoded ? *decoded : json();
}

Status serialize_error(const AvroSerde& serde, const json& value) {
  auto encoded = serde.serialize(value);
  EXPECT_FALSE(encoded.has_value()) << value.dump();
  return encoded ? Status() : encoded.error();
}

Status deserialize_error(const AvroSerde& serde, std::string_view data) {
  auto decoded = serde.deserialize(data);
  EXPECT_FALSE(decoded.has_value()) << decoded->dump();
  return decoded ? Status() : decoded.error();
}

constexpr const char* kUserSchema = R"({"type": "record", "name": "User", "fields": [
    {"name": "name", "type": "string"}, {"name": "age", "type": "int"}]})";

constexpr const char* kAllTypesSchema = R"({
  "type": "record", "name": "All", "namespace": "brook.test", "fields": [
    {"name": "n", "type": "null"},
    {"name": "b", "type": "boolean"},
    {"name": "i", "type": "int"},
    {"name": "l", "type": "long"},
    {"name": "f", "type": "float"},
    {"name": "d", "type": "double"},
    {"name": "by", "type": "bytes"},
    {"name": "s", "type": "string"},
    {"name": "e", "type": {"type": "enum", "name": "Suit",
                           "symbols": ["SPADES", "HEARTS", "DIAMONDS", "CLUBS"]}},
    {"name": "fx", "type": {"type": "fixed", "name": "Four", "size": 4}},
    {"name": "a", "type": {"type": "array", "items": "int"}},
    {"name": "m", "type": {"type": "map", "values": "string"}},
    {"name": "u", "type": ["null", "string", "long"]},
    {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [
        {"name": "x", "type": ["null", "double"]},
        {"name": "tags", "type": {"type": "array", "items": "string"}}]}}
  ]})";

json all_types_value() {
  json v = {{"n", nullptr},
            {"b", true},
            {"i", -42},
            {"l", std::int64_t{1} << 40},
            {"f", 1.5},
            {"d", -2.25},
            {"by", std::string("\0\x01\xff", 3)},
            {"s", "héllo"},
            {"e", "DIAMONDS"},
            {"fx", std::string("ab\0d", 4)},
            {"a", {1, -2, 3}},
            {"m", {{"k1", "v1"}, {"k2", ""}}},
            {"u", "x"},
            {"inner", {{"x", 0.5}, {"tags", {"t1", "t2"}}}}};
  return v;
}

constexpr const char* kOrderSchema = R"({
  "type": "record", "name": "Order", "fields": [
    {"name": "id", "type": "long"},
    {"name": "user", "type": {"type": "record", "name": "Customer", "fields": [
        {"name": "name", "type": "string"},
        {"name": "age", "type": "int"},
        {"name": "address", "type": ["null", {"type": "record", "name": "Address", "fields": [
            {"name": "street", "type": "string"},
            {"name": "zip", "type": ["null", "int"]}]}]}]}},
    {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
        "fields": [{"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}}},
    {"name": "attrs", "type": {"type": "map", "values": ["null", "string"]}}
  ]})";

constexpr const char* kListSchema = R"({"type": "record", "name": "Node", "fields": [
    {"name": "value", "type": "string"}, {"name": "next", "type": ["null", "Node"]}]})";

TEST(AvroSerde, IsNamedAvro) {
  auto serde = make_serde(kUserSchema);
  ASSERT_NE(serde, nullptr);
  EXPECT_EQ(serde->name(), "avro");
}

TEST(AvroSerde, EncodesSimpleRecordAsZigzagVarints) {
  auto serde = make_serde(kUserSchema);
  ASSERT_NE(serde, nullptr);
  EXPECT_EQ(*serde->serialize({{"name", "a"}, {"age", 1}}), bytes({0x02, 0x61, 0x02}));
  EXPECT_EQ(*serde->serialize({{"name", ""}, {"age", -1}}), bytes({0x00, 0x01}));
  EXPECT_EQ(*serde->serialize({{"name", "ab"}, {"age", 64}}),
            bytes({0x04, 0x61, 0x62, 0x80, 0x01}));
  EXPECT_EQ(*serde->deserialize(bytes({0x02, 0x61, 0x02})), json({{"name", "a"}, {"age", 1}}));
}

TEST(AvroSerde, EncodesEachTypeAsTheSpecificationSays) {
  struct Case {
    const char* schema;
    json value;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {R"("null")", nullptr, ""},
      {R"("boolean")", true, bytes({0x01})},
      {R"("boolean")", false, bytes({0x00})},
      {R"("int")", -64, bytes({0x7f})},
      {R"("int")", std::numeric_limits<std::int32_t>::min(), bytes({0xff, 0xff, 0xff, 0xff, 0x0f})},
      {R"("long")", -1, bytes({0x01})},
      {R"("long")", 150, bytes({0xac, 0x02})},
      {R"("float")", 1.0, bytes({0x00, 0x00, 0x80, 0x3f})},
      {R"("double")", 1.0, bytes({0, 0, 0, 0, 0, 0, 0xf0, 0x3f})},
      {R"("string")", "ab", bytes({0x04, 0x61, 0x62})},
      {R"("bytes")", std::string("\0\xff", 2), bytes({0x04, 0x00, 0xff})},
      {R"({"type": "fixed", "name": "F", "size": 2})", "xy", "xy"},
      {R"({"type": "enum", "name": "E", "symbols": ["A", "B"]})", "B", bytes({0x02})},
      {R"({"type": "array", "items": "int"})", json::array({1, 2}),
       bytes({0x04, 0x02, 0x04, 0x00})},
      {R"({"type": "array", "items": "int"})", json::array(), bytes({0x00})},
      {R"({"type": "map", "values": "int"})", json({{"a", 1}}),
       bytes({0x02, 0x02, 0x61, 0x02, 0x00})},
      {R"(["null", "string"])", nullptr, bytes({0x00})},
      {R"(["null", "string"])", "a", bytes({0x02, 0x02, 0x61})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.schema) + " " +
                 c.value.dump(-1, ' ', false, json::error_handler_t::replace));
    auto serde = make_serde(c.schema);
    ASSERT_NE(serde, nullptr);
    auto encoded = serde->serialize(c.value);
    ASSERT_TRUE(encoded.has_value()) << encoded.error().to_string();
    EXPECT_EQ(*encoded, c.expected);
    auto decoded = serde->deserialize(c.expected);
    ASSERT_TRUE(decoded.has_value()) << decoded.error().to_string();
    EXPECT_EQ(*decoded, c.value);
  }
}

TEST(AvroSerde, RoundTripsEveryType) {
  auto serde = make_serde(kAllTypesSchema);
  ASSERT_NE(serde, nullptr);
  const json value = all_types_value();
  EXPECT_EQ(round_trip(*serde, value), value);
}

TEST(AvroSerde, RoundTripsEdgeValues) {
  auto serde = make_serde(kAllTypesSchema);
  ASSERT_NE(serde, nullptr);
  json value = all_types_value();
  value["b"] = false;
  value["i"] = std::numeric_limits<std::int32_t>::min();
  value["l"] = std::numeric_limits<std::int64_t>::min();
  value["f"] = -0.0;
  value["d"] = std::numeric_limits<double>::infinity();
  value["by"] = "";
  value["s"] = "";
  value["e"] = "SPADES";
  value["fx"] = std::string(4, '\0');
  value["a"] = json::array();
  value["m"] = json::object();
  value["u"] = nullptr;
  value["inner"] = {{"x", nullptr}, {"tags", json::array()}};
  EXPECT_EQ(round_trip(*serde, value), value);

  value["i"] = std::numeric_limits<std::int32_t>::max();
  value["l"] = std::numeric_limits<std::int64_t>::max();
  value["d"] = std::numeric_limits<double>::lowest();
  value["u"] = std::int64_t{-7};
  EXPECT_EQ(round_trip(*serde, value), value);
}

TEST(AvroSerde, RoundTripsNestedRecordWithNullableField) {
  auto serde = make_serde(kOrderSchema);
  ASSERT_NE(serde, nullptr);
  const json with_address = json::parse(R"({
    "id": 7, "user": {"name": "ann", "age": 31,
                      "address": {"street": "Main St", "zip": 12345}},
    "lines": [{"sku": "A1", "qty": 2}, {"sku": "B2", "qty": 1}],
    "attrs": {"gift": "yes", "note": null}})");
  EXPECT_EQ(round_trip(*serde, with_address), with_address);

  const json without = json::parse(R"({
    "id": -1, "user": {"name": "bob", "age": 0, "address": null},
    "lines": [], "attrs": {}})");
  EXPECT_EQ(round_trip(*serde, without), without);

  json null_zip = with_address;
  null_zip["user"]["address"]["zip"] = nullptr;
  EXPECT_EQ(round_trip(*serde, null_zip), null_zip);
}

TEST(AvroSerde, RoundTripsRecursiveRecord) {
  auto serde = make_serde(kListSchema);
  ASSERT_NE(serde, nullptr);
  const json list = json::parse(
      R"({"value": "a", "next": {"value": "b", "next": {"value": "c", "next": null}}})");
  EXPECT_EQ(round_trip(*serde, list), list);
}

TEST(AvroSerde, AbsentNullableFieldIsWrittenAsNull) {
  auto serde = make_serde(kOrderSchema);
  ASSERT_NE(serde, nullptr);
  const json value = json::parse(R"({
    "id": 1, "user": {"name": "c", "age": 2}, "lines": [], "attrs": {}})");
  json expected = value;
  expected["user"]["address"] = nullptr;
  EXPECT_EQ(round_trip(*serde, value), expected);
}

TEST(AvroSerde, IgnoresMembersThatAreNotFields) {
  auto serde = make_serde(kUserSchema);
  ASSERT_NE(serde, nullptr);
  EXPECT_EQ(*serde->serialize({{"name", "a"}, {"age", 1}, {"extra", {1, 2}}}),
            bytes({0x02, 0x61, 0x02}));
}

TEST(AvroSerde, UnionPicksTheFirstBranchThatFits) {
  auto serde = make_serde(R"(["null", "int", "string", "double", {"type": "array",
                              "items": "long"}])");
  ASSERT_NE(serde, nullptr);
  EXPECT_EQ(*serde->serialize(nullptr), bytes({0x00}));
  EXPECT_EQ(*serde->serialize(5), bytes({0x02, 0x0a}));
  EXPECT_EQ(*serde->serialize("x"), bytes({0x04, 0x02, 0x78}));
  EXPECT_EQ(serde->serialize(1.5)->substr(0, 1), bytes({0x06}));
  EXPECT_EQ(serde->serialize(std::int64_t{1} << 40)->front(), '\x06');  // too big for an int
  EXPECT_EQ(*serde->serialize(json::array({1})), bytes({0x08, 0x02, 0x02, 0x00}));
  for (const json& v : {json(nullptr), json(5), json("x"), json(1.5), json::array({1, 2})}) {
    EXPECT_EQ(round_trip(*serde, v), v);
  }
}

TEST(AvroSerde, AUnionOfFloatAndDoubleKeepsEveryDoubleWhole) {
  auto serde = make_serde(R"(["float", "double"])");
  ASSERT_NE(serde, nullptr);
  EXPECT_EQ(serde->serialize(0.5)->front(), '\x00');  // a float holds it exactly
  EXPECT_EQ(serde->serialize(0.1)->front(), '\x02');  // a float would not
  EXPECT_EQ(serde->serialize(1e300)->front(), '\x02');
  for (const json& v : {json(0.5), json(0.1), json(1e300), json(-3)}) {
    EXPECT_EQ(round_trip(*serde, v), v) << v;
  }
}

TEST(AvroSerde, RepeatedUseStartsFromACleanValue) {
  auto serde = make_serde(kAllTypesSchema);
  ASSERT_NE(serde, nullptr);
  json big = all_types_value();
  big["a"] = json::array({1, 2, 3, 4, 5, 6, 7, 8});
  big["m"] = {{"a", "1"}, {"b", "2"}, {"c", "3"}};
  json small = all_types_value();
  small["a"] = json::array({9});
  small["m"] = {{"z", "26"}};
  small["u"] = nullptr;
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(round_trip(*serde, big), big);
    EXPECT_EQ(round_trip(*serde, small), small);
    EXPECT_FALSE(serde->serialize({{"n", nullptr}}).has_value());  // fails half way
  }
}

TEST(AvroSerde, WritesTheConfluentWireFormat) {
  auto serde = make_serde(kUserSchema, {.confluent_schema_id = 42});
  ASSERT_NE(serde, nullptr);
  const json value = {{"name", "a"}, {"age", 1}};
  auto encoded = serde->serialize(value);
  ASSERT_TRUE(encoded.has_value()) << encoded.error().to_string();
  EXPECT_EQ(*encoded, bytes({0x00, 0x00, 0x00, 0x00, 0x2a, 0x02, 0x61, 0x02}));
  EXPECT_EQ(*serde->deserialize(*encoded), value);

  auto big_id = make_serde(kUserSchema, {.confluent_schema_id = 0x01020304});
  ASSERT_NE(big_id, nullptr);
  EXPECT_EQ(big_id->serialize(value)->substr(0, 5), bytes({0x00, 0x01, 0x02, 0x03, 0x04}));
}

TEST(AvroSerde, ConfluentWrongMagicByteIsCorruption) {
  auto serde = make_serde(kUserSchema, {.confluent_schema_id = 42});
  ASSERT_NE(serde, nullptr);
  const Status status = deserialize_error(*serde, bytes({0x01, 0, 0, 0, 0x2a, 0x02, 0x61, 0x02}));
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_EQ(status.message(), "avro serde: expected Confluent magic byte 0, got 1");
}

TEST(AvroSerde, ConfluentWrongSchemaIdIsCorruption) {
  auto serde = make_serde(kUserSchema, {.confluent_schema_id = 42});
  ASSERT_NE(serde, nullptr);
  const Status status = deserialize_error(*serde, bytes({0x00, 0, 0, 0, 0x07, 0x02, 0x61, 0x02}));
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_EQ(status.message(), "avro serde: expected Confluent schema id 42, got 7");
}

TEST(AvroSerde, ConfluentHeaderTooShortIsCorruption) {
  auto serde = make_serde(kUserSchema, {.confluent_schema_id = 42});
  ASSERT_NE(serde, nullptr);
  for (std::size_t n = 0; n < 5; ++n) {
    const Status status = deserialize_error(*serde, bytes({0x00, 0, 0, 0, 0x2a}).substr(0, n));
    EXPECT_EQ(status.code(), StatusCode::kCorruption);
    EXPECT_THAT(status.message(), StartsWith("avro serde: expected the 5-byte Confluent header"));
  }
  // Header only, no body: the record is missing.
  const Status empty_body = deserialize_error(*serde, bytes({0x00, 0, 0, 0, 0x2a}));
  EXPECT_EQ(empty_body.code(), StatusCode::kCorruption);
}

TEST(AvroSerde, PlainBytesAreNotReadAsConfluent) {
  auto plain = make_serde(kUserSchema);
  auto confluent = make_serde(kUserSchema, {.confluent_schema_id = 42});
  ASSERT_NE(plain, nullptr);
  ASSERT_NE(confluent, nullptr);
  const json value = {{"name", "a"}, {"age", 1}};
  EXPECT_FALSE(confluent->deserialize(*plain->serialize(value)).has_value());
  EXPECT_FALSE(plain->deserialize(*confluent->serialize(value)).has_value());
}

TEST(AvroSerde, InvalidSchemaIsInvalidArgumentWithTheLibraryMessage) {
  for (const char* schema :
       {"", "{", R"({"type": "foo"})", R"({"type": "record", "fields": []})",
        R"({"type": "record", "name": "R", "fields": [{"name": "a", "type": "nope"}]})",
        R"({"type": "enum", "name": "E"})", R"("Undefined")"}) {
    auto serde = AvroSerde::make(schema);
    ASSERT_FALSE(serde.has_value()) << schema;
    EXPECT_EQ(serde.error().code(), StatusCode::kInvalidArgument) << schema;
    EXPECT_THAT(serde.error().message(), StartsWith("avro serde: invalid schema: ")) << schema;
  }
  auto unknown = AvroSerde::make(R"({"type": "foo"})");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_THAT(unknown.error().message(), HasSubstr("foo"));
}

TEST(AvroSerde, MissingFieldIsInvalidArgumentNamingIt) {
  auto serde = make_serde(kUserSchema);
  ASSERT_NE(serde, nullptr);
  const Status status = serialize_error(*serde, {{"name", "a"}});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), StartsWith("avro serde: field 'age': missing"));
}

TEST(AvroSerde, WrongTypeIsInvalidArgumentNamingTheFieldPath) {
  auto serde = make_serde(R"({"type": "record", "name": "Event", "fields": [
      {"name": "user", "type": {"type": "record", "name": "User", "fields": [
          {"name": "name", "type": "string"}, {"name": "age", "type": "int"}]}}]})");
  ASSERT_NE(serde, nullptr);
  const Status status = serialize_error(*serde, {{"user", {{"name", "a"}, {"age", "old"}}}});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "avro serde: field 'user.age': expected int, got string");

  EXPECT_EQ(serialize_error(*serde, {{"user", "bob"}}).message(),
            "avro serde: field 'user': expected record User, got string");
  EXPECT_EQ(serialize_error(*serde, json::array()).message(),
            "avro serde: expected record Event, got array");
  EXPECT_EQ(serialize_error(*serde, {{"user", {{"name", "a"}, {"age", 1.5}}}}).message(),
            "avro serde: field 'user.age': expected int, got number");
}

TEST(AvroSerde, PathNamesArrayIndicesAndMapKeys) {
  auto serde = make_serde(kOrderSchema);
  ASSERT_NE(serde, nullptr);
  json value = json::parse(R"({
    "id": 1, "user": {"name": "c", "age": 2, "address": null},
    "lines": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": "two"}], "attrs": {}})");
  EXPECT_EQ(serialize_error(*serde, value).message(),
            "avro serde: field 'lines[1].qty': expected int, got string");
  value["lines"] = json::array();
  value["attrs"] = {{"color", 5}};
  EXPECT_EQ(serialize_error(*serde, value).message(),
            "avro serde: field 'attrs[\"color\"]': expected string, got integer");
  value["attrs"] = json::object();
  value["user"]["address"] = {{"street", 1}};
  EXPECT_EQ(serialize_error(*serde, value).message(),
            "avro serde: field 'user.address.street': expected string, got integer");
}

TEST(AvroSerde, UnknownEnumSymbolIsInvalidArgument) {
  auto serde = make_serde(kAllTypesSchema);
  ASSERT_NE(serde, nullptr);
  json value = all_types_value();
  value["e"] = "JOKER";
  const Status status = serialize_error(*serde, value);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "avro serde: field 'e': 'JOKER' is not a symbol of enum Suit "
            "(SPADES, HEARTS, DIAMONDS, CLUBS)");
}

TEST(AvroSerde, ValuesOutOfRangeOrOfTheWrongSizeAreInvalidArgument) {
  auto serde = make_serde(kAllTypesSchema);
  ASSERT_NE(serde, nullptr);
  json value = all_types_value();
  value["i"] = std::int64_t{3'000'000'000};
  EXPECT_EQ(serialize_error(*serde, value).message(),
            "avro serde: field 'i': expected int, got 3000000000 (out of range)");
  value = all_types_value();
  value["l"] = std::numeric_limits<std::uint64_t>::max();
  EXPECT_THAT(serialize_error(*serde, value).message(),
              StartsWith("avro serde: field 'l': expected long"));
  value = all_types_value();
  value["f"] = 1e300;
  EXPECT_EQ(serialize_error(*serde, value).message(),
            "avro serde: field 'f': expected float, got 1e+300 (out of range)");
  value = all_types_value();
  value["fx"] = "abc";
  EXPECT_EQ(serialize_error(*serde, value).message(),
            "avro serde: field 'fx': expected fixed Four of 4 bytes, got 3");
  value = all_types_value();
  value["b"] = 1;
  EXPECT_EQ(serialize_error(*serde, value).message(),
            "avro serde: field 'b': expected boolean, got integer");
  value = all_types_value();
  value["u"] = true;
  EXPECT_EQ(serialize_error(*serde, value).message(),
            "avro serde: field 'u': expected one of [null, string, long], got boolean");
}

TEST(AvroSerde, TruncatedBytesAreCorruption) {
  auto serde = make_serde(kAllTypesSchema);
  ASSERT_NE(serde, nullptr);
  const std::string encoded = *serde->serialize(all_types_value());
  for (std::size_t n = 0; n < encoded.size(); ++n) {
    const Status status = deserialize_error(*serde, encoded.substr(0, n));
    EXPECT_EQ(status.code(), StatusCode::kCorruption) << n;
    EXPECT_THAT(status.message(), StartsWith("avro serde: ")) << n;
  }
  EXPECT_THAT(deserialize_error(*serde, encoded.substr(0, 3)).message(), HasSubstr("field 'l'"));
}

TEST(AvroSerde, TrailingBytesAreCorruption) {
  auto serde = make_serde(kUserSchema);
  ASSERT_NE(serde, nullptr);
  const Status status = deserialize_error(*serde, bytes({0x02, 0x61, 0x02, 0x00}));
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_EQ(status.message(), "avro serde: 1 trailing bytes after the value (at offset 3)");
}

TEST(AvroSerde, HostileLengthsCountsAndIndicesAreCorruption) {
  struct Case {
    const char* schema;
    std::string data;
    const char* message;
  };
  const std::string huge = bytes({0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f});
  const std::vector<Case> cases = {
      {R"("string")", huge + "abc", "string of"},
      {R"("bytes")", bytes({0x03, 0x61}), "bytes with negative length -2"},
      {R"("long")", std::string(10, '\xff') + bytes({0x01}), "varint longer than 10 bytes"},
      {R"("int")", bytes({0x80, 0x80, 0x80, 0x80, 0x10}), "out of range"},
      {R"("boolean")", bytes({0x02}), "invalid boolean byte 2"},
      {R"({"type": "enum", "name": "E", "symbols": ["A", "B"]})", bytes({0x04}),
       "enum index 2 out of range for enum E (2 symbols)"},
      {R"({"type": "enum", "name": "E", "symbols": ["A", "B"]})", bytes({0x01}),
       "enum index -1 out of range"},
      {R"(["null", "int"])", bytes({0x04}), "union branch index 2 out of range (2 branches)"},
      {R"({"type": "array", "items": "null"})", huge + bytes({0x00}), "zero-size array items"},
      {R"({"type": "array", "items": "int"})", huge + bytes({0x00}), "cannot fit"},
      {R"({"type": "map", "values": "null"})", huge + bytes({0x00}), "cannot fit"},
      {R"({"type": "array", "items": "int"})",
       bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}), "invalid block count"},
      {R"({"type": "fixed", "name": "F", "size": 16})", "short", "needs 16 bytes, 5 left"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.schema);
    auto serde = make_serde(c.schema);
    ASSERT_NE(serde, nullptr);
    const Status status = deserialize_error(*serde, c.data);
    EXPECT_EQ(status.code(), StatusCode::kCorruption);
    EXPECT_THAT(status.message(), StartsWith("avro serde: corrupt bytes at offset "));
    EXPECT_THAT(status.message(), HasSubstr(c.message));
  }
}

TEST(AvroSerde, CorruptionMessageNamesWhereItWasFound) {
  auto serde = make_serde(kOrderSchema);
  ASSERT_NE(serde, nullptr);
  // id 1, user {name "c", age 2, address: branch 1, street "s", zip: branch 7 (bad)}.
  const std::string data = bytes({0x02, 0x02, 0x63, 0x04, 0x02, 0x02, 0x73, 0x0e, 0x00, 0x00});
  EXPECT_EQ(deserialize_error(*serde, data).message(),
            "avro serde: corrupt bytes at offset 7: field 'user.address.zip': union branch index "
            "7 out of range (2 branches)");
}

TEST(AvroSerde, DeepNestingIsRejectedInsteadOfOverflowingTheStack) {
  auto serde = make_serde(kListSchema);
  ASSERT_NE(serde, nullptr);
  json deep = {{"value", ""}, {"next", nullptr}};
  for (int i = 0; i < 300; ++i) deep = {{"value", ""}, {"next", deep}};
  const Status too_deep = serialize_error(*serde, deep);
  EXPECT_EQ(too_deep.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(too_deep.message(), HasSubstr("nested deeper than 256 levels"));

  std::string data;
  for (int i = 0; i < 100'000; ++i) data += bytes({0x00, 0x02});
  data += bytes({0x00, 0x00});
  const Status corrupt = deserialize_error(*serde, data);
  EXPECT_EQ(corrupt.code(), StatusCode::kCorruption);
  EXPECT_THAT(corrupt.message(), HasSubstr("nested deeper than 256 levels"));
}

TEST(AvroSerde, RandomGarbageGivesAnErrorOrAValueNeverACrash) {
  const std::vector<std::shared_ptr<const AvroSerde>> serdes = {
      make_serde(kAllTypesSchema), make_serde(kOrderSchema), make_serde(kListSchema),
      make_serde(R"({"type": "array", "items": ["null", {"type": "map", "values": "null"}]})"),
      make_serde(kUserSchema, {.confluent_schema_id = 0})};
  std::mt19937 rng(20240601);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(0, 48);
  int errors = 0;
  for (const auto& serde : serdes) {
    ASSERT_NE(serde, nullptr);
    for (int i = 0; i < 300; ++i) {
      std::string data(static_cast<std::size_t>(length(rng)), '\0');
      for (char& c : data) c = static_cast<char>(byte(rng));
      auto decoded = serde->deserialize(data);
      if (!decoded) {
        ++errors;
        EXPECT_EQ(decoded.error().code(), StatusCode::kCorruption);
        EXPECT_THAT(decoded.error().message(), StartsWith("avro serde: "));
      }
    }
  }
  EXPECT_GT(errors, 0);

  // Valid encodings with a few bytes changed.
  auto serde = make_serde(kAllTypesSchema);
  ASSERT_NE(serde, nullptr);
  const std::string valid = *serde->serialize(all_types_value());
  std::uniform_int_distribution<std::size_t> position(0, valid.size() - 1);
  for (int i = 0; i < 300; ++i) {
    std::string data = valid;
    for (int k = 0; k < 1 + i % 3; ++k) data[position(rng)] = static_cast<char>(byte(rng));
    auto decoded = serde->deserialize(data);
    if (decoded) {
      auto again = serde->serialize(*decoded);
      EXPECT_TRUE(again.has_value() || again.error().code() == StatusCode::kInvalidArgument);
    } else {
      EXPECT_EQ(decoded.error().code(), StatusCode::kCorruption);
    }
  }
}

TEST(AvroSerde, ConcurrentUseFromTwoThreadsGivesCorrectResults) {
  auto serde = make_serde(kOrderSchema, {.confluent_schema_id = 3});
  ASSERT_NE(serde, nullptr);
  constexpr int kIterations = 2000;
  std::atomic<int> failures{0};
  auto work = [&](int thread) {
    for (int i = 0; i < kIterations; ++i) {
      json value = {{"id", thread * 1'000'000 + i},
                    {"user",
                     {{"name", "user-" + std::to_string(thread)},
                      {"age", i},
                      {"address", i % 2 == 0 ? json(nullptr)
                                             : json({{"street", std::string(i % 50, 's')},
                                                     {"zip", thread}})}}},
                    {"lines", json::array()},
                    {"attrs", {{"t", std::to_string(thread)}}}};
      for (int k = 0; k < i % 4; ++k) value["lines"].push_back({{"sku", "x"}, {"qty", k}});
      auto encoded = serde->serialize(value);
      if (!encoded) {
        ++failures;
        continue;
      }
      auto decoded = serde->deserialize(*encoded);
      if (!decoded || *decoded != value) ++failures;
      if (serde->deserialize(encoded->substr(0, encoded->size() / 2)).has_value()) ++failures;
      if (serde->serialize({{"id", "bad"}}).has_value()) ++failures;
    }
  };
  std::thread a(work, 1);
  std::thread b(work, 2);
  a.join();
  b.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace brook
