#include "state/window_memory_index.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "brook/internal/window_keys.h"

namespace brook::internal {
namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

std::string wk(std::string_view key, std::int64_t start, std::uint32_t seq = 0) {
  return window_key(key, Timestamp(start), seq);
}

Entries scan(const WindowMemoryIndex& index, const KeyRange& range, std::int64_t min_segment = 0) {
  Entries out;
  index.scan(range, min_segment, [&](std::string_view k, std::string_view v) {
    out.emplace_back(k, v);
    return true;
  });
  return out;
}

TEST(WindowMemoryIndex, AnswersOneKeysWindowsInTimeOrderAndSkipsOldSegments) {
  WindowMemoryIndex index(kWindowKeySuffix);
  index.put(1, wk("k", 15), "k15");
  index.put(0, wk("k", 5), "k5");
  index.put(1, wk("k", 12, 1), "k12.1");
  index.put(1, wk("k", 12, 0), "k12.0");
  index.put(0, wk("j", 5), "j5");
  EXPECT_EQ(scan(index, window_key_range("k", Timestamp(0), Timestamp(100))),
            (Entries{{wk("k", 5), "k5"},
                     {wk("k", 12, 0), "k12.0"},
                     {wk("k", 12, 1), "k12.1"},
                     {wk("k", 15), "k15"}}));
  EXPECT_EQ(scan(index, window_key_range("k", Timestamp(6), Timestamp(12))),
            (Entries{{wk("k", 12, 0), "k12.0"}, {wk("k", 12, 1), "k12.1"}}));
  EXPECT_EQ(scan(index, window_key_range("k", Timestamp(0), Timestamp(100)), 1).size(), 3u);
  EXPECT_EQ(index.get(wk("k", 5), 0), "k5");
  EXPECT_EQ(index.get(wk("k", 5), 1), std::nullopt);
  EXPECT_EQ(index.get(wk("k", 6), 0), std::nullopt);
  EXPECT_EQ(index.get(wk("x", 6), 0), std::nullopt);

  index.put(1, wk("k", 15), "new");  // replaced
  index.put(1, wk("k", 12, 0), std::nullopt);
  index.drop_below(1);
  EXPECT_EQ(scan(index, {}), (Entries{{wk("k", 12, 1), "k12.1"}, {wk("k", 15), "new"}}));
}

TEST(WindowMemoryIndex, AOneKeyRangeAlsoHoldsTheLongerKeysThatSortInsideIt) {
  WindowMemoryIndex index(kWindowKeySuffix);
  // "a" + [8-byte time 0][seq] sorts before "a\0..." + ..., which sorts before "a" + time 1 << 56.
  const std::string longer("a\0\0\0\0\0\0\0\0", 9);
  index.put(0, wk("a", 0), "a0");
  index.put(0, wk(longer, 0), "longer");
  index.put(0, wk("a", std::int64_t{1} << 56), "a-late");
  const auto range = window_key_range("a", Timestamp(0), Timestamp(std::int64_t{1} << 56));
  EXPECT_EQ(scan(index, range), (Entries{{wk("a", 0), "a0"},
                                         {wk(longer, 0), "longer"},
                                         {wk("a", std::int64_t{1} << 56), "a-late"}}));
  index.put(0, wk("a", 0), std::nullopt);
  index.put(0, wk("a", std::int64_t{1} << 56), std::nullopt);  // group "a" gone
  EXPECT_EQ(scan(index, range), (Entries{{wk(longer, 0), "longer"}}));
  index.put(0, wk(longer, 0), std::nullopt);
  EXPECT_EQ(scan(index, range), Entries{});
}

// Random puts, deletions and drops of keys that extend each other, read back against a
// std::map of the same entries.
TEST(WindowMemoryIndex, ReadsAsAnOrderedMapOfTheSameEntries) {
  const std::vector<std::string> keys = {"", "a", "ab", std::string("a\0", 2), "b", "abc"};
  WindowMemoryIndex index(kWindowKeySuffix);
  std::map<std::string, std::pair<std::int64_t, std::string>> model;  // key -> segment, value
  std::mt19937 random(17);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
  std::int64_t dropped = 0;
  for (int step = 0; step < 20000; ++step) {
    const std::string& key = keys[pick(keys.size())];
    const std::int64_t time = dropped * 10 + static_cast<std::int64_t>(pick(40));
    const std::string window = wk(key, time, static_cast<std::uint32_t>(pick(2)));
    const std::int64_t segment = time / 10;
    switch (pick(8)) {
      case 0:
        index.put(segment, window, std::nullopt);
        model.erase(window);
        break;
      case 1: {
        if (pick(20) != 0) break;
        ++dropped;
        index.drop_below(dropped);
        std::erase_if(model, [&](const auto& e) { return e.second.first < dropped; });
        break;
      }
      default: {
        const std::string value = std::to_string(step);
        index.put(segment, window, value);
        model[window] = {segment, value};
      }
    }
    const std::int64_t min_segment = dropped + static_cast<std::int64_t>(pick(2));
    const std::string& read = keys[pick(keys.size())];
    const std::int64_t from = dropped * 10 + static_cast<std::int64_t>(pick(40));
    const KeyRange ranges[] = {
        window_key_range(read, Timestamp(from),
                         Timestamp(from + static_cast<std::int64_t>(pick(20)))),
        {.from = wk(read, from), .to = wk(keys[pick(keys.size())], from)},
        {}};
    for (const auto& range : ranges) {
      Entries expected;
      for (const auto& [k, e] : model) {
        if (e.first >= min_segment && (!range.from || k >= *range.from) &&
            (!range.to || k <= *range.to)) {
          expected.emplace_back(k, e.second);
        }
      }
      ASSERT_EQ(scan(index, range, min_segment), expected) << "step " << step;
    }
    const auto found = model.find(window);
    const bool live = found != model.end() && found->second.first >= min_segment;
    ASSERT_EQ(index.get(window, min_segment),
              live ? std::optional<std::string_view>(found->second.second) : std::nullopt);
  }
}

}  // namespace
}  // namespace brook::internal
