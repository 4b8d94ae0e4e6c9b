// PostgreSQL's text values as Debezium's JSON values (pg_value.h), and rows of them.
#include "cdc/pg_value.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace brook::internal {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

Json value(std::uint32_t oid, std::string_view text) {
  auto json = pg_value_json(oid, text);
  EXPECT_TRUE(json) << json.error().to_string();
  return json ? Json::parse(*json) : Json("<error>");
}

bool refused(std::uint32_t oid, std::string_view text) { return !pg_value_json(oid, text); }

TEST(PgValueTest, BooleansAndIntegers) {
  EXPECT_EQ(value(16, "t"), Json(true));
  EXPECT_EQ(value(16, "f"), Json(false));
  EXPECT_TRUE(refused(16, "yes"));
  EXPECT_EQ(value(21, "-32768"), Json(-32768));
  EXPECT_EQ(value(23, "42"), Json(42));
  EXPECT_EQ(value(20, "-9223372036854775808"), Json(INT64_MIN));
  EXPECT_EQ(value(20, "9223372036854775807"), Json(INT64_MAX));
  EXPECT_TRUE(refused(20, "9223372036854775808"));
  EXPECT_TRUE(refused(23, "4x"));
  EXPECT_EQ(value(26, "4294967295"), Json(4294967295u));
}

TEST(PgValueTest, StringsAreEscaped) {
  EXPECT_EQ(*pg_value_json(25, "a\"b\\c\nd\x01é"), R"("a\"b\\c\nd\u0001é")");
  EXPECT_EQ(value(25, "a\"b\\c\nd\x01é"), Json("a\"b\\c\nd\x01é"));
}

TEST(PgValueTest, FloatsNumericAndText) {
  EXPECT_EQ(value(701, "0.1"), Json(0.1));
  EXPECT_EQ(value(700, "-1.5e+10"), Json(-1.5e10));
  EXPECT_EQ(value(701, "NaN"), Json("NaN"));
  EXPECT_EQ(value(701, "-Infinity"), Json("-Infinity"));
  EXPECT_TRUE(refused(701, "one"));
  EXPECT_EQ(value(1700, "12345678901234567890.000001"), Json("12345678901234567890.000001"));
  EXPECT_EQ(value(1700, "NaN"), Json("NaN"));
  EXPECT_EQ(value(25, "it's"), Json("it's"));
  EXPECT_EQ(value(3802, R"({"a": [1, 2]})"), Json(R"({"a": [1, 2]})"));
  EXPECT_EQ(value(2950, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
            Json("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"));
  EXPECT_EQ(value(1007, "{1,2,NULL}"), Json("{1,2,NULL}"));
  EXPECT_EQ(value(99999, "(1,2)"), Json("(1,2)"));  // a type Brook does not know: its text
}

TEST(PgValueTest, ByteaAsBase64) {
  EXPECT_EQ(value(17, "\\x"), Json(""));
  EXPECT_EQ(value(17, "\\x66"), Json("Zg=="));
  EXPECT_EQ(value(17, "\\x666f"), Json("Zm8="));
  EXPECT_EQ(value(17, "\\x666f6f"), Json("Zm9v"));
  EXPECT_EQ(value(17, "\\x00ff10"), Json("AP8Q"));
  EXPECT_TRUE(refused(17, "\\x6"));
  EXPECT_TRUE(refused(17, "\\xzz"));
  EXPECT_TRUE(refused(17, "666f"));
}

TEST(PgValueTest, DatesAndTimes) {
  EXPECT_EQ(value(1082, "1970-01-01"), Json(0));
  EXPECT_EQ(value(1082, "2024-02-29"), Json(19782));
  EXPECT_EQ(value(1082, "1969-12-31"), Json(-1));
  EXPECT_EQ(value(1082, "infinity"), Json("infinity"));
  EXPECT_EQ(value(1082, "0044-03-15 BC"), Json("0044-03-15 BC"));
  EXPECT_TRUE(refused(1082, "2023-02-29"));
  EXPECT_EQ(value(1083, "00:00:00"), Json(0));
  EXPECT_EQ(value(1083, "13:45:07.5"), Json(49'507'500'000));
  EXPECT_EQ(value(1083, "13:45:07.000001"), Json(49'507'000'001));
  EXPECT_EQ(value(1083, "24:00:00"), Json(86'400'000'000));
  EXPECT_TRUE(refused(1083, "13:45"));
  EXPECT_TRUE(refused(1083, "13:45:07.1234567"));
  EXPECT_EQ(value(1114, "1970-01-01 00:00:01.25"), Json(1'250'000));
  EXPECT_EQ(value(1114, "1969-12-31 23:59:59"), Json(-1'000'000));
  EXPECT_EQ(value(1114, "2024-05-01 10:00:00"), Json(1'714'557'600'000'000));
  EXPECT_EQ(value(1114, "-infinity"), Json("-infinity"));
}

TEST(PgValueTest, TimestampsWithTimeZoneInUtc) {
  EXPECT_EQ(value(1184, "2024-05-01 10:00:00+00"), Json("2024-05-01T10:00:00Z"));
  EXPECT_EQ(value(1184, "2024-05-01 10:00:00.5+00"), Json("2024-05-01T10:00:00.5Z"));
  EXPECT_EQ(value(1184, "2024-05-01 10:00:00.000120+00"), Json("2024-05-01T10:00:00.00012Z"));
  EXPECT_EQ(value(1184, "2024-05-01 01:00:00+05:30"), Json("2024-04-30T19:30:00Z"));
  EXPECT_EQ(value(1184, "2024-05-01 23:00:00-02"), Json("2024-05-02T01:00:00Z"));
  EXPECT_EQ(value(1184, "infinity"), Json("infinity"));
  EXPECT_TRUE(refused(1184, "2024-05-01 10:00:00"));
}

TEST(PgValueTest, RowsWithNullsToastPlaceholdersAndKeys) {
  const PgRelation relation{.oid = 1,
                            .schema = "public",
                            .table = "t",
                            .columns = {{.name = "id", .type_oid = 23, .key = true},
                                        {.name = "doc", .type_oid = 25},
                                        {.name = "n", .type_oid = 20}}};
  const PgTuple tuple{{PgValue::Kind::kText, "7"},
                      {PgValue::Kind::kUnchangedToast, ""},
                      {PgValue::Kind::kNull, ""}};
  auto row = pg_row_json(relation, tuple, false);
  ASSERT_TRUE(row) << row.error().to_string();
  EXPECT_EQ(*row, R"({"id":7,"doc":"__debezium_unavailable_value","n":null})");
  auto key = pg_row_json(relation, tuple, true);
  ASSERT_TRUE(key);
  EXPECT_EQ(*key, R"({"id":7})");

  auto short_row = pg_row_json(relation, {tuple[0]}, false);
  ASSERT_FALSE(short_row);
  EXPECT_THAT(short_row.error().message(), HasSubstr("a row of public.t with 1 values for its 3"));
  auto bad = pg_row_json(relation, {{PgValue::Kind::kText, "x"}, tuple[1], tuple[2]}, false);
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message(), HasSubstr("column id of public.t"));
}

}  // namespace
}  // namespace brook::internal
