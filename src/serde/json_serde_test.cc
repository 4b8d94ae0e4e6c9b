// JsonSerde and numbers: a number is read exactly into its field or the record is refused.
#include "brook/json_serde.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace brook {
namespace {

using ::testing::HasSubstr;

// One field of each arithmetic kind; a missing field keeps its default.
struct Fields {
  std::int64_t i64 = 0;
  std::int32_t i32 = 0;
  std::int8_t i8 = 0;
  std::uint8_t u8 = 0;
  std::uint32_t u32 = 0;
  std::uint64_t u64 = 0;
  double f64 = 0;
  float f32 = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Fields, i64, i32, i8, u8, u32, u64, f64, f32)

struct Line {
  std::string sku;
  std::uint32_t qty = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Line, sku, qty)

struct OrderCustomer {
  std::string name;
  std::uint8_t age = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(OrderCustomer, name, age)

struct Order {
  std::string id;
  OrderCustomer customer;
  std::vector<Line> lines;
  std::vector<std::vector<std::int8_t>> grid;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Order, id, customer, lines, grid)

// Containers that order or merge their elements, so that what is read back is not in the
// input's order.
struct Sets {
  std::set<std::int64_t> ids;
  std::set<std::uint8_t> small;
  std::map<std::int64_t, std::string> names;  // JSON: an array of [key, value] pairs
  std::unordered_set<std::int64_t> seen;
  std::vector<std::pair<std::int64_t, std::uint8_t>> pairs;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Sets, ids, small, names, seen, pairs)

template <class T>
Status refusal(const std::string& text) {
  auto result = JsonSerde<T>().deserialize(text);
  EXPECT_FALSE(result.has_value()) << text << " was read";
  return result.has_value() ? Status::ok_status() : result.error();
}

template <class T>
T read(const std::string& text) {
  auto result = JsonSerde<T>().deserialize(text);
  EXPECT_TRUE(result.has_value()) << text << ": " << result.error().to_string();
  return result.has_value() ? *result : T{};
}

TEST(JsonSerdeNumbers, RefusesAFloatBeyondTheRangeOfAnIntegerFieldNamingTheField) {
  const Status status = refusal<Fields>(R"({"i64": 1e30})");
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("json serde: cannot read"));
  EXPECT_THAT(status.message(),
              HasSubstr("field 'i64': 1e+30 does not fit, read as -9223372036854775808"));
  EXPECT_THAT(refusal<Fields>(R"({"i32": 3e9})").message(),
              HasSubstr("field 'i32': 3000000000.0 does not fit"));
  EXPECT_THAT(refusal<Fields>(R"({"i64": 9223372036854775807.0})").message(),  // 2^63
              HasSubstr("field 'i64'"));
  EXPECT_THAT(refusal<Fields>(R"({"u64": 18446744073709551615.0})").message(),  // 2^64
              HasSubstr("field 'u64'"));
}

TEST(JsonSerdeNumbers, RefusesAFractionIntoAnIntegerField) {
  const Status status = refusal<Fields>(R"({"i64": 1.5})");
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("field 'i64': 1.5 does not fit, read as 1"));
  EXPECT_THAT(refusal<Fields>(R"({"i32": -0.5})").message(), HasSubstr("field 'i32': -0.5"));
  EXPECT_THAT(refusal<Fields>(R"({"u8": 2.25})").message(), HasSubstr("field 'u8': 2.25"));
}

TEST(JsonSerdeNumbers, RefusesAnIntegerBeyondTheRangeOfItsField) {
  const Status status = refusal<Fields>(R"({"i64": 18446744073709551615})");
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(),
              HasSubstr("field 'i64': 18446744073709551615 does not fit, read as -1"));
  EXPECT_THAT(refusal<Fields>(R"({"i64": 9223372036854775808})").message(),
              HasSubstr("field 'i64': 9223372036854775808"));
  EXPECT_THAT(refusal<Fields>(R"({"i32": 2147483648})").message(), HasSubstr("field 'i32'"));
  EXPECT_THAT(refusal<Fields>(R"({"u8": 300})").message(),
              HasSubstr("field 'u8': 300 does not fit, read as 44"));
  EXPECT_THAT(refusal<Fields>(R"({"i8": 300})").message(), HasSubstr("field 'i8': 300"));
  EXPECT_THAT(refusal<Fields>(R"({"i8": -129})").message(), HasSubstr("field 'i8': -129"));
  EXPECT_THAT(refusal<Fields>(R"({"u32": 4294967296})").message(), HasSubstr("field 'u32'"));
}

