#include "state/rocksdb/pending_writes.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
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

TEST(PendingWrites, KeepsItsOwnCopiesOfTheBytesItIsGivenUntilCleared) {
  PendingWrites pending;
  std::string buffer;  // a caller's buffer, reused write after write
  for (int i = 0; i < 1000; ++i) {
    buffer = fmt::format("key-{:04}", i);
    pending.put(buffer, std::string_view(buffer).substr(4));
  }
  buffer.assign(buffer.size(), 'x');
  ASSERT_EQ(pending.entries().size(), 1000u);
  EXPECT_EQ(pending.find("key-0000"), Answer(std::optional<std::string_view>("0000")));
  EXPECT_EQ(pending.find("key-0999"), Answer(std::optional<std::string_view>("0999")));
  pending.clear();
  pending.put("key-0000", "again");
  EXPECT_EQ(pending.find("key-0000"), Answer(std::optional<std::string_view>("again")));
  EXPECT_EQ(pending.find("key-0999"), Answer());
}

TEST(PendingWrites, ARangeDeletionErasesTheEntriesItCoversAndHidesTheDatabasesKeys) {
  PendingWrites pending;
  for (auto key : {"a", "b", "c", "d"}) pending.put(key, key);
  pending.delete_range("b", "d");  // [b, d)
  std::vector<std::string> keys;
  for (const auto& [key, value] : pending.entries()) keys.emplace_back(key);
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

using Written = std::vector<std::pair<std::string, std::optional<std::string>>>;

// The entries in key order as for_each_in_order() gives them.
Written in_order(const PendingWrites& pending) {
  Written out;
  pending.for_each_in_order([&](std::string_view key, PendingWrites::Value value) {
    out.emplace_back(key, value ? std::optional<std::string>(*value) : std::nullopt);
  });
  return out;
}

TEST(PendingWrites, EntriesAreSortedAtTheCommitUntilReadInOrderAndKeptInOrderFromThenOn) {
  PendingWrites pending;
  EXPECT_TRUE(pending.entries().empty());  // with no entries: nothing to order
  for (auto key : {"c", "a", "b"}) pending.put(key, key);
  pending.put("a", std::nullopt);
  EXPECT_EQ(in_order(pending), (Written{{"a", std::nullopt}, {"b", "b"}, {"c", "c"}}));
  ASSERT_EQ(pending.entries().size(), 3u);  // ordered from here on
  pending.put("0", "zero");
  pending.put("b", "new");
  pending.delete_range("c", "d");
  EXPECT_EQ(in_order(pending), (Written{{"0", "zero"}, {"a", std::nullopt}, {"b", "new"}}));
  EXPECT_EQ(pending.find("b"), Answer(std::optional<std::string_view>("new")));
  EXPECT_EQ(pending.find("c"), Answer(std::optional<std::string_view>()));
  pending.clear();  // still ordered, and empty
  EXPECT_TRUE(pending.empty());
  pending.put("x", "1");
  EXPECT_EQ(pending.entries().size(), 1u);
}

TEST(PendingWrites, WritesInAnyOrderKeepKeyOrderAndTheNewestValue) {
  PendingWrites pending;
  std::map<std::string, std::optional<std::string>> expected;
  std::mt19937 random(5);
  auto write = [&](const std::string& key, std::optional<std::string> value) {
    pending.put(key, value);
    expected[key] = std::move(value);
  };
  for (int round = 0; round < 50; ++round) {
    // A sorted run (a commit's write-downs), with keys in it that are there already, then
    // random keys (evictions), then now and then a range deletion or a clear.
    for (int i = 0; i < 40; ++i) write(fmt::format("k{:04}", i * 7 + round % 7), "run");
    for (int i = 0; i < 20; ++i) {
      const auto key = fmt::format("k{:04}", random() % 400);
      write(key, random() % 4 == 0 ? std::nullopt : std::optional<std::string>(key));
    }
    if (round % 10 == 9) {
      const auto from = fmt::format("k{:04}", random() % 400);
      pending.delete_range(from, from + "5");
      expected.erase(expected.lower_bound(from), expected.lower_bound(from + "5"));
    }
    if (round == 30) {
      pending.clear();
      expected.clear();
    }
    // Unordered (hashed) for the first rounds, then read in order, which keeps it ordered.
    for (const auto& [key, value] : expected) {
      ASSERT_EQ(pending.find(key), Answer(value ? std::optional<std::string_view>(*value)
                                                : std::optional<std::string_view>()))
          << round << " " << key;
    }
    ASSERT_EQ(in_order(pending), Written(expected.begin(), expected.end())) << round;
    if (round < 25) continue;
    ASSERT_EQ(pending.entries().size(), expected.size()) << round;
    auto it = expected.begin();
    for (const auto& [key, value] : pending.entries()) {
      ASSERT_EQ(key, it->first);
      ASSERT_EQ(value, it->second) << key;
      ++it;
    }
  }
}

}  // namespace
}  // namespace brook::internal
