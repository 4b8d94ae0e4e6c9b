#include <gtest/gtest.h>

#include "backend/log_backend.h"

namespace brook::internal {
namespace {

// Reference values from Kafka's Java client (UtilsTest.testMurmur2 and the default
// partitioner's results for these keys).
TEST(Partitioner, Murmur2MatchesTheJavaClient) {
  EXPECT_EQ(murmur2("21"), -973932308);
  EXPECT_EQ(murmur2("foobar"), -790332482);
  EXPECT_EQ(murmur2("a-little-bit-long-string"), -985981536);
  EXPECT_EQ(murmur2("a-little-bit-longer-string"), -1486304829);
  EXPECT_EQ(murmur2("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"), -58897971);
  EXPECT_EQ(murmur2(std::string_view("abc", 3)), 479470107);
}

TEST(Partitioner, PartitionIsPositiveMurmur2ModuloCount) {
  for (const char* key : {"21", "foobar", "abc", ""}) {
    const auto p = partition_for_key(key, 6);
    EXPECT_GE(p.value(), 0);
    EXPECT_LT(p.value(), 6);
    EXPECT_EQ(p.value(), (murmur2(key) & 0x7fffffff) % 6);
  }
}

}  // namespace
}  // namespace brook::internal
