#include "backend/embedded/crc32c.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

namespace brook::internal {
namespace {

TEST(Crc32c, MatchesPublishedCheckValues) {
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);
  // RFC 3720 (iSCSI), appendix B.4.
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  std::string ascending;
  for (int i = 0; i < 32; ++i) ascending.push_back(static_cast<char>(i));
  EXPECT_EQ(crc32c(ascending), 0x46DD794Eu);
  EXPECT_EQ(crc32c(""), 0u);
}

TEST(Crc32c, HardwareAndTableImplementationsAgreeAtEveryLengthAndAlignment) {
  std::mt19937 rng(7);
  std::string data(300, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (std::size_t start = 0; start < 9; ++start) {
    for (std::size_t n = 0; start + n <= data.size(); n += 7) {
      EXPECT_EQ(crc32c_extend(0, data.data() + start, n),
                crc32c_extend_portable(0, data.data() + start, n))
          << "start " << start << " length " << n;
    }
  }
}

TEST(Crc32c, ExtendingEqualsChecksummingTheConcatenation) {
  const std::string a = "hello, ";
  const std::string b = "segment files";
  EXPECT_EQ(crc32c_extend(crc32c(a), b.data(), b.size()), crc32c(a + b));
}

TEST(Crc32c, MaskIsReversibleAndChangesTheValue) {
  for (std::uint32_t crc : {0u, 1u, 0xE3069283u, 0xffffffffu}) {
    EXPECT_EQ(unmask_crc(mask_crc(crc)), crc);
    EXPECT_NE(mask_crc(crc), crc);
  }
}

}  // namespace
}  // namespace brook::internal
