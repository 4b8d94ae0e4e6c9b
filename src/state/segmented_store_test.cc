#include "state/segmented_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "brook/internal/window_keys.h"
#include "scratch_dir.h"
#include "state/in_memory_store.h"
#include "state/rocksdb/rocksdb_store.h"
#include "store_entries.h"
#include "window_key_helper.h"

namespace brook::internal {
namespace {

using namespace std::chrono_literals;
using testing::Entries;
using testing::scan_all;
using testing::wk;

constexpr std::size_t kSegmentedMemoryBytes = std::size_t{64} << 20;

// Forwards to a bottom store, counting range deletions.
class CountingStore final : public KeyValueBytesStore {
 public:
  explicit CountingStore(std::unique_ptr<KeyValueBytesStore> inner) : inner_(std::move(inner)) {}
  const std::string& name() const override { return inner_->name(); }
  Result<std::optional<std::string>> get(std::string_view key) override {
    ++reads;
    return inner_->get(key);
  }
  Status put(std::string_view key, std::optional<std::string_view> value) override {
    return inner_->put(key, value);
  }
  Status restore(std::string_view key, std::optional<std::string_view> value) override {
    return inner_->restore(key, value);
  }
  Status scan(const KeyRange& range, const ScanVisitor& visit) override {
    ++reads;
    return inner_->scan(range, visit);
  }
  Status delete_range(const KeyRange& range) override {
    ++range_deletes;
    return inner_->delete_range(range);
  }
  Result<std::int64_t> approximate_count() override { return inner_->approximate_count(); }
  Status flush() override { return inner_->flush(); }
  Status commit(std::optional<Offset> next) override { return inner_->commit(next); }
  std::optional<Offset> committed_offset() const override { return inner_->committed_offset(); }
  bool persistent() const override { return inner_->persistent(); }

  int range_deletes = 0;
  int reads = 0;  // gets and scans

 private:
  std::unique_ptr<KeyValueBytesStore> inner_;
};

// The segment ids in the bottom store, in order, one per entry.
std::vector<std::int64_t> segments_of(KeyValueBytesStore& inner) {
  std::vector<std::int64_t> out;
  for (const auto& [k, v] : scan_all(inner)) {
    out.push_back(static_cast<std::int64_t>(read_big_endian(std::string_view(k).substr(0, 8))));
  }
  return out;
}

// The bottom stores: in memory, RocksDB, and RocksDB loading every restored batch as SST files
// (RocksDbOptions::min_ingest_bytes = 0), as it does large ones; and whether the segmented
// store keeps a memory index over it.
struct Bottom {
  enum Store { kInMemory, kRocksDb, kRocksDbIngesting } store;
  bool memory_index = false;
};

std::string bottom_name(const ::testing::TestParamInfo<Bottom>& param_info) {
  switch (param_info.param.store) {
    case Bottom::kInMemory: return "InMemory";
    case Bottom::kRocksDb:
      return param_info.param.memory_index ? "RocksDbWithMemoryIndex" : "RocksDb";
    case Bottom::kRocksDbIngesting: return "RocksDbIngesting";
  }
  return "";
}

const auto kBottoms = ::testing::Values(Bottom{Bottom::kInMemory}, Bottom{Bottom::kRocksDb},
                                        Bottom{Bottom::kRocksDbIngesting});

std::unique_ptr<KeyValueBytesStore> open_bottom(Bottom bottom, const std::filesystem::path& dir,
                                                std::shared_ptr<RocksDbMemory> memory) {
  if (bottom.store == Bottom::kInMemory) return std::make_unique<InMemoryStore>("w");
  const RocksDbOptions options{.min_ingest_bytes = bottom.store == Bottom::kRocksDbIngesting
                                                       ? 0
                                                       : RocksDbOptions().min_ingest_bytes};
  auto store = open_rocksdb_store("w", dir, std::move(memory), options);
  EXPECT_TRUE(store) << store.error().to_string();
  return store ? std::move(*store) : nullptr;
}

class SegmentedStoreTest : public ::testing::TestWithParam<Bottom> {
 protected:
  // A window store with 10 ms segments keeping 20 ms.
  std::unique_ptr<SegmentedStore> open(StoreKind kind = StoreKind::kWindow,
                                       std::chrono::milliseconds retention = 20ms) {
    auto counting = std::make_unique<CountingStore>(open_bottom(GetParam(), dir_.path(), memory_));
    counting_ = counting.get();
    return std::make_unique<SegmentedStore>(std::move(counting), kind, retention, 10ms,
                                            GetParam().memory_index);
  }

