#include "core/record_arena.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace brook::internal {
namespace {

TEST(RecordArena, CopiesStayWhereTheyAreAsTheArenaGrows) {
  RecordArena arena(16);
  std::vector<std::string_view> copies;
  std::vector<std::string> originals;
  for (int i = 0; i < 200; ++i) {
    originals.push_back(
        std::string(static_cast<std::size_t>(i % 50), static_cast<char>('a' + i % 26)));
    copies.push_back(arena.copy(originals.back()));
  }
  for (std::size_t i = 0; i < copies.size(); ++i) {
    EXPECT_EQ(copies[i], originals[i]);
    EXPECT_NE(copies[i].data(), originals[i].data());
  }
}

TEST(RecordArena, CopiesAfterAClearAreWholeAndTheirOwn) {
  RecordArena arena(16);
  for (int i = 0; i < 10; ++i) (void)arena.copy(std::string(100, 'x'));  // several blocks
  arena.clear();
  const std::string first = "after a clear";
  EXPECT_EQ(arena.copy(first), first);
  const std::string large(4096, 'y');
  EXPECT_EQ(arena.copy(large), large);
  EXPECT_EQ(arena.copy(""), "");
  RecordArena empty(16);
  empty.clear();
  EXPECT_EQ(empty.copy("x"), "x");
}

}  // namespace
}  // namespace brook::internal
