#include "state/in_memory_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
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

TEST(InMemoryStore, GetIntoReplacesTheBufferOnlyForAPresentKey) {
  InMemoryStore store("s");
  ASSERT_TRUE(store.put("a", "1").ok());
  std::string buffer = "old content";
  EXPECT_TRUE(store.get_into("a", buffer).value());
  EXPECT_EQ(buffer, "1");
  EXPECT_FALSE(store.get_into("b", buffer).value());
  EXPECT_EQ(buffer, "1");
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

TEST(InMemoryStore, PointLookupsAndWritesBuildNoOrderedIndex) {
  InMemoryStore store("s");
  store.reserve_for_restore(100);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(store.put("k" + std::to_string(i), "v").ok());
  ASSERT_TRUE(store.put("k7", std::nullopt).ok());
  EXPECT_EQ(store.get("k8").value(), "v");
  EXPECT_EQ(store.get("k7").value(), std::nullopt);
  EXPECT_EQ(store.approximate_count().value(), 99);
  EXPECT_FALSE(store.ordered());
}

TEST(InMemoryStore, ScansAfterTheFirstSeeLaterPutsAndDeletesInOrder) {
  InMemoryStore store("s");
  for (auto key : {"d", "b", "f"}) ASSERT_TRUE(store.put(key, "1").ok());
  EXPECT_EQ(scan_all(store), (Entries{{"b", "1"}, {"d", "1"}, {"f", "1"}}));
  EXPECT_TRUE(store.ordered());
  ASSERT_TRUE(store.put("a", "2").ok());
  ASSERT_TRUE(store.put("e", "2").ok());
  ASSERT_TRUE(store.put("d", "2").ok());  // an update keeps its place
  ASSERT_TRUE(store.put("b", std::nullopt).ok());
  EXPECT_EQ(scan_all(store), (Entries{{"a", "2"}, {"d", "2"}, {"e", "2"}, {"f", "1"}}));
  EXPECT_EQ(scan_all(store, {.from = "c", .to = "e"}), (Entries{{"d", "2"}, {"e", "2"}}));
}

TEST(InMemoryStore, ScansStayInOrderWhileTheMapGrowsAndShrinks) {
  InMemoryStore store("s");
  Entries expected;
  auto put = [&](int i) {
    const std::string key = "k" + std::to_string(i);
    ASSERT_TRUE(store.put(key, std::to_string(i)).ok());
    expected.emplace_back(key, std::to_string(i));
  };
  put(0);
  EXPECT_EQ(scan_all(store), expected);    // the index exists from here on
  for (int i = 1; i < 5'000; ++i) put(i);  // the map grows many times over
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(scan_all(store), expected);
  Entries tail;
  for (const auto& entry : expected) {
    if (entry.first >= "k4990" && entry.first <= "k4999") tail.push_back(entry);
  }
  ASSERT_EQ(tail.size(), 10u);
  EXPECT_EQ(scan_all(store, {.from = "k4990", .to = "k4999"}), tail);
  for (int i = 10; i < 5'000; ++i)
    ASSERT_TRUE(store.put("k" + std::to_string(i), std::nullopt).ok());
  ASSERT_TRUE(store.flush().ok());  // far more room than entries: the map shrinks
  Entries left;
  for (int i = 0; i < 10; ++i) left.emplace_back("k" + std::to_string(i), std::to_string(i));
  std::sort(left.begin(), left.end());
  EXPECT_EQ(scan_all(store), left);
  EXPECT_EQ(store.get("k5").value(), "5");
}

TEST(InMemoryStore, ARestorationReservedForMoreKeysThanCameKeepsItsEntriesAfterTheFlush) {
  InMemoryStore store("s");
  store.reserve_for_restore(100'000);
  for (auto key : {"c", "a", "b"}) ASSERT_TRUE(store.restore(key, key).ok());
  ASSERT_TRUE(store.flush().ok());
  EXPECT_EQ(scan_all(store), (Entries{{"a", "a"}, {"b", "b"}, {"c", "c"}}));
  EXPECT_EQ(store.get("b").value(), "b");
}

TEST(InMemoryStore, DeleteRangeRemovesKeysFromLookupsAndScans) {
  InMemoryStore store("s");
  for (auto key : {"a", "b", "c", "d", "e"}) ASSERT_TRUE(store.put(key, "v").ok());
  ASSERT_TRUE(store.delete_range({.from = "b", .to = "d"}).ok());
  EXPECT_EQ(store.get("c").value(), std::nullopt);
  EXPECT_EQ(store.approximate_count().value(), 2);
  EXPECT_EQ(scan_all(store), (Entries{{"a", "v"}, {"e", "v"}}));
  ASSERT_TRUE(store.delete_range({.from = "d", .to = "b"}).ok());  // empty: from > to
  ASSERT_TRUE(store.delete_range({.from = "b"}).ok());
  EXPECT_EQ(scan_all(store), (Entries{{"a", "v"}}));
  ASSERT_TRUE(store.put("c", "w").ok());
  EXPECT_EQ(scan_all(store), (Entries{{"a", "v"}, {"c", "w"}}));
}

// Random puts, deletes, range deletions, lookups and scans against a std::map, over keys with
// bytes on both sides of 0x80 (unsigned order), the first scan coming midway.
TEST(InMemoryStore, AgreesWithAnOrderedMapUnderRandomOperations) {
  InMemoryStore store("s");
  std::map<std::string, std::string> oracle;
  std::mt19937 random(7);
  constexpr char kBytes[] = {'\x00', '\x01', 'a', 'z', '\x7f', '\x80', '\xfe', '\xff'};
  auto key = [&] {
    std::string k(1 + random() % 3, '\0');
    for (auto& c : k) c = kBytes[random() % std::size(kBytes)];
    return k;
  };
  for (int step = 0; step < 20'000; ++step) {
    const auto op = random() % 10;
    if (op < 5) {
      const auto k = key();
      // Values of 1 to 305 bytes: a key's entry often outgrows its block and moves.
      const auto v = std::to_string(step) + std::string(random() % 301, 'v');
      ASSERT_TRUE(store.put(k, v).ok());
      oracle[k] = v;
    } else if (op < 7) {
      const auto k = key();
      ASSERT_TRUE(store.put(k, std::nullopt).ok());
      oracle.erase(k);
    } else if (op < 8) {
      const auto k = key();
      const auto found = oracle.find(k);
      EXPECT_EQ(store.get(k).value(),
                found == oracle.end() ? std::nullopt : std::optional(found->second));
    } else if (step > 10'000 && op < 9) {
      auto from = key(), to = key();
      if (from > to) std::swap(from, to);
      ASSERT_TRUE(store.delete_range({.from = from, .to = to}).ok());
      oracle.erase(oracle.lower_bound(from), oracle.upper_bound(to));
    } else if (step > 10'000) {
      auto from = key(), to = key();
      if (from > to) std::swap(from, to);
      const Entries expected(oracle.lower_bound(from), oracle.upper_bound(to));
      ASSERT_EQ(scan_all(store, {.from = from, .to = to}), expected) << "step " << step;
    }
  }
  EXPECT_EQ(scan_all(store), Entries(oracle.begin(), oracle.end()));
  EXPECT_EQ(store.approximate_count().value(), static_cast<std::int64_t>(oracle.size()));
}

TEST(InMemoryStore, IsNotPersistentAndHasNoCommittedOffset) {
  InMemoryStore store("s");
  ASSERT_TRUE(store.commit(Offset(5)).ok());
  EXPECT_FALSE(store.persistent());
  EXPECT_EQ(store.committed_offset(), std::nullopt);
}

}  // namespace
}  // namespace brook::internal