  brook::testing::ScratchDir dir_{"segmented-store"};
  std::shared_ptr<RocksDbMemory> memory_ = std::make_shared<RocksDbMemory>(kSegmentedMemoryBytes);
  CountingStore* counting_ = nullptr;
};

TEST_P(SegmentedStoreTest, ScansInKeyOrderAcrossSegmentsWithinBoundsAndStopsWhenAsked) {
  auto store = open(StoreKind::kWindow, 1000ms);
  ASSERT_TRUE(store->put(wk("b", 5), "b5").ok());    // segment 0
  ASSERT_TRUE(store->put(wk("a", 15), "a15").ok());  // segment 1
  ASSERT_TRUE(store->put(wk("a", 3), "a3").ok());    // segment 0
  ASSERT_TRUE(store->put(wk("c", 25), "c25").ok());  // segment 2
  EXPECT_EQ(segments_of(*counting_), (std::vector<std::int64_t>{0, 0, 1, 2}));

  EXPECT_EQ(
      scan_all(*store),
      (Entries{
          {wk("a", 3), "a3"}, {wk("a", 15), "a15"}, {wk("b", 5), "b5"}, {wk("c", 25), "c25"}}));
  EXPECT_EQ(scan_all(*store, window_key_range("a", Timestamp(0), Timestamp(100))),
            (Entries{{wk("a", 3), "a3"}, {wk("a", 15), "a15"}}));
  EXPECT_EQ(scan_all(*store, {.from = wk("a", 15), .to = wk("b", 5)}),
            (Entries{{wk("a", 15), "a15"}, {wk("b", 5), "b5"}}));
  int visited = 0;
  ASSERT_TRUE(store->scan({}, [&](auto, auto) { return ++visited < 2; }).ok());
  EXPECT_EQ(visited, 2);
  EXPECT_EQ(store->get(wk("a", 15)).value(), "a15");
  EXPECT_EQ(store->get(wk("a", 16)).value(), std::nullopt);
}

TEST_P(SegmentedStoreTest, MergesLargeSegmentsChunkByChunk) {
  auto store = open(StoreKind::kWindow, 1000ms);
  Entries expected;
  for (int i = 0; i < 900; ++i) {
    char key[8];
    std::snprintf(key, sizeof key, "k%04d", i);
    const std::int64_t t = i % 3 * 10 + 1;  // segments 0, 1, 2 interleaved by key
    ASSERT_TRUE(store->put(wk(key, t), std::to_string(i)).ok());
    expected.emplace_back(wk(key, t), std::to_string(i));
  }
  ASSERT_TRUE(store->commit(Offset(1)).ok());
  EXPECT_EQ(scan_all(*store), expected);
}

TEST_P(SegmentedStoreTest, ExpiryDropsWholeSegmentsWithOneRangeDelete) {
  auto store = open();                              // segments of 10 ms, retention 20 ms
  ASSERT_TRUE(store->put(wk("k", 5), "5").ok());    // segment 0
  ASSERT_TRUE(store->put(wk("k", 15), "15").ok());  // segment 1
  ASSERT_TRUE(store->put(wk("k", 19), "19").ok());  // segment 1
  EXPECT_EQ(counting_->range_deletes, 0);
  // Observed time 55: segments ending before 35 (0, 1 and 2) expired; 3 (30..39) lives.
  ASSERT_TRUE(store->put(wk("k", 55), "55").ok());
  EXPECT_EQ(counting_->range_deletes, 1);
  EXPECT_EQ(store->min_live_segment(), 3);
  EXPECT_EQ(segments_of(*counting_), (std::vector<std::int64_t>{5}));
  EXPECT_EQ(store->get(wk("k", 15)).value(), std::nullopt);
  EXPECT_EQ(scan_all(*store), (Entries{{wk("k", 55), "55"}}));

  ASSERT_TRUE(store->commit(Offset(4)).ok());  // the range deletion reaches the disk too
  EXPECT_EQ(segments_of(*counting_), (std::vector<std::int64_t>{5}));
  ASSERT_TRUE(store->put(wk("k", 58), "58").ok());  // no new expiry, no new deletion
  EXPECT_EQ(counting_->range_deletes, 1);
}

TEST_P(SegmentedStoreTest, WritesToExpiredSegmentsAreIgnored) {
  auto store = open();
  ASSERT_TRUE(store->put(wk("k", 50), "50").ok());
  EXPECT_TRUE(store->put(wk("k", 5), "late").ok());
  EXPECT_TRUE(store->put(wk("k", 29), "late").ok());  // segment 2 ends at 29 < 30: expired
  EXPECT_TRUE(store->put(wk("k", 30), "kept").ok());  // segment 3 lives
  EXPECT_EQ(store->get(wk("k", 5)).value(), std::nullopt);
  EXPECT_EQ(scan_all(*store), (Entries{{wk("k", 30), "kept"}, {wk("k", 50), "50"}}));
  EXPECT_EQ(segments_of(*counting_), (std::vector<std::int64_t>{3, 5}));
}

TEST_P(SegmentedStoreTest, RestoredKeysAreSegmentedAndExpireToo) {
  auto store = open(StoreKind::kSession);
  auto sk = [](std::string_view key, std::int64_t start, std::int64_t end) {
    return session_key(key, {.start = Timestamp(start), .end = Timestamp(end)});
  };
  ASSERT_TRUE(store->restore(sk("a", 1, 5), "old").ok());         // filed under end 5: segment 0
  ASSERT_TRUE(store->restore(sk("b", 40, 52), "new").ok());       // segment 5: expires 0..2
  ASSERT_TRUE(store->restore(sk("a", 30, 45), "newer").ok());     // segment 4
  ASSERT_TRUE(store->restore(sk("a", 1, 5), std::nullopt).ok());  // expired: ignored
  ASSERT_TRUE(store->commit(Offset(9)).ok());
  EXPECT_EQ(store->committed_offset(), GetParam().store != Bottom::kInMemory
                                           ? std::optional<Offset>(Offset(9))
                                           : std::nullopt);
  EXPECT_EQ(scan_all(*store), (Entries{{sk("a", 30, 45), "newer"}, {sk("b", 40, 52), "new"}}));
  EXPECT_EQ(segments_of(*counting_), (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(store->observed_time(), 52);
}

TEST_P(SegmentedStoreTest, RejectsKeysTooShortForTheirKind) {
  auto store = open(StoreKind::kSession);
  EXPECT_EQ(store->put(wk("", 5), "x").code(), StatusCode::kInvalidArgument);  // 12 < 16 bytes
  EXPECT_FALSE(store->get("short").has_value());
}

INSTANTIATE_TEST_SUITE_P(Bottoms, SegmentedStoreTest, kBottoms, bottom_name);
INSTANTIATE_TEST_SUITE_P(MemoryIndex, SegmentedStoreTest,
                         ::testing::Values(Bottom{Bottom::kRocksDb, true}), bottom_name);

// Windows at 5 and 25 committed at offset 7, then one at 26 not committed.
void write_two_committed_and_one_not(SegmentedStore& store) {
  ASSERT_TRUE(store.put(wk("k", 5), "5").ok());
  ASSERT_TRUE(store.put(wk("k", 25), "25").ok());
  ASSERT_TRUE(store.commit(Offset(7)).ok());
  ASSERT_TRUE(store.put(wk("k", 26), "uncommitted").ok());
}

// Opens window stores (20 ms retention, 10 ms segments) over one RocksDB store in a scratch
// dir, counting the reads that reach it.
class CountedReopens {
 public:
  CountedReopens(const char* name, bool memory_index) : dir_(name), memory_index_(memory_index) {}

  std::unique_ptr<SegmentedStore> open() {
    auto bottom = open_rocksdb_store("w", dir_.path(), memory_);
    EXPECT_TRUE(bottom) << bottom.error().to_string();
    auto counted = std::make_unique<CountingStore>(std::move(*bottom));
    counting = counted.get();
    return std::make_unique<SegmentedStore>(std::move(counted), StoreKind::kWindow, 20ms, 10ms,
                                            memory_index_);
  }

  CountingStore* counting = nullptr;  // below the store open() made last

 private:
  brook::testing::ScratchDir dir_;
  std::shared_ptr<RocksDbMemory> memory_ = std::make_shared<RocksDbMemory>(kSegmentedMemoryBytes);
  bool memory_index_;
};

TEST(SegmentedStore, WithAMemoryIndexReadsNeverReachTheStoreBelowAfterItsContentIsLoaded) {
  CountedReopens reopens("segmented-memory", /*memory_index=*/true);
  write_two_committed_and_one_not(*reopens.open());
  auto store = reopens.open();
  CountingStore* counting = reopens.counting;
  EXPECT_EQ(scan_all(*store), (Entries{{wk("k", 5), "5"}, {wk("k", 25), "25"}}));
  const int loading = counting->reads;  // finding the segments and loading them
  EXPECT_EQ(store->get(wk("k", 25)).value(), "25");
  EXPECT_EQ(store->get(wk("k", 26)).value(), std::nullopt);
  ASSERT_TRUE(store->put(wk("j", 27), "27").ok());
  EXPECT_EQ(scan_all(*store, {.from = wk("j", 0), .to = wk("k", 30)}),
            (Entries{{wk("j", 27), "27"}, {wk("k", 5), "5"}, {wk("k", 25), "25"}}));
  EXPECT_EQ(counting->reads, loading);
  // Expires segments 0 and 1; the index also drops what retention passed of k (25 <= 45 - 20),
  // which its live segment 2 still holds below.
  ASSERT_TRUE(store->put(wk("k", 45), "45").ok());
  EXPECT_EQ(scan_all(*store), (Entries{{wk("j", 27), "27"}, {wk("k", 45), "45"}}));
  EXPECT_EQ(segments_of(*counting), (std::vector<std::int64_t>{2, 2, 4}));
  EXPECT_EQ(counting->reads, loading + 1);  // that look below
}

TEST(SegmentedStore, WithAMemoryIndexOverAStoreInMemoryTheIndexIsTheStore) {
  auto counted = std::make_unique<CountingStore>(std::make_unique<InMemoryStore>("w"));
  CountingStore& below = *counted;
  SegmentedStore store(std::move(counted), StoreKind::kWindow, 20ms, 10ms, true);
  ASSERT_TRUE(store.restore(wk("k", 5), "5").ok());
  ASSERT_TRUE(store.restore(wk("k", 9), "9").ok());
  EXPECT_EQ(store.approximate_count().value(), 2);
  ASSERT_TRUE(store.put(wk("k", 25), "25").ok());  // retention passed 5 (<= 25 - 20), not 9
  ASSERT_TRUE(store.put(wk("j", 26), "26").ok());
  EXPECT_EQ(store.get(wk("k", 25)).value(), "25");
  EXPECT_EQ(scan_all(store),
            (Entries{{wk("j", 26), "26"}, {wk("k", 9), "9"}, {wk("k", 25), "25"}}));
  EXPECT_EQ(store.approximate_count().value(), 3);
  ASSERT_TRUE(store.put(wk("j", 45), "45").ok());  // expires segments 0 and 1: k's 9
  EXPECT_EQ(scan_all(store),
            (Entries{{wk("j", 26), "26"}, {wk("j", 45), "45"}, {wk("k", 25), "25"}}));
  EXPECT_EQ(store.approximate_count().value(), 3);
  EXPECT_EQ(scan_all(below), Entries{});
  EXPECT_EQ(below.range_deletes, 0);
}

TEST(SegmentedStore, ReopenedRocksDbStoreKeepsItsDataOffsetAndDropsOldSegmentsOnTheNextWrite) {
  brook::testing::ScratchDir dir("segmented-reopen");
  auto memory = std::make_shared<RocksDbMemory>(kSegmentedMemoryBytes);
  auto open = [&]() {
    auto bottom = open_rocksdb_store("w", dir.path(), memory);
    EXPECT_TRUE(bottom) << bottom.error().to_string();
    return std::make_unique<SegmentedStore>(std::move(*bottom), StoreKind::kWindow, 20ms, 10ms);
  };
  write_two_committed_and_one_not(*open());
  auto store = open();
  EXPECT_EQ(store->committed_offset(), Offset(7));
  EXPECT_EQ(scan_all(*store), (Entries{{wk("k", 5), "5"}, {wk("k", 25), "25"}}));
  EXPECT_EQ(store->observed_time(), 20);            // the newest segment's start, a lower bound
  ASSERT_TRUE(store->put(wk("k", 45), "45").ok());  // expires segments 0 and 1
  EXPECT_EQ(scan_all(*store), (Entries{{wk("k", 25), "25"}, {wk("k", 45), "45"}}));
  EXPECT_EQ(segments_of(store->inner()), (std::vector<std::int64_t>{2, 4}));
}

TEST(SegmentedStore, ReadsOfKeysNeverWrittenToSegmentsEmptyAtOpenDoNotReachTheStoreBelow) {
  CountedReopens reopens("segmented-fresh", /*memory_index=*/false);
  write_two_committed_and_one_not(
      *reopens.open());  // k@5 (segment 0), k@25 (2); k@26 not committed
  auto store = reopens.open();
  CountingStore* counting = reopens.counting;
  EXPECT_EQ(store->get(wk("j", 21)).value(), std::nullopt);  // finds the segments first
  const int opened = counting->reads;
  // Segment 2 held keys at open: its reads go below.
  EXPECT_EQ(store->get(wk("k", 25)).value(), "25");
  EXPECT_EQ(store->get(wk("k", 26)).value(), std::nullopt);
  EXPECT_EQ(counting->reads, opened + 2);
  // Segment 3 did not: only its written keys are read below.
  EXPECT_EQ(store->get(wk("k", 31)).value(), std::nullopt);
  ASSERT_TRUE(store->put(wk("k", 32), "32").ok());
  ASSERT_TRUE(store->put(wk("j", 33), std::nullopt).ok());
  EXPECT_EQ(store->get(wk("k", 31)).value(), std::nullopt);
  EXPECT_EQ(counting->reads, opened + 2);
  EXPECT_EQ(store->get(wk("k", 32)).value(), "32");
  EXPECT_EQ(store->get(wk("j", 33)).value(), std::nullopt);
  EXPECT_EQ(counting->reads, opened + 4);
}

TEST(SegmentedStore, KeysRestoredIntoAnEmptyStoreAreReadBelow) {
  brook::testing::ScratchDir dir("segmented-fresh-restored");
  auto bottom =
      open_rocksdb_store("w", dir.path(), std::make_shared<RocksDbMemory>(kSegmentedMemoryBytes));
  ASSERT_TRUE(bottom) << bottom.error().to_string();
  auto counted = std::make_unique<CountingStore>(std::move(*bottom));
  CountingStore& below = *counted;
  SegmentedStore store(std::move(counted), StoreKind::kWindow, 20ms, 10ms);
  ASSERT_TRUE(store.restore(wk("r", 44), "44").ok());
  ASSERT_TRUE(store.commit(Offset(1)).ok());
  const int restored = below.reads;
  EXPECT_EQ(store.get(wk("r", 44)).value(), "44");
  EXPECT_EQ(store.get(wk("s", 44)).value(), std::nullopt);
  EXPECT_EQ(below.reads, restored + 1);
}

TEST(SegmentedStore, SegmentIntervalIsHalfTheRetentionAndAtLeastAMinute) {
  EXPECT_EQ(segment_interval_for(24h), 12h);
  EXPECT_EQ(segment_interval_for(10s), 60s);
  EXPECT_EQ(segment_interval_for(0ms), 60s);
}

// delete_range of the bottom stores.
class DeleteRangeTest : public ::testing::TestWithParam<Bottom> {
 protected:
  std::unique_ptr<KeyValueBytesStore> open() {
    return open_bottom(GetParam(), dir_.path(), memory_);
  }
  brook::testing::ScratchDir dir_{"delete-range"};
  std::shared_ptr<RocksDbMemory> memory_ = std::make_shared<RocksDbMemory>(kSegmentedMemoryBytes);
};

TEST_P(DeleteRangeTest, DeletesCommittedAndBufferedKeysAndKeepsLaterWrites) {
  auto store = open();
  for (auto key : {"a", "b", "c", "d"}) ASSERT_TRUE(store->put(key, key).ok());
  ASSERT_TRUE(store->commit(Offset(1)).ok());
  ASSERT_TRUE(store->put("bb", "buffered").ok());
  ASSERT_TRUE(store->delete_range({.from = "b", .to = "c"}).ok());
  EXPECT_EQ(store->get("b").value(), std::nullopt);
  EXPECT_EQ(store->get("bb").value(), std::nullopt);
  EXPECT_EQ(scan_all(*store), (Entries{{"a", "a"}, {"d", "d"}}));
  ASSERT_TRUE(store->put("c", "again").ok());  // after the deletion: kept
  EXPECT_EQ(store->get("c").value(), "again");
  EXPECT_EQ(scan_all(*store), (Entries{{"a", "a"}, {"c", "again"}, {"d", "d"}}));
  ASSERT_TRUE(store->commit(Offset(2)).ok());
  EXPECT_EQ(scan_all(*store), (Entries{{"a", "a"}, {"c", "again"}, {"d", "d"}}));
  ASSERT_TRUE(store->delete_range({.from = "b"}).ok());  // open end
  ASSERT_TRUE(store->commit(Offset(3)).ok());
  EXPECT_EQ(scan_all(*store), (Entries{{"a", "a"}}));
}

TEST_P(DeleteRangeTest, DuringRestorationJoinsTheRestoredWritesInOrder) {
  auto store = open();
  ASSERT_TRUE(store->put("a", "1").ok());
  ASSERT_TRUE(store->commit(Offset(1)).ok());
  ASSERT_TRUE(store->delete_range({.from = "a", .to = "a"}).ok());
  ASSERT_TRUE(store->restore("b", "2").ok());
  ASSERT_TRUE(store->delete_range({.from = "b", .to = "b"}).ok());
  ASSERT_TRUE(store->restore("c", "3").ok());
  ASSERT_TRUE(store->commit(Offset(4)).ok());
  EXPECT_EQ(scan_all(*store), (Entries{{"c", "3"}}));
}

INSTANTIATE_TEST_SUITE_P(Bottoms, DeleteRangeTest, kBottoms, bottom_name);

}  // namespace
}  // namespace brook::internal
