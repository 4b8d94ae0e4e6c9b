#include "state/fresh_segment_keys.h"

#include <gtest/gtest.h>

#include <string>

namespace brook::internal {
namespace {

TEST(FreshSegmentKeys, TracksNothingUntilStarted) {
  FreshSegmentKeys keys(10);
  keys.written(5, "a");
  EXPECT_FALSE(keys.never_written(5, "b"));
  EXPECT_EQ(keys.keys(), 0u);
}

TEST(FreshSegmentKeys, KnowsWhatWasNeverWrittenToSegmentsEmptyAtOpen) {
  FreshSegmentKeys keys(10);
  keys.start_at(2);
  EXPECT_FALSE(keys.never_written(1, "a"));  // held keys at open
  EXPECT_TRUE(keys.never_written(2, "a"));
  EXPECT_TRUE(keys.never_written(7, "a"));  // not written at all yet
  keys.written(2, "a");
  keys.written(2, "a");
  keys.written(1, "b");  // below the fresh segments: not tracked
  EXPECT_FALSE(keys.never_written(2, "a"));
  EXPECT_TRUE(keys.never_written(2, "b"));
  EXPECT_TRUE(keys.never_written(3, "a"));
  EXPECT_EQ(keys.keys(), 1u);
}

TEST(FreshSegmentKeys, AtTheBoundTheOldestSegmentsStopBeingTracked) {
  FreshSegmentKeys keys(3);
  keys.start_at(0);
  keys.written(0, "a");
  keys.written(1, "a");
  keys.written(1, "b");
  keys.written(1, "b");  // known: no new hash
  EXPECT_EQ(keys.keys(), 3u);
  keys.written(1, "c");  // a fourth: segment 0 goes
  EXPECT_EQ(keys.keys(), 3u);
  EXPECT_FALSE(keys.never_written(0, "b"));
  EXPECT_TRUE(keys.never_written(1, "d"));
  keys.written(0, "d");  // no longer tracked: nothing changes
  EXPECT_EQ(keys.keys(), 3u);
  keys.written(1, "d");  // the oldest tracked segment is this one: it goes
  EXPECT_EQ(keys.keys(), 0u);
  EXPECT_FALSE(keys.never_written(1, "e"));
  keys.written(2, "a");  // a segment written later is tracked
  EXPECT_FALSE(keys.never_written(2, "a"));
  EXPECT_TRUE(keys.never_written(2, "b"));
}

TEST(FreshSegmentKeys, DroppingExpiredSegmentsFreesTheirHashes) {
  FreshSegmentKeys keys(3);
  keys.start_at(0);
  for (const std::string key : {"a", "b", "c"}) keys.written(0, key);
  keys.drop_below(1);
  EXPECT_EQ(keys.keys(), 0u);
  keys.written(1, "a");
  keys.written(1, "b");
  EXPECT_EQ(keys.keys(), 2u);
  EXPECT_TRUE(keys.never_written(1, "c"));
}

}  // namespace
}  // namespace brook::internal
