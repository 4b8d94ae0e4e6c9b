#include "state/rocksdb/restore_buffer.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace brook::internal {
namespace {

using Writes = std::vector<std::pair<std::string, std::optional<std::string>>>;

Writes all(const RestoreBuffer& buffer, bool sorted = true) {
  Writes out;
  buffer.for_each(sorted, [&](std::string_view key, std::optional<std::string_view> value) {
    out.emplace_back(key, value ? std::optional<std::string>(*value) : std::nullopt);
  });
  return out;
}

TEST(RestoreBuffer, KeepsTheLatestWriteOfEachKey) {
  RestoreBuffer buffer;
  EXPECT_TRUE(buffer.empty());
  buffer.put("a", "1");
  buffer.put("b", "1");
  buffer.put("a", "2");       // the same size: in place
  buffer.put("b", "longer");  // another size: a new record
  buffer.put("c", "1");
  buffer.put("c", std::nullopt);
  buffer.put("d", std::nullopt);
  buffer.put("d", "back");
  EXPECT_EQ(all(buffer), (Writes{{"a", "2"}, {"b", "longer"}, {"c", std::nullopt}, {"d", "back"}}));
  EXPECT_FALSE(buffer.empty());
  buffer.clear();
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(all(buffer), Writes{});
}

TEST(RestoreBuffer, ARangeDeletionDropsTheWritesItCoversButNotLaterOnes) {
  RestoreBuffer buffer;
  buffer.put("a", "1");
  buffer.put("b", "1");
  buffer.put("c", "1");
  buffer.delete_range("b", "c");  // [b, c)
  buffer.put("bb", "after");
  EXPECT_EQ(all(buffer), (Writes{{"a", "1"}, {"bb", "after"}, {"c", "1"}}));
  buffer.put("b", std::nullopt);  // a dropped key deleted again
  EXPECT_EQ(all(buffer), (Writes{{"a", "1"}, {"b", std::nullopt}, {"bb", "after"}, {"c", "1"}}));
  ASSERT_EQ(buffer.ranges().size(), 1u);
  EXPECT_EQ(buffer.ranges()[0], (std::pair<std::string, std::string>{"b", "c"}));
  buffer.delete_range("z", "a");  // empty: ignored
  EXPECT_EQ(buffer.ranges().size(), 1u);
}

// Keys that agree in their first 16 bytes, zero bytes, bytes above 0x7f, keys that are
// prefixes of others: sorted as unsigned bytes, as RocksDB orders them.
TEST(RestoreBuffer, SortsKeysInUnsignedByteOrder) {
  RestoreBuffer buffer;
  std::map<std::string, std::string> expected;
  std::mt19937 random(3);
  constexpr char kBytes[] = {'\x00', '\x01', 'k', '\x7f', '\x80', '\xff'};
  for (int i = 0; i < 20'000; ++i) {  // also grows the table past its first size
    std::string key = i % 2 == 0 ? std::string(16, 'p') : "";
    key.resize(key.size() + random() % 20);
    for (std::size_t j = key.empty() ? 0 : 16; j < key.size(); ++j) {
      key[j] = kBytes[random() % std::size(kBytes)];
    }
    buffer.put(key, std::to_string(i));
    expected[key] = std::to_string(i);
  }
  Writes want;
  for (const auto& [key, value] : expected) want.emplace_back(key, value);
  EXPECT_EQ(all(buffer), want);
  Writes unsorted = all(buffer, false);
  std::sort(unsorted.begin(), unsorted.end());
  EXPECT_EQ(unsorted, want);
}

TEST(RestoreBuffer, CountsTheMemoryOfItsRecords) {
  RestoreBuffer buffer;
  const std::size_t empty = buffer.bytes();
  for (int i = 0; i < 10'000; ++i) buffer.put("key" + std::to_string(i), std::string(200, 'v'));
  EXPECT_GE(buffer.bytes(), empty + 10'000 * 200);
  EXPECT_LE(buffer.bytes(), empty + 10'000 * 300 + (std::size_t{1} << 20));
}

}  // namespace
}  // namespace brook::internal
