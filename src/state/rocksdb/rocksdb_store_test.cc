#include "state/rocksdb/rocksdb_store.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
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

std::unique_ptr<KeyValueBytesStore> open_store(const std::filesystem::path& dir,
                                               RocksDbOptions options) {
  auto store = open_rocksdb_store("s", dir, std::make_shared<RocksDbMemory>(kMemoryBytes), options);
  EXPECT_TRUE(store.has_value()) << store.error().to_string();
  return store ? std::move(*store) : nullptr;
}

void put_all(KeyValueBytesStore& store, const Entries& entries) {
  for (const auto& [key, value] : entries) ASSERT_TRUE(store.put(key, value).ok());
}

// What a crash of the process would leave of the open store in `from`: a copy of its
// directory, taken while no flush or compaction runs (none is due in these tests: their writes
// fill no memtable, and no level holds enough files to compact).
void copy_crash_image(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
}

// The changelog offset a crash now would leave of the open store in `dir`.
std::optional<Offset> offset_after_a_crash(const std::filesystem::path& dir) {
  brook::testing::ScratchDir image("rocksdb-crash-image");
  copy_crash_image(dir, image.path());
  return open_store(image.path())->committed_offset();
}

// Commit i of the crash tests writes "k<i % 7>" = "v<i>" with offset i + 1.
Status commit_numbered(KeyValueBytesStore& store, int i) {
  if (auto s = store.put("k" + std::to_string(i % 7), "v" + std::to_string(i)); !s.ok()) return s;
  return store.commit(Offset(i + 1));
}

// The entries after commits 0 .. n - 1 of commit_numbered().
Entries state_after(int n) {
  std::map<std::string, std::string> state;
  for (int i = 0; i < n; ++i) state["k" + std::to_string(i % 7)] = "v" + std::to_string(i);
  return Entries(state.begin(), state.end());
}

// The bytes of the write-ahead log files in `dir`.
std::uintmax_t wal_bytes(const std::filesystem::path& dir) {
  std::uintmax_t bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".log") bytes += entry.file_size();
  }
  return bytes;
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

// Its writes stay unsorted until a commit or a read, and its memtable is an unsorted vector:
// reads still see every write in order and in key order, before and after commits, with reads
// between the writes or without, and after a reopen.
TEST(RocksDbStore, AWrittenOnlyStoreStillReadsWhatItHolds) {
  brook::testing::ScratchDir dir("rocksdb-store");
  const RocksDbOptions written_only{.written_only = true};
  {
    auto store = open_store(dir.path(), written_only);
    put_all(*store, {{"d", "1"}, {"b", "1"}, {"a", "1"}, {"c", "1"}, {"b", "2"}});
    ASSERT_TRUE(store->commit(Offset(1)).ok());  // nothing read: written as they came
    EXPECT_EQ(store->get("b").value(), "2");
    put_all(*store, {{"e", "2"}, {"a", "2"}});
    EXPECT_EQ(store->get("a").value(), "2");  // sorts the writes so far
    ASSERT_TRUE(store->put("c", std::nullopt).ok());
    ASSERT_TRUE(store->delete_range({.from = "a", .to = "a"}).ok());
    ASSERT_TRUE(store->put("f", "3").ok());
    EXPECT_EQ(scan_all(*store), (Entries{{"b", "2"}, {"d", "1"}, {"e", "2"}, {"f", "3"}}));
    ASSERT_TRUE(store->put("g", "3").ok());
    ASSERT_TRUE(store->commit(Offset(2)).ok());  // the sorted writes, then the rest
    ASSERT_TRUE(store->delete_range({.from = "f", .to = "f"}).ok());
    ASSERT_TRUE(store->commit(Offset(3)).ok());
    EXPECT_EQ(scan_all(*store), (Entries{{"b", "2"}, {"d", "1"}, {"e", "2"}, {"g", "3"}}));
    EXPECT_EQ(scan_all(*store, {.from = "c", .to = "d"}), (Entries{{"d", "1"}}));
  }
  auto store = open_store(dir.path(), written_only);
  EXPECT_EQ(store->committed_offset(), Offset(3));
  EXPECT_EQ(scan_all(*store), (Entries{{"b", "2"}, {"d", "1"}, {"e", "2"}, {"g", "3"}}));
}

