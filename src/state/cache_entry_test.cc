#include "state/cache_entry.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace brook::internal {
namespace {

using Below = std::optional<std::string_view>;

TEST(CacheEntry, ADirtyEntryMadeCleanInPlaceReadsAsItsValueAlone) {
  char* block = CacheEntry::make("key", KnownBelow(Below("old")), "new", "headers", true);
  CacheEntry::set_flag(block, CacheEntry::kPinned, true);
  ASSERT_TRUE(CacheEntry::mark_clean(block));
  EXPECT_FALSE(CacheEntry::dirty(block));
  EXPECT_TRUE(CacheEntry::pinned(block));  // kept
  const auto v = CacheEntry::view(block);
  EXPECT_EQ(v.key, "key");
  EXPECT_EQ(v.value, Below("new"));
  EXPECT_EQ(v.below, KnownBelow(Below("new")));
  EXPECT_EQ(v.headers, "");
  // Written again: dirty, what is below is the clean value.
  block = CacheEntry::rewrite(block, v.below, "newer", "h2", true);
  const auto again = CacheEntry::view(block);
  EXPECT_EQ(again.key, "key");
  EXPECT_EQ(again.value, Below("newer"));
  EXPECT_EQ(again.below, KnownBelow(Below("new")));
  EXPECT_EQ(again.headers, "h2");
  CacheEntry::destroy(block);
}

TEST(CacheEntry, ADirtyEntryStoringMuchMoreThanItsValueIsNotMadeCleanInPlace) {
  const std::string large(CacheEntry::kCleanSlack, 'b');
  char* block = CacheEntry::make("key", KnownBelow(Below(large)), "new", "", true);
  EXPECT_FALSE(CacheEntry::mark_clean(block));
  EXPECT_TRUE(CacheEntry::dirty(block));
  EXPECT_EQ(CacheEntry::view(block).below, KnownBelow(Below(large)));
  CacheEntry::destroy(block);
}

TEST(CacheEntry, ADirtyTombstoneWithUnknownBelowReadsItsHeaders) {
  char* block = CacheEntry::make("key", std::nullopt, std::nullopt, "headers", true);
  const auto v = CacheEntry::view(block);
  EXPECT_EQ(v.below, std::nullopt);  // unknown
  EXPECT_EQ(v.value, std::nullopt);
  EXPECT_EQ(v.headers, "headers");
  CacheEntry::destroy(block);
}

}  // namespace
}  // namespace brook::internal
