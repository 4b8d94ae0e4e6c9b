#include "state/rocksdb/rocksdb_store.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "scratch_dir.h"
#include "store_entries.h"

namespace brook::internal {
namespace {

using testing::Entries;
using testing::scan_all;

constexpr std::size_t kMemoryBytes = std::size_t{64} << 20;

std::unique_ptr<KeyValueBytesStore> open_store(
    const std::filesystem::path& dir,
    std::shared_ptr<RocksDbMemory> memory = std::make_shared<RocksDbMemory>(kMemoryBytes)) {
  auto store = open_rocksdb_store("s", dir, std::move(memory));
  EXPECT_TRUE(store.has_value()) << store.error().to_string();
  return store ? std::move(*store) : nullptr;
}

void put_all(KeyValueBytesStore& store, const Entries& entries) {
  for (const auto& [key, value] : entries) ASSERT_TRUE(store.put(key, value).ok());
}

TEST(RocksDbStore, PutGetAndDeleteByNullBeforeAndAfterCommit) {
  brook::testing::ScratchDir dir("rocksdb-store");
  auto store = open_store(dir.path());
  ASSERT_TRUE(store->put("a", "1").ok());
  ASSERT_TRUE(store->put("a", "2").ok());
  ASSERT_TRUE(store->put("empty", "").ok());
  EXPECT_EQ(store->get("a").value(), "2");
  EXPECT_EQ(store->get("empty").value(), "");
  EXPECT_EQ(store->get("b").value(), std::nullopt);
  ASSERT_TRUE(store->commit(Offset(1)).ok());
  EXPECT_EQ(store->get("a").value(), "2");  // now from the database

  ASSERT_TRUE(store->put("a", std::nullopt).ok());
  EXPECT_EQ(store->get("a").value(), std::nullopt);  // deleted in the batch only
  EXPECT_TRUE(store->put("never-there", std::nullopt).ok());
  ASSERT_TRUE(store->commit(Offset(2)).ok());
  EXPECT_EQ(store->get("a").value(), std::nullopt);
  EXPECT_EQ(store->get("empty").value(), "");
}

TEST(RocksDbStore, ScansInUnsignedByteOrderWithInclusiveBounds) {
  brook::testing::ScratchDir dir("rocksdb-store");
  auto store = open_store(dir.path());
  const std::string zero(1, '\0');
  const std::string c_zero("c\0", 2);
  put_all(*store, {{"b", "v"}, {"a", "v"}, {"c", "v"}, {"d", "v"}, {"\xff", "v"}, {zero, "v"}});
  ASSERT_TRUE(store->commit(std::nullopt).ok());
  ASSERT_TRUE(store->put(c_zero, "w").ok());  // uncommitted: right after "c"

  auto all = scan_all(*store);
  ASSERT_EQ(all.size(), 7u);
  EXPECT_EQ(all.front().first, zero);
  EXPECT_EQ(all.back().first, "\xff");
  EXPECT_EQ(scan_all(*store, {.from = "b", .to = "c"}), (Entries{{"b", "v"}, {"c", "v"}}));
  EXPECT_EQ(scan_all(*store, {.from = "c", .to = c_zero}), (Entries{{"c", "v"}, {c_zero, "w"}}));
  EXPECT_EQ(scan_all(*store, {.from = "c"}).size(), 4u);
  EXPECT_EQ(scan_all(*store, {.to = zero}), (Entries{{zero, "v"}}));
  EXPECT_EQ(scan_all(*store, {.from = "\xff"}), (Entries{{"\xff", "v"}}));
  EXPECT_EQ(scan_all(*store, {.from = "\xff", .to = "\xff"}), (Entries{{"\xff", "v"}}));
  EXPECT_EQ(scan_all(*store, {.from = "bb", .to = "bz"}), Entries{});
}

TEST(RocksDbStore, ScanMergesUncommittedPutsAndDeletesOverCommittedData) {
  brook::testing::ScratchDir dir("rocksdb-store");
  auto store = open_store(dir.path());
  put_all(*store, {{"a", "1"}, {"b", "1"}, {"c", "1"}, {"d", "1"}, {"f", "1"}});
  ASSERT_TRUE(store->commit(Offset(5)).ok());

  put_all(*store, {{"b", "2"}, {"bb", "2"}, {"e", "2"}, {"g", "2"}});
  ASSERT_TRUE(store->put("c", std::nullopt).ok());
  ASSERT_TRUE(store->put("f", std::nullopt).ok());
  ASSERT_TRUE(store->put("x", std::nullopt).ok());  // never existed

  EXPECT_EQ(scan_all(*store),
            (Entries{{"a", "1"}, {"b", "2"}, {"bb", "2"}, {"d", "1"}, {"e", "2"}, {"g", "2"}}));
  // Bounds cut both the committed entries and the batch's.
  EXPECT_EQ(scan_all(*store, {.from = "b", .to = "e"}),
            (Entries{{"b", "2"}, {"bb", "2"}, {"d", "1"}, {"e", "2"}}));
  EXPECT_EQ(scan_all(*store, {.from = "c", .to = "c"}), Entries{});
  EXPECT_EQ(scan_all(*store, {.from = "ba", .to = "d"}), (Entries{{"bb", "2"}, {"d", "1"}}));
  EXPECT_EQ(scan_all(*store, {.to = "b"}), (Entries{{"a", "1"}, {"b", "2"}}));

  ASSERT_TRUE(store->commit(Offset(6)).ok());
  EXPECT_EQ(scan_all(*store),
            (Entries{{"a", "1"}, {"b", "2"}, {"bb", "2"}, {"d", "1"}, {"e", "2"}, {"g", "2"}}));
}

TEST(RocksDbStore, ScanStopsWhenTheVisitorSaysSo) {
  brook::testing::ScratchDir dir("rocksdb-store");
  auto store = open_store(dir.path());
  put_all(*store, {{"a", "v"}, {"b", "v"}});
  ASSERT_TRUE(store->commit(std::nullopt).ok());
  ASSERT_TRUE(store->put("c", "v").ok());
  int seen = 0;
  ASSERT_TRUE(store->scan({}, [&](auto, auto) { return ++seen < 2; }).ok());
  EXPECT_EQ(seen, 2);
}

TEST(RocksDbStore, NewStoreIsPersistentAndHasNoCommittedOffset) {
  brook::testing::ScratchDir dir("rocksdb-store");
  auto store = open_store(dir.path() / "nested" / "store");
  EXPECT_TRUE(store->persistent());
  EXPECT_EQ(store->name(), "s");
  EXPECT_EQ(store->committed_offset(), std::nullopt);
  EXPECT_TRUE(store->flush().ok());
  EXPECT_EQ(store->approximate_count().value(), 0);
}

TEST(RocksDbStore, CommitPersistsDataAndOffsetAcrossReopen) {
  brook::testing::ScratchDir dir("rocksdb-store");
  const Offset big(0x0102030405060708);
  {
    auto store = open_store(dir.path());
    put_all(*store, {{"a", "1"}, {"b", "2"}, {"c", "3"}});
    ASSERT_TRUE(store->put("b", std::nullopt).ok());
    ASSERT_TRUE(store->commit(big).ok());
    EXPECT_EQ(store->committed_offset(), big);
    EXPECT_EQ(store->approximate_count().value(), 2);  // an estimate, exact for this memtable
  }
  auto store = open_store(dir.path());
  EXPECT_EQ(store->committed_offset(), big);
  EXPECT_EQ(scan_all(*store), (Entries{{"a", "1"}, {"c", "3"}}));
}

TEST(RocksDbStore, UncommittedWritesVanishOnReopen) {
  brook::testing::ScratchDir dir("rocksdb-store");
  {
    auto store = open_store(dir.path());
    put_all(*store, {{"a", "1"}, {"b", "1"}});
    ASSERT_TRUE(store->commit(Offset(3)).ok());
    put_all(*store, {{"a", "2"}, {"c", "2"}});
    ASSERT_TRUE(store->put("b", std::nullopt).ok());
    EXPECT_EQ(store->get("a").value(), "2");
  }  // destroyed without commit: a crash or a dirty close
  auto store = open_store(dir.path());
  EXPECT_EQ(store->committed_offset(), Offset(3));
  EXPECT_EQ(scan_all(*store), (Entries{{"a", "1"}, {"b", "1"}}));
}

TEST(RocksDbStore, CommitWithoutOffsetPersistsDataAndClearsTheOffset) {
  brook::testing::ScratchDir dir("rocksdb-store");
  {
    auto store = open_store(dir.path());
    ASSERT_TRUE(store->put("a", "1").ok());
    ASSERT_TRUE(store->commit(std::nullopt).ok());
    EXPECT_EQ(store->committed_offset(), std::nullopt);
    ASSERT_TRUE(store->commit(Offset(7)).ok());  // the offset alone
    EXPECT_EQ(store->committed_offset(), Offset(7));
    ASSERT_TRUE(store->put("b", "2").ok());
    ASSERT_TRUE(store->commit(std::nullopt).ok());
    EXPECT_EQ(store->committed_offset(), std::nullopt);
  }
  auto store = open_store(dir.path());
  EXPECT_EQ(store->committed_offset(), std::nullopt);
  EXPECT_EQ(scan_all(*store), (Entries{{"a", "1"}, {"b", "2"}}));
}

TEST(RocksDbStore, RestoredWritesLandWithTheirOffsetAtCommitAndAreReadableOnlyThen) {
  brook::testing::ScratchDir dir("rocksdb-store");
  {
    auto store = open_store(dir.path());
    ASSERT_TRUE(store->put("gone", "0").ok());
    ASSERT_TRUE(store->commit(Offset(1)).ok());
    ASSERT_TRUE(store->restore("a", "1").ok());
    ASSERT_TRUE(store->restore("a", "2").ok());
    ASSERT_TRUE(store->restore("gone", std::nullopt).ok());
    EXPECT_EQ(store->get("a").error().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(store->put("b", "1").code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(store->scan({}, [](auto, auto) { return true; }).code(),
              StatusCode::kFailedPrecondition);
    ASSERT_TRUE(store->commit(Offset(4)).ok());
    EXPECT_EQ(store->get("a").value(), "2");
    ASSERT_TRUE(store->restore("c", "3").ok());  // destroyed uncommitted: lost
  }
  auto store = open_store(dir.path());
  EXPECT_EQ(store->committed_offset(), Offset(4));
  EXPECT_EQ(scan_all(*store), (Entries{{"a", "2"}}));
  ASSERT_TRUE(store->put("b", "1").ok());
  EXPECT_EQ(store->restore("c", "3").code(), StatusCode::kFailedPrecondition);
}

TEST(RocksDbStore, OpeningADirectoryAnotherStoreHoldsFails) {
  brook::testing::ScratchDir dir("rocksdb-store");
  auto memory = std::make_shared<RocksDbMemory>(kMemoryBytes);
  auto first = open_store(dir.path(), memory);
  auto second = open_rocksdb_store("counts", dir.path(), memory);
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().code(), StatusCode::kIoError);
  EXPECT_NE(second.error().message().find("'counts'"), std::string::npos);
  EXPECT_NE(second.error().message().find(dir.path().string()), std::string::npos);
  EXPECT_NE(second.error().message().find("lock"), std::string::npos);

  first.reset();
  EXPECT_TRUE(open_rocksdb_store("counts", dir.path(), memory).has_value());
}

// RocksDB's info log goes to Brook's log: no LOG file shares the disk (and its failures) with
// the data.
TEST(RocksDbStore, KeepsNoInfoLogFileInItsDirectory) {
  brook::testing::ScratchDir dir("rocksdb-store");
  auto store = open_store(dir.path());
  ASSERT_TRUE(store->put("k", "v").ok());
  ASSERT_TRUE(store->commit(Offset(1)).ok());
  store.reset();
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_FALSE(entry.path().filename().string().starts_with("LOG")) << entry.path();
  }
}

TEST(RocksDbMemory, StoresShareOneCacheOfTheConfiguredCapacity) {
  brook::testing::ScratchDir dir("rocksdb-store");
  auto memory = std::make_shared<RocksDbMemory>(kMemoryBytes);
  std::vector<std::unique_ptr<KeyValueBytesStore>> stores;
  for (int i = 0; i < 3; ++i) {
    stores.push_back(open_store(dir.path() / std::to_string(i), memory));
    ASSERT_TRUE(stores.back()->put("k", std::string(1000, 'v')).ok());
    ASSERT_TRUE(stores.back()->commit(Offset(i)).ok());
  }
  EXPECT_EQ(memory->cache_capacity(), kMemoryBytes);
  EXPECT_GT(memory->cache_usage(), 0u);  // the memtables are charged to the cache
  EXPECT_LE(memory->cache_usage(), kMemoryBytes);
}

}  // namespace
}  // namespace brook::internal