TEST(RocksDbStore, ARangeDeletionHidesCommittedKeysUntilTheyAreWrittenAgain) {
  brook::testing::ScratchDir dir("rocksdb-store");
  auto store = open_store(dir.path());
  put_all(*store, {{"a", "1"}, {"b", "1"}, {"c", "1"}, {"d", "1"}});
  ASSERT_TRUE(store->commit(Offset(4)).ok());
  put_all(*store, {{"bb", "2"}});
  ASSERT_TRUE(store->delete_range({.from = "b", .to = "c"}).ok());  // b, bb and c
  ASSERT_TRUE(store->put("c", "3").ok());                           // after the deletion
  EXPECT_EQ(store->get("b").value(), std::nullopt);
  EXPECT_EQ(store->get("bb").value(), std::nullopt);
  EXPECT_EQ(store->get("c").value(), "3");
  EXPECT_EQ(scan_all(*store), (Entries{{"a", "1"}, {"c", "3"}, {"d", "1"}}));
  EXPECT_EQ(scan_all(*store, {.from = "d", .to = "a"}), Entries{});
  ASSERT_TRUE(store->delete_range({.from = "d"}).ok());  // an open end
  EXPECT_EQ(scan_all(*store), (Entries{{"a", "1"}, {"c", "3"}}));
  ASSERT_TRUE(store->commit(Offset(5)).ok());
  EXPECT_EQ(scan_all(*store), (Entries{{"a", "1"}, {"c", "3"}}));
}

