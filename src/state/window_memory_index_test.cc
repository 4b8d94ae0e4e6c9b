#include "state/window_memory_index.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "brook/internal/window_keys.h"
#include "window_key_helper.h"

namespace brook::internal {
namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;
using testing::wk;

Entries scan(const WindowMemoryIndex& index, const KeyRange& range, std::int64_t min_time = 0) {
  Entries out;
  index.scan(range, min_time, [&](std::string_view k, std::string_view v) {
    out.emplace_back(k, v);
    return true;
  });
  return out;
}

TEST(WindowMemoryIndex, AnswersOneKeysWindowsInTimeOrderAndSkipsOldOnes) {
  WindowMemoryIndex index(kWindowKeySuffix);
  index.put(wk("k", 15), "k15", 0);
  index.put(wk("k", 5), "k5", 0);
  index.put(wk("k", 12, 1), "k12.1", 0);
  index.put(wk("k", 12, 0), "k12.0", 0);
  index.put(wk("j", 5), "j5", 0);
  EXPECT_EQ(scan(index, window_key_range("k", Timestamp(0), Timestamp(100))),
            (Entries{{wk("k", 5), "k5"},
                     {wk("k", 12, 0), "k12.0"},
                     {wk("k", 12, 1), "k12.1"},
                     {wk("k", 15), "k15"}}));
  EXPECT_EQ(scan(index, window_key_range("k", Timestamp(6), Timestamp(12))),
            (Entries{{wk("k", 12, 0), "k12.0"}, {wk("k", 12, 1), "k12.1"}}));
  EXPECT_EQ(scan(index, window_key_range("k", Timestamp(0), Timestamp(100)), 6).size(), 3u);
  EXPECT_EQ(index.get(wk("k", 5), 0), "k5");
  EXPECT_EQ(index.get(wk("k", 5), 6), std::nullopt);
  EXPECT_EQ(index.get(wk("k", 6), 0), std::nullopt);
  EXPECT_EQ(index.get(wk("x", 6), 0), std::nullopt);

  index.put(wk("k", 15), "new", 0);  // replaced
  index.put(wk("k", 12, 0), std::nullopt, 0);
  index.drop_below(10);
  EXPECT_EQ(scan(index, {}), (Entries{{wk("k", 12, 1), "k12.1"}, {wk("k", 15), "new"}}));
  index.put(wk("j", 20), "j20", 0);
  index.put(wk("k", 20), "k20", 13);  // drops k's entries before 13, not j's
  EXPECT_EQ(scan(index, {}),
            (Entries{{wk("j", 20), "j20"}, {wk("k", 15), "new"}, {wk("k", 20), "k20"}}));
}

TEST(WindowMemoryIndex, AOneKeyRangeAlsoHoldsTheLongerKeysThatSortInsideIt) {
  WindowMemoryIndex index(kWindowKeySuffix);
  // "a" + [8-byte time 0][seq] sorts before "a\0..." + ..., which sorts before "a" + time 1 << 56.
  const std::string longer("a\0\0\0\0\0\0\0\0", 9);
  const std::int64_t late = std::int64_t{1} << 56;
  index.put(wk("a", 0), "a0", 0);
  index.put(wk(longer, 0), "longer", 0);
  index.put(wk("a", late), "a-late", 0);
  const auto range = window_key_range("a", Timestamp(0), Timestamp(late));
  EXPECT_EQ(scan(index, range),
            (Entries{{wk("a", 0), "a0"}, {wk(longer, 0), "longer"}, {wk("a", late), "a-late"}}));
  index.put(wk("a", 0), std::nullopt, 0);
  index.put(wk("a", late), std::nullopt, 0);  // group "a" gone
  EXPECT_EQ(scan(index, range), (Entries{{wk(longer, 0), "longer"}}));
  index.put(wk(longer, 0), std::nullopt, 0);
  EXPECT_EQ(scan(index, range), Entries{});
}

TEST(WindowMemoryIndex, AOneKeyRangeAlsoHoldsTheShorterKeysThatSortInsideIt) {
  WindowMemoryIndex index(kWindowKeySuffix);
  // "a" + [0 0 0 0 0 0 0 1][seq 0] sorts between "a\0" + time 5 and "a\0" + time 300.
  const std::string longer("a\0", 2);
  index.put(wk(longer, 5), "longer", 0);
  index.put(wk("a", 1), "a1", 0);
  EXPECT_EQ(scan(index, window_key_range(longer, Timestamp(0), Timestamp(300))),
            (Entries{{wk(longer, 5), "longer"}, {wk("a", 1), "a1"}}));
  index.put(wk(longer, 5), std::nullopt, 0);  // group "a\0" gone
  EXPECT_EQ(scan(index, window_key_range(longer, Timestamp(0), Timestamp(300))),
            (Entries{{wk("a", 1), "a1"}}));
}

// Random puts, deletions and drops of keys that extend each other, read back against a
// std::map of the same entries.
TEST(WindowMemoryIndex, ReadsAsAnOrderedMapOfTheSameEntries) {
  const std::vector<std::string> keys = {"a", "ab", std::string("a\0", 2), "b", "c", "abc"};
  WindowMemoryIndex index(kWindowKeySuffix);
  std::map<std::string, std::pair<std::int64_t, std::string>> model;  // key -> time, value
  std::mt19937 random(17);
  auto pick = [&](std::int64_t n) { return static_cast<std::int64_t>(random() % n); };
  auto any_key = [&]() -> const std::string& { return keys[pick(keys.size())]; };
  std::int64_t oldest = 0;  // every time below was dropped
  for (int step = 0; step < 20000; ++step) {
    const std::string& key = any_key();
    const std::int64_t time = oldest + pick(40);
    const std::string window = wk(key, time, static_cast<std::uint32_t>(pick(2)));
    switch (pick(8)) {
      case 0:
        index.put(window, std::nullopt, 0);
        model.erase(window);
        break;
      case 1:
        if (pick(20) != 0) break;
        oldest += 5;
        index.drop_below(oldest);
        std::erase_if(model, [&](const auto& e) { return e.second.first < oldest; });
        break;
      default: {
        const std::string value = std::to_string(step);
        const std::int64_t keep_from = oldest + pick(10);
        index.put(window, value, keep_from);
        std::erase_if(model, [&](const auto& e) {
          return e.second.first < keep_from &&
                 std::string_view(e.first).substr(0, e.first.size() - kWindowKeySuffix) == key;
        });
        model[window] = {time, value};
      }
    }
    const std::int64_t min_time = oldest + pick(20);
    const std::string& read = any_key();
    const std::int64_t from = oldest + pick(40);
    const KeyRange ranges[] = {window_key_range(read, Timestamp(from), Timestamp(from + pick(20))),
                               {.from = wk(read, from), .to = wk(any_key(), from)},
                               {}};
    for (const auto& range : ranges) {
      Entries expected;
      for (const auto& [k, e] : model) {
        if (e.first >= min_time && (!range.from || k >= *range.from) &&
            (!range.to || k <= *range.to)) {
          expected.emplace_back(k, e.second);
        }
      }
      ASSERT_EQ(scan(index, range, min_time), expected) << "step " << step;
    }
    ASSERT_EQ(index.size(), model.size());
    const auto found = model.find(window);
    const bool live = found != model.end() && found->second.first >= min_time;
    ASSERT_EQ(index.get(window, min_time),
              live ? std::optional<std::string_view>(found->second.second) : std::nullopt);
  }
}

}  // namespace
}  // namespace brook::internal