TEST(JsonSerdeNumbers, RefusesANegativeNumberIntoAnUnsignedField) {
  const Status status = refusal<Fields>(R"({"u32": -1})");
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("field 'u32': -1 does not fit, read as 4294967295"));
  EXPECT_THAT(refusal<Fields>(R"({"u64": -1})").message(), HasSubstr("field 'u64': -1"));
  EXPECT_THAT(refusal<Fields>(R"({"u8": -1})").message(), HasSubstr("field 'u8': -1"));
}

TEST(JsonSerdeNumbers, ReadsNumbersThatFitTheirFieldsExactly) {
  const Fields low = read<Fields>(
      R"({"i64": -9223372036854775808, "i32": -2147483648, "i8": -128, "u8": 0, "u32": 0,
          "u64": 0})");
  EXPECT_EQ(low.i64, std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(low.i32, std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(low.i8, -128);
  const Fields high = read<Fields>(
      R"({"i64": 9223372036854775807, "i32": 2147483647, "i8": 127, "u8": 255,
          "u32": 4294967295, "u64": 18446744073709551615})");
  EXPECT_EQ(high.i64, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(high.u8, 255);
  EXPECT_EQ(high.u32, std::numeric_limits<std::uint32_t>::max());
  EXPECT_EQ(high.u64, std::numeric_limits<std::uint64_t>::max());
  // Integral floats are integers.
  const Fields integral =
      read<Fields>(R"({"i64": 1e3, "i32": -2.0, "u8": 255.0, "u64": 9223372036854775808.0})");
  EXPECT_EQ(integral.i64, 1000);
  EXPECT_EQ(integral.u64, std::uint64_t{1} << 63);
  EXPECT_EQ(read<Fields>(R"({"i64": -9223372036854775808.0})").i64,
            std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(integral.i32, -2);
  EXPECT_EQ(integral.u8, 255);
}

TEST(JsonSerdeNumbers, RoundsFloatsIntoFloatingFieldsToTheirPrecision) {
  const Fields fields = read<Fields>(R"({"f64": 3.14159265358979323846264, "f32": 0.1})");
  EXPECT_EQ(fields.f64, 3.141592653589793);
  EXPECT_EQ(fields.f32, 0.1f);
  EXPECT_EQ(read<Fields>(R"({"f32": 1e-50})").f32, 0.0f);  // below float's smallest
  EXPECT_EQ(read<Fields>(R"({"f64": 1.7976931348623157e308})").f64,
            std::numeric_limits<double>::max());
}

TEST(JsonSerdeNumbers, RefusesAFloatThatBecomesInfiniteInItsField) {
  const Status status = refusal<Fields>(R"({"f32": 1e39})");
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("field 'f32': 1e+39 does not fit, read as inf"));
}

TEST(JsonSerdeNumbers, ReadsIntegersIntoFloatingFieldsOnlyWhenExact) {
  EXPECT_EQ(read<Fields>(R"({"f64": 9007199254740992})").f64, 9007199254740992.0);  // 2^53
  EXPECT_EQ(read<Fields>(R"({"f64": -9223372036854775808})").f64, -9223372036854775808.0);
  EXPECT_EQ(read<Fields>(R"({"f64": 100000000000000000000})").f64, 1e20);  // parsed as a float
  EXPECT_EQ(read<Fields>(R"({"f32": 16777216})").f32, 16777216.0f);        // 2^24
  EXPECT_THAT(
      refusal<Fields>(R"({"f64": 9007199254740993})").message(),
      HasSubstr("field 'f64': 9007199254740993 does not fit, read as 9.007199254740992e+15"));
  EXPECT_THAT(refusal<Fields>(R"({"f64": 18446744073709551615})").message(),
              HasSubstr("field 'f64': 18446744073709551615"));
  EXPECT_THAT(refusal<Fields>(R"({"f32": 16777217})").message(), HasSubstr("field 'f32'"));
}

TEST(JsonSerdeNumbers, NamesThePathOfAFieldInNestedObjectsAndArrays) {
  EXPECT_THAT(refusal<Order>(R"({"id": "o1", "customer": {"name": "Ann", "age": 300}})").message(),
              HasSubstr("field 'customer.age': 300 does not fit, read as 44"));
  EXPECT_THAT(refusal<Order>(R"({"lines": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2},
                                   {"sku": "c", "qty": -1}]})")
                  .message(),
              HasSubstr("field 'lines[2].qty': -1 does not fit, read as 4294967295"));
  EXPECT_THAT(refusal<Order>(R"({"grid": [[1, 2], [3, 128]]})").message(),
              HasSubstr("field 'grid[1][1]': 128"));
  EXPECT_THAT(refusal<std::vector<std::uint8_t>>("[1, 256]").message(),
              HasSubstr("field '[1]': 256"));
  EXPECT_THAT(refusal<std::uint8_t>("300").message(),
              HasSubstr("the value: 300 does not fit, read as 44"));
}

