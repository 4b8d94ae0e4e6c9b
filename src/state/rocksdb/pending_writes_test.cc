#include "state/rocksdb/pending_writes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace brook::internal {
namespace {

using Answer = std::optional<std::optional<std::string_view>>;

TEST(PendingWrites, TheNewestWriteOfAKeyAnswersAndOtherKeysAreLeftToTheDatabase) {
  PendingWrites pending;
  pending.put("a", "1");
  pending.put("a", "2");
  pending.put("b", std::nullopt);
  EXPECT_EQ(pending.find("a"), Answer(std::optional<std::string_view>("2")));
  EXPECT_EQ(pending.find("b"), Answer(std::optional<std::string_view>()));
  EXPECT_EQ(pending.find("c"), Answer());
  pending.put("b", "3");
  EXPECT_EQ(pending.find("b"), Answer(std::optional<std::string_view>("3")));
}

TEST(PendingWrites, ARangeDeletionErasesTheEntriesItCoversAndHidesTheDatabasesKeys) {
  PendingWrites pending;
  for (auto key : {"a", "b", "c", "d"}) pending.put(key, key);
  pending.delete_range("b", "d");  // [b, d)
  std::vector<std::string> keys;
  for (const auto& [key, value] : pending.entries()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "d"}));
  EXPECT_EQ(pending.find("b"), Answer(std::optional<std::string_view>()));  // deleted
  EXPECT_EQ(pending.find("bb"), Answer(std::optional<std::string_view>()));
  EXPECT_FALSE(pending.in_range("d"));
  pending.put("c", "new");  // after the range: it wins
  EXPECT_EQ(pending.find("c"), Answer(std::optional<std::string_view>("new")));
  EXPECT_TRUE(pending.in_range("c"));  // the database's "c" stays hidden under the entry
  pending.delete_range("z", "a");      // empty
  EXPECT_EQ(pending.ranges().size(), 1u);
  EXPECT_EQ(pending.take_ranges().size(), 1u);
  EXPECT_TRUE(pending.ranges().empty());
  pending.clear();
  EXPECT_TRUE(pending.empty());
}

}  // namespace
}  // namespace brook::internal
