#include "core/utf8.h"

#include <gtest/gtest.h>

namespace brook::internal {
namespace {

TEST(Utf8Test, SequenceLengthsOfEachForm) {
  EXPECT_EQ(utf8_sequence_length("a"), 1u);
  EXPECT_EQ(utf8_sequence_length("\xc3\xa9"), 2u);          // é
  EXPECT_EQ(utf8_sequence_length("\xe2\x82\xac"), 3u);      // €
  EXPECT_EQ(utf8_sequence_length("\xf0\x9f\x98\x80"), 4u);  // 😀
  EXPECT_EQ(utf8_sequence_length(""), 0u);
}

TEST(Utf8Test, WhatIsNotUtf8) {
  EXPECT_EQ(utf8_sequence_length("\x80"), 0u);              // a continuation byte alone
  EXPECT_EQ(utf8_sequence_length("\xc0\xaf"), 0u);          // overlong '/'
  EXPECT_EQ(utf8_sequence_length("\xe0\x80\xaf"), 0u);      // overlong, three bytes
  EXPECT_EQ(utf8_sequence_length("\xed\xa0\x80"), 0u);      // a surrogate
  EXPECT_EQ(utf8_sequence_length("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(utf8_sequence_length("\xe2\x82"), 0u);          // cut short
  EXPECT_EQ(utf8_sequence_length("\xff"), 0u);
}

TEST(Utf8Test, FirstNonUtf8FindsTheOffset) {
  EXPECT_EQ(first_non_utf8("plain \xc3\xa9t\xc3\xa9"), std::string_view::npos);
  EXPECT_EQ(first_non_utf8(""), std::string_view::npos);
  EXPECT_EQ(first_non_utf8("ab\xff"), 2u);
  EXPECT_EQ(first_non_utf8("\xc3\xa9\xc3"), 2u);
  EXPECT_TRUE(is_utf8("plain \xc3\xa9t\xc3\xa9"));
  EXPECT_FALSE(is_utf8("ab\xff"));
}

}  // namespace
}  // namespace brook::internal
