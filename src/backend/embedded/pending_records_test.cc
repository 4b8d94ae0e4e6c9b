#include "backend/embedded/pending_records.h"

#include <gtest/gtest.h>

#include <string>

namespace brook::internal {
namespace {

TEST(PendingRecords, KeepsCopiesOfTheBytesItWasGiven) {
  PendingRecords pending;
  std::string key = "key";
  std::string value(100'000, 'v');  // larger than the arena's first block
  Headers headers{{.key = "h", .value = "1"}};
  pending.add(Timestamp(7), key, value, &headers);
  key = "changed";
  value.assign(100'000, 'x');
  headers.add("more", std::nullopt);

  ASSERT_EQ(pending.size(), 1u);
  const RecordToAppend& kept = pending.records()[0];
  EXPECT_EQ(kept.timestamp, Timestamp(7));
  EXPECT_EQ(kept.key, "key");
  EXPECT_EQ(kept.value, std::string(100'000, 'v'));
  ASSERT_NE(kept.headers, nullptr);
  EXPECT_EQ(*kept.headers, (Headers{{.key = "h", .value = "1"}}));
  EXPECT_EQ(pending.bytes(), encoded_size(kept));
}

TEST(PendingRecords, NullStaysNullAndEmptyStaysEmpty) {
  PendingRecords pending;
  const Headers none;
  pending.add(Timestamp(0), std::nullopt, std::nullopt, nullptr);
  pending.add(Timestamp(1), "", "", &none);
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending.records()[0].key, std::nullopt);
  EXPECT_EQ(pending.records()[0].value, std::nullopt);
  EXPECT_EQ(pending.records()[1].key, "");
  EXPECT_EQ(pending.records()[1].value, "");
  EXPECT_EQ(pending.records()[1].headers, nullptr);  // no headers: nothing kept
}

TEST(PendingRecords, ViewsStayValidAsMoreRecordsAreAddedAndWhenMoved) {
  PendingRecords pending;
  for (int i = 0; i < 10'000; ++i) {
    Headers headers{{.key = "i", .value = std::to_string(i)}};
    pending.add(Timestamp(i), "key-" + std::to_string(i), std::string(i % 50, 'v'), &headers);
  }
  const PendingRecords moved = std::move(pending);
  ASSERT_EQ(moved.size(), 10'000u);
  for (int i = 0; i < 10'000; ++i) {
    const RecordToAppend& r = moved.records()[static_cast<std::size_t>(i)];
    ASSERT_EQ(r.key, "key-" + std::to_string(i));
    ASSERT_EQ(r.value, std::string(i % 50, 'v'));
    ASSERT_EQ(r.headers->last("i")->value, std::to_string(i));
  }
}

}  // namespace
}  // namespace brook::internal
