#include "state/in_memory_store.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "store_entries.h"

namespace brook::internal {
namespace {

using testing::Entries;
using testing::scan_all;

TEST(InMemoryStore, PutGetAndDeleteByNull) {
  InMemoryStore store("s");
  ASSERT_TRUE(store.put("a", "1").ok());
  ASSERT_TRUE(store.put("a", "2").ok());
  EXPECT_EQ(store.get("a").value(), "2");
  ASSERT_TRUE(store.put("a", std::nullopt).ok());
  EXPECT_EQ(store.get("a").value(), std::nullopt);
  EXPECT_TRUE(store.put("never-there", std::nullopt).ok());
  EXPECT_EQ(store.approximate_count().value(), 0);
}

TEST(InMemoryStore, ScansInUnsignedByteOrderWithInclusiveBounds) {
  InMemoryStore store("s");
  for (const std::string& key :
       std::vector<std::string>{"b", "a", "c", "d", "\xff", std::string(1, '\0')}) {
    ASSERT_TRUE(store.put(key, "v").ok());
  }
  auto all = scan_all(store);
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all.front().first, std::string(1, '\0'));
  EXPECT_EQ(all.back().first, "\xff");
  EXPECT_EQ(scan_all(store, {.from = "b", .to = "c"}), (Entries{{"b", "v"}, {"c", "v"}}));
  EXPECT_EQ(scan_all(store, {.from = "c"}).size(), 3u);
}

TEST(InMemoryStore, ScanStopsWhenTheVisitorSaysSo) {
  InMemoryStore store("s");
  for (auto key : {"a", "b", "c"}) ASSERT_TRUE(store.put(key, "v").ok());
  int seen = 0;
  ASSERT_TRUE(store.scan({}, [&](auto, auto) { return ++seen < 2; }).ok());
  EXPECT_EQ(seen, 2);
}

TEST(InMemoryStore, IsNotPersistentAndHasNoCommittedOffset) {
  InMemoryStore store("s");
  ASSERT_TRUE(store.commit(Offset(5)).ok());
  EXPECT_FALSE(store.persistent());
  EXPECT_EQ(store.committed_offset(), std::nullopt);
}

}  // namespace
}  // namespace brook::internal