// Its memtable inserts of keys of 4 bytes or more start from the previous one (RocksDB's insert
// hints): commits of writes in and out of key order, overwrites and deletes read back as
// written, also after a reopen; a range deletion is refused if it starts at a hinted key, and
// works from a shorter one.
TEST(RocksDbStore, AStoreWithInsertHintsReadsEveryCommitBackAndDeletesRangesOnlyBelowThem) {
  brook::testing::ScratchDir dir("rocksdb-store");
  const RocksDbOptions point_writes{.insert_hints_from_key_bytes = 4};
  std::map<std::string, std::string> expected;
  {
    auto store = open_store(dir.path(), point_writes);
    for (int commit = 0; commit < 20; ++commit) {
      for (int i = 0; i < 500; ++i) {
        // Each commit rewrites a stride of the keys, deleting every seventh.
        const int n = (i * (commit + 3) + commit) % 1000;
        const std::string key = fmt::format("key-{:04}", n);
        if (n % 7 == 0) {
          ASSERT_TRUE(store->put(key, std::nullopt).ok());
          expected.erase(key);
        } else {
          const std::string value = fmt::format("{}-{}", commit, i);
          ASSERT_TRUE(store->put(key, value).ok());
          expected[key] = value;
        }
      }
      ASSERT_TRUE(store->commit(Offset(commit + 1)).ok());
    }
    const auto refused = store->delete_range({.from = "key-", .to = "z"});
    EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(refused.message().find("store s"), std::string::npos) << refused.message();
    // Keys from key-0500 on, between writes of hinted keys.
    ASSERT_TRUE(store->put("key-0001", "x").ok());
    ASSERT_TRUE(store->delete_range({.from = "key", .to = "key-0499"}).ok());
    ASSERT_TRUE(store->put("key-0002", "y").ok());
    ASSERT_TRUE(store->commit(Offset(21)).ok());
    for (auto it = expected.begin(); it != expected.end();) {
      it = it->first <= "key-0499" ? expected.erase(it) : std::next(it);
    }
    expected["key-0002"] = "y";
  }
  auto store = open_store(dir.path(), point_writes);
  EXPECT_EQ(store->committed_offset(), Offset(21));
  EXPECT_EQ(scan_all(*store), Entries(expected.begin(), expected.end()));
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
    ASSERT_TRUE(store->commit(Offset(1)).ok());
    ASSERT_TRUE(store->put("b", std::nullopt).ok());
    ASSERT_TRUE(store->commit(big).ok());
    EXPECT_EQ(store->committed_offset(), big);
    // An estimate (puts less deletions), exact for this memtable; a key put and deleted
    // between two commits is written as its deletion alone, which the estimate subtracts.
    EXPECT_EQ(store->approximate_count().value(), 2);
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

// Commits with a changelog offset write no write-ahead log; commits without one do.
TEST(RocksDbStore, OnlyCommitsWithoutAChangelogOffsetWriteTheLog) {
  brook::testing::ScratchDir dir("rocksdb-store");
  auto store = open_store(dir.path());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(commit_numbered(*store, i).ok());
  EXPECT_EQ(wal_bytes(dir.path()), 0u);
  ASSERT_TRUE(store->put("no-changelog", "v").ok());
  ASSERT_TRUE(store->commit(std::nullopt).ok());
  EXPECT_GT(wal_bytes(dir.path()), 0u);
}

// Without the log, a crash loses the commits after the last flush of the memtables (here the
// one at a close): the store comes back exactly as it was at that commit, with its offset, and
// restoration replays the changelog from there.
TEST(RocksDbStore, ACrashLeavesTheStateOfTheLastFlushedCommit) {
  brook::testing::ScratchDir dir("rocksdb-store");
  int i = 0;
  {
    auto store = open_store(dir.path());
    while (i < 50) ASSERT_TRUE(commit_numbered(*store, i++).ok());
  }
  auto store = open_store(dir.path());
  while (i < 80) ASSERT_TRUE(commit_numbered(*store, i++).ok());  // in the memtables only
  EXPECT_EQ(store->committed_offset(), Offset(80));
  EXPECT_EQ(scan_all(*store), state_after(80));

  brook::testing::ScratchDir image("rocksdb-crash-image");
  copy_crash_image(dir.path(), image.path());
  auto reopened = open_store(image.path());
  EXPECT_EQ(reopened->committed_offset(), Offset(50));
  EXPECT_EQ(scan_all(*reopened), state_after(50));
}

// A store without a changelog has nothing to restore from: its commits go through the log and
// survive a crash, also right after commits with an offset (those are flushed first, so that
// the log is never replayed over a state that lacks them).
TEST(RocksDbStore, CommitsWithoutAChangelogOffsetSurviveACrash) {
  brook::testing::ScratchDir dir("rocksdb-store");
  auto store = open_store(dir.path());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(commit_numbered(*store, i).ok());
  ASSERT_TRUE(store->put("unlogged-store", "v").ok());
  ASSERT_TRUE(store->commit(std::nullopt).ok());

  brook::testing::ScratchDir image("rocksdb-crash-image");
  copy_crash_image(dir.path(), image.path());
  auto reopened = open_store(image.path());
  EXPECT_EQ(reopened->committed_offset(), std::nullopt);
  auto expected = state_after(10);
  expected.emplace_back("unlogged-store", "v");
  EXPECT_EQ(scan_all(*reopened), expected);
}

// A large restored batch becomes SST files, ingested together with its offset: deletions and
// range deletions reach the keys the store held before; writes after a range deletion stay.
TEST(RocksDbStore, LargeRestoredBatchesAreIngestedWithTheirOffset) {
  brook::testing::ScratchDir dir("rocksdb-store");
  const Entries restored{{"a", "new"}, {"c", "new"}, {"r3", "after"}};
  {
    auto store = open_store(dir.path(), {.min_ingest_bytes = 0});  // every load ingests
    put_all(*store, {{"a", "old"}, {"b", "old"}, {"r1", "old"}, {"r2", "old"}, {"z", "old"}});
    ASSERT_TRUE(store->commit(Offset(5)).ok());
    ASSERT_TRUE(store->restore("a", "new").ok());
    ASSERT_TRUE(store->restore("b", std::nullopt).ok());
    ASSERT_TRUE(store->restore("r1", "before").ok());
    ASSERT_TRUE(store->delete_range({.from = "r", .to = "r9"}).ok());
    ASSERT_TRUE(store->restore("r3", "after").ok());
    ASSERT_TRUE(store->restore("c", "new").ok());
    ASSERT_TRUE(store->restore("z", std::nullopt).ok());
    ASSERT_TRUE(store->commit(Offset(12)).ok());
    ASSERT_TRUE(store->flush().ok());  // the end of a restoration: loads
    EXPECT_EQ(offset_after_a_crash(dir.path()), Offset(12));
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "restore-tmp"));
    EXPECT_EQ(scan_all(*store), restored);
  }
  auto store = open_store(dir.path());
  EXPECT_EQ(store->committed_offset(), Offset(12));
  EXPECT_EQ(scan_all(*store), restored);
}

