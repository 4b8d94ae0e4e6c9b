#include "topology/java_order.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace brook::internal {
namespace {

using ::testing::ElementsAre;

TEST(JavaOrder, StringHashIsJavasOverUtf16CodeUnits) {
  EXPECT_EQ(java_string_hash(""), 0u);
  EXPECT_EQ(java_string_hash("hello"), 99162322u);
  EXPECT_EQ(java_string_hash("\xC3\xA9"), 233u);              // é: one unit
  EXPECT_EQ(java_string_hash("\xF0\x9F\x98\x80"), 1772899u);  // 😀: two surrogate units
  EXPECT_EQ(java_string_hash("KSTREAM-SOURCE-0000000000"), 1861603632u);
}

TEST(JavaOrder, HashOrderIsByBucketThenByArrival) {
  // Buckets of 16 (Kafka Streams' output for these store names): 3, 4 and 3.
  EXPECT_THAT(
      in_java_hash_order(
          {"KSTREAM-OUTEROTHER-0000000009-store", "KSTREAM-JOINTHIS-0000000008-store",
           "KSTREAM-OUTERSHARED-0000000008-store"},
          16),
      ElementsAre("KSTREAM-JOINTHIS-0000000008-store", "KSTREAM-OUTERSHARED-0000000008-store",
                  "KSTREAM-OUTEROTHER-0000000009-store"));
  EXPECT_EQ(java_grown_table(12), 16u);
  EXPECT_EQ(java_grown_table(13), 32u);
}

int by_name(const std::string& a, const std::string& b) { return a.compare(b); }

TEST(JavaTreeSet, IteratesInTheComparatorsOrderAndAddsAnEqualNameOnce) {
  JavaTreeSet set;
  for (const char* name : {"m", "c", "x", "a", "e", "z", "b", "d", "c"}) set.add(name, by_name);
  EXPECT_THAT(set.in_order(), ElementsAre("a", "b", "c", "d", "e", "m", "x", "z"));
}

TEST(JavaTreeSet, PlacesANameByTheTreeItWasAddedTo) {
  // a, b, c in order leave b at the root (a red-black rotation): a name that the comparator
  // puts after b and before c and a lands between them, not before a as in a chain from a.
  JavaTreeSet set;
  for (const char* name : {"a", "b", "c"}) set.add(name, by_name);
  set.add("x", [](const std::string& x, const std::string& other) {
    (void)x;
    return other == "b" ? 1 : -1;
  });
  EXPECT_THAT(set.in_order(), ElementsAre("a", "b", "x", "c"));
}

}  // namespace
}  // namespace brook::internal