TEST(JsonSerdeNumbers, StillReadsAValidRecordAndIgnoresFieldsItDoesNotRead) {
  const Order order = read<Order>(
      R"({"id": "o1", "customer": {"name": "Ann", "age": 42, "score": 1.5},
          "lines": [{"sku": "a", "qty": 4294967295, "weight": 1e30}], "grid": [[-128, 127]],
          "total": 18446744073709551615})");
  EXPECT_EQ(order.customer.age, 42);
  ASSERT_EQ(order.lines.size(), 1u);
  EXPECT_EQ(order.lines[0].qty, 4294967295u);
  EXPECT_EQ(order.grid, (std::vector<std::vector<std::int8_t>>{{-128, 127}}));
}

TEST(JsonSerdeNumbers, ReadsContainersThatOrderOrMergeTheirElements) {
  const Sets sets = read<Sets>(
      R"({"ids": [3, 1, 2, 1], "small": [200, 7], "names": [[2, "b"], [1, "a"]],
          "seen": [5, 40, 3, 1000, 17, 3]})");
  EXPECT_EQ(sets.ids, (std::set<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(sets.small, (std::set<std::uint8_t>{7, 200}));
  EXPECT_EQ(sets.names, (std::map<std::int64_t, std::string>{{1, "a"}, {2, "b"}}));
  EXPECT_EQ(sets.seen, (std::unordered_set<std::int64_t>{3, 5, 17, 40, 1000}));
  EXPECT_THAT(refusal<Sets>(R"({"small": [300, 7]})").message(),
              HasSubstr("field 'small[0]': 300 does not fit"));
  EXPECT_THAT(refusal<Sets>(R"({"small": [7, 7, 300]})").message(),
              HasSubstr("field 'small[2]': 300 does not fit, read as 44"));
  EXPECT_THAT(refusal<Sets>(R"({"small": [44, 44, 300]})").message(),
              HasSubstr("field 'small': 3 elements (2 different) read as 1"));
  EXPECT_THAT(refusal<Sets>(R"({"names": [[2, "b"], [1.5, "a"]]})").message(),
              HasSubstr("field 'names[1][0]': 1.5"));
  // A pair is an array too: 300 read as 44 is refused although 300 is in what was read.
  EXPECT_THAT(refusal<Sets>(R"({"pairs": [[300, 300]]})").message(),
              HasSubstr("field 'pairs[0][1]': 300 does not fit, read as 44"));
}

}  // namespace
}  // namespace brook
