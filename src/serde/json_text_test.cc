#include "brook/internal/json_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace brook::internal {
namespace {

std::string json_string(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

template <class T>
std::string json_number(T value) {
  std::string out;
  append_json_number(out, value);
  return out;
}

TEST(JsonTextTest, StringsAreQuotedWithQuotesBackslashesAndControlCharactersEscaped) {
  EXPECT_EQ(json_string(""), R"("")");
  EXPECT_EQ(json_string("a\"b\\c\nd\te\rf\x01g\x1f"), R"("a\"b\\c\nd\te\rf\u0001g\u001f")");
}

TEST(JsonTextTest, Utf8PassesAsItIs) { EXPECT_EQ(json_string("é€😀"), "\"é€😀\""); }

TEST(JsonTextTest, BytesThatAreNotUtf8BecomeTheReplacementCharacter) {
  const std::string replacement = "\xef\xbf\xbd";
  EXPECT_EQ(json_string("a\xff"
                        "b"),
            "\"a" + replacement + "b\"");                                       // never a lead byte
  EXPECT_EQ(json_string("\xc3"), "\"" + replacement + "\"");                    // cut short
  EXPECT_EQ(json_string("\xc0\xaf"), "\"" + replacement + replacement + "\"");  // overlong
  EXPECT_EQ(json_string("\xed\xa0\x80"),                                        // a surrogate
            "\"" + replacement + replacement + replacement + "\"");
  EXPECT_EQ(json_string("\xf4\x90\x80\x80"),  // above U+10FFFF
            "\"" + replacement + replacement + replacement + replacement + "\"");
}

TEST(JsonTextTest, NumbersAreTheShortestTextThatReadsBackAndNullWithoutANumber) {
  EXPECT_EQ(json_number(std::int64_t{-9223372036854775807 - 1}), "-9223372036854775808");
  EXPECT_EQ(json_number(std::uint32_t{4294967295}), "4294967295");
  EXPECT_EQ(json_number(0.1), "0.1");
  EXPECT_EQ(json_number(1e300), "1e+300");
  EXPECT_EQ(json_number(std::nan("")), "null");
  EXPECT_EQ(json_number(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(json_number(-std::numeric_limits<double>::infinity()), "null");
}

}  // namespace
}  // namespace brook::internal
