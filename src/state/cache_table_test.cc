#include "state/cache_table.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "state/cache_entry.h"

namespace brook::internal {
namespace {

// Erases and inserts at random, keeping every entry findable, with or without the churn of
// a full table.
TEST(CacheTable, EveryEntryStaysFindableThroughInsertsAndErases) {
  CacheTable table;
  std::map<std::string, char*> model;
  std::mt19937 random(7);
  for (int i = 0; i < 20'000; ++i) {
    const std::string key = "k" + std::to_string(random() % 3000);
    const std::size_t hash = CacheTable::hash(key);
    const std::size_t slot = table.find(key, hash);
    ASSERT_EQ(slot != CacheTable::kNone, model.contains(key)) << key;
    if (slot == CacheTable::kNone) {
      char* block = CacheEntry::make(key, std::nullopt, "v", {}, false);
      table.insert(block, hash);
      model[key] = block;
    } else {
      ASSERT_EQ(table.block(slot), model[key]);
      table.erase(slot);
      CacheEntry::destroy(model[key]);
      model.erase(key);
    }
    ASSERT_EQ(table.size(), model.size());
  }
  for (const auto& [key, block] : model) {
    const std::size_t slot = table.find(key, CacheTable::hash(key));
    ASSERT_NE(slot, CacheTable::kNone) << key;
    EXPECT_EQ(table.block(slot), block);
  }
  for (const auto& [key, block] : model) CacheEntry::destroy(block);  // after the last find
}

TEST(CacheTable, MarksStayWithTheirEntryWhenTheTableGrowsOrShrinks) {
  CacheTable table;
  std::vector<std::string> keys;
  for (int i = 0; i < 1000; ++i) {
    keys.push_back("key-" + std::to_string(i));
    const std::size_t slot = table.insert(
        CacheEntry::make(keys.back(), std::nullopt, "v", {}, false), CacheTable::hash(keys.back()));
    table.mark(slot, CacheTable::kDirty, i % 2 == 0);
  }
  for (int i = 0; i < 1000; i += 1) {
    if (i % 10 == 0) continue;
    const std::size_t slot = table.find(keys[i], CacheTable::hash(keys[i]));
    CacheEntry::destroy(table.block(slot));
    table.erase(slot);
  }
  EXPECT_TRUE(table.shrink());
  std::vector<char*> remaining;
  for (int i = 0; i < 1000; i += 10) {
    const std::size_t slot = table.find(keys[i], CacheTable::hash(keys[i]));
    ASSERT_NE(slot, CacheTable::kNone);
    EXPECT_EQ(table.has(slot, CacheTable::kDirty), i % 2 == 0);
    remaining.push_back(table.block(slot));
  }
  for (char* block : remaining) CacheEntry::destroy(block);  // after the last find
}

}  // namespace
}  // namespace brook::internal