// Restoring into an empty store (the bulk load of a new instance): the latest write of each key
// wins, deleted keys stay absent, whichever way the buffer is loaded.
TEST(RocksDbStore, RestoresIntoAnEmptyStoreByBatchOrIngestion) {
  for (const std::size_t min_ingest_bytes : {std::size_t{0}, std::size_t{1} << 30}) {
    brook::testing::ScratchDir dir("rocksdb-store");
    auto store = open_store(dir.path(), {.min_ingest_bytes = min_ingest_bytes});
    std::map<std::string, std::string> expected;
    for (int i = 0; i < 5000; ++i) {
      const std::string key = "key-" + std::to_string(i * 7919 % 1000);
      if (i % 5 == 4) {
        ASSERT_TRUE(store->restore(key, std::nullopt).ok());
        expected.erase(key);
      } else {
        ASSERT_TRUE(store->restore(key, std::to_string(i)).ok());
        expected[key] = std::to_string(i);
      }
      if (i % 1000 == 999) {
        ASSERT_TRUE(store->commit(Offset(i + 1)).ok());
      }
    }
    ASSERT_TRUE(store->flush().ok());
    EXPECT_EQ(store->committed_offset(), Offset(5000));
    EXPECT_EQ(scan_all(*store), Entries(expected.begin(), expected.end()))
        << "min_ingest_bytes " << min_ingest_bytes;
  }
}

// Committed restored writes are loaded at a close (as RocksDB flushes its memtables then); the
// restoration of the next start resumes after them.
TEST(RocksDbStore, ACloseLoadsCommittedRestoredWrites) {
  brook::testing::ScratchDir dir("rocksdb-store");
  {
    auto store = open_store(dir.path());
    ASSERT_TRUE(store->restore("a", "1").ok());
    ASSERT_TRUE(store->commit(Offset(1)).ok());
  }
  auto store = open_store(dir.path());
  EXPECT_EQ(store->committed_offset(), Offset(1));
  EXPECT_EQ(scan_all(*store), (Entries{{"a", "1"}}));
}

// The restore buffer is charged to the memory the stores share: once what the cache cannot
// evict fills it, a commit loads the buffer, which makes it durable before restoration ends.
TEST(RocksDbStore, RestoredWritesAreLoadedWhenTheSharedMemoryIsFull) {
  brook::testing::ScratchDir dir("rocksdb-store");
  auto memory = std::make_shared<RocksDbMemory>(std::size_t{8} << 20);
  auto store = std::move(*open_rocksdb_store("s", dir.path(), memory));
  const std::string value(1000, 'v');
  int commits = 0;
  while (!offset_after_a_crash(dir.path()) && commits < 100) {
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE(store->restore(std::to_string(commits * 1000 + i), value).ok());
    }
    ASSERT_TRUE(store->commit(Offset(++commits)).ok());
  }
  EXPECT_EQ(offset_after_a_crash(dir.path()), Offset(commits));
  EXPECT_GT(commits, 1);
  EXPECT_LT(commits, 100);
  EXPECT_EQ(store->get("0").value(), value);
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
