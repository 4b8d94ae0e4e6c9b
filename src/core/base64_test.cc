#include "core/base64.h"

#include <gtest/gtest.h>

namespace brook::internal {
namespace {

TEST(Base64, EncodesAndDecodesRfc4648sVectors) {
  for (const auto& [bytes, text] :
       {std::pair{"", ""}, std::pair{"f", "Zg=="}, std::pair{"fo", "Zm8="},
        std::pair{"foo", "Zm9v"}, std::pair{"foob", "Zm9vYg=="}, std::pair{"fooba", "Zm9vYmE="},
        std::pair{"foobar", "Zm9vYmFy"}}) {
    EXPECT_EQ(base64_encode(bytes), text);
    EXPECT_EQ(base64_decode(text), bytes);
  }
  const std::string binary("\x00\xff\x80\x7f", 4);
  EXPECT_EQ(base64_decode(base64_encode(binary)), binary);
}

TEST(Base64, RefusesWhatIsNotPaddedBase64) {
  EXPECT_EQ(base64_decode("Zg"), std::nullopt);      // not padded
  EXPECT_EQ(base64_decode("Z!=="), std::nullopt);    // not the alphabet
  EXPECT_EQ(base64_decode("Zm9v\n"), std::nullopt);  // no line breaks
}

}  // namespace
}  // namespace brook::internal
