#include "state/caching_store.h"

#include <gtest/gtest.h>

#include <map>
#include <ostream>
#include <random>
#include <utility>
#include <vector>

#include "state/in_memory_store.h"
#include "store_entries.h"

namespace brook::internal {
namespace {

constexpr std::size_t kLarge = std::size_t{1} << 20;

struct Change {
  std::string key;
  std::optional<std::string> new_value;
  std::optional<std::string> old_value;
  friend bool operator==(const Change&, const Change&) = default;
  friend void PrintTo(const Change& c, std::ostream* os) {
    *os << "{" << c.key << ": " << c.new_value.value_or("<absent>") << " <- "
        << c.old_value.value_or("<absent>") << "}";
  }
};
using Changes = std::vector<Change>;
using testing::Entries;
using testing::scan_all;

CacheFlushListener recorder(Changes& changes) {
  return [&changes](std::string_view key, std::optional<std::string_view> now,
                    std::optional<std::string_view> before, const Headers&) {
    changes.push_back({std::string(key), now ? std::optional<std::string>(*now) : std::nullopt,
                       before ? std::optional<std::string>(*before) : std::nullopt});
  };
}

std::unique_ptr<CachingStore> make_store(std::shared_ptr<RecordCache> cache,
                                         Changes* changes = nullptr) {
  auto store =
      std::make_unique<CachingStore>(std::make_unique<InMemoryStore>("counts"), std::move(cache));
  if (changes != nullptr) store->set_flush_listener(recorder(*changes));
  return store;
}

std::shared_ptr<RecordCache> budget(std::size_t max_bytes) {
  return std::make_shared<RecordCache>(max_bytes);
}

// What `n` dirty entries with one-byte keys ('a', 'b', ...) and `value` cost a store.
std::size_t room_for(int n, std::string_view value = "1") {
  auto store = make_store(budget(kLarge));
  for (int i = 0; i < n; ++i) {
    EXPECT_TRUE(store->put(std::string(1, static_cast<char>('a' + i)), value).ok());
  }
  return store->charged_bytes();
}

// Forwards to an InMemoryStore the test keeps (so it outlives the cache above it); puts
// fail while *fail_puts is set; *reads counts the gets, if given.
class SharedStore final : public KeyValueBytesStore {
 public:
  SharedStore(std::shared_ptr<InMemoryStore> data, std::shared_ptr<bool> fail_puts,
              std::shared_ptr<int> reads = std::make_shared<int>(0))
      : data_(std::move(data)), fail_puts_(std::move(fail_puts)), reads_(std::move(reads)) {}

  const std::string& name() const override { return data_->name(); }
  Result<std::optional<std::string>> get(std::string_view key) override {
    ++*reads_;
    return data_->get(key);
  }
  Status put(std::string_view key, std::optional<std::string_view> value) override {
    if (*fail_puts_) return Status::io_error("disk full");
    return data_->put(key, value);
  }
  Status scan(const KeyRange& range, const ScanVisitor& visit) override {
    return data_->scan(range, visit);
  }
  Result<std::int64_t> approximate_count() override { return data_->approximate_count(); }
  Status flush() override { return {}; }
  Status commit(std::optional<Offset>) override { return {}; }
  std::optional<Offset> committed_offset() const override { return std::nullopt; }
  bool persistent() const override { return false; }

 private:
  std::shared_ptr<InMemoryStore> data_;
  std::shared_ptr<bool> fail_puts_;
  std::shared_ptr<int> reads_;
};

TEST(CachingStore, CollapsesUpdatesPerKeyUntilFlush) {
  Changes changes;
  auto store = make_store(budget(kLarge), &changes);
  ASSERT_TRUE(store->inner().put("k", "0").ok());
  for (auto value : {"1", "2", "3"}) ASSERT_TRUE(store->put("k", value).ok());
  EXPECT_EQ(store->inner().get("k").value(), "0");
  EXPECT_TRUE(changes.empty());
  ASSERT_TRUE(store->flush().ok());
  EXPECT_EQ(changes, (Changes{{"k", "3", "0"}}));
  EXPECT_EQ(store->inner().get("k").value(), "3");
}

TEST(CachingStore, OldValueIsTheValueBelowBeforeTheFirstCollapsedUpdate) {
  Changes changes;
  auto store = make_store(budget(kLarge), &changes);
  ASSERT_TRUE(store->put("k", "1").ok());
  ASSERT_TRUE(store->flush().ok());
  ASSERT_TRUE(store->put("k", "2").ok());
  ASSERT_TRUE(store->put("k", "3").ok());
  ASSERT_TRUE(store->flush().ok());
  EXPECT_EQ(changes, (Changes{{"k", "1", std::nullopt}, {"k", "3", "1"}}));
}

TEST(CachingStore, WriteDownOfAKeyCachedCleanBeforeItsUpdateReadsNothingBelow) {
  Changes changes;
  auto below = std::make_shared<InMemoryStore>("counts");
  ASSERT_TRUE(below->put("k", "0").ok());
  auto reads = std::make_shared<int>(0);
  CachingStore store(std::make_unique<SharedStore>(below, std::make_shared<bool>(false), reads),
                     budget(kLarge));
  store.set_flush_listener(recorder(changes));
  EXPECT_EQ(store.get("k").value(), "0");
  ASSERT_TRUE(store.put("k", "1").ok());
  ASSERT_TRUE(store.put("k", "2").ok());
  ASSERT_TRUE(store.flush().ok());
  ASSERT_TRUE(store.put("k", "3").ok());
  ASSERT_TRUE(store.flush().ok());
  EXPECT_EQ(changes, (Changes{{"k", "2", "0"}, {"k", "3", "2"}}));
  EXPECT_EQ(*reads, 1) << "only get() read below";
}

TEST(CachingStore, AnUpdatedEntryIsChargedForTheOldValueItKeepsUntilWrittenDown) {
  auto shared = budget(kLarge);
  auto store = make_store(shared);
  const std::string old_value(200, 'o');
  ASSERT_TRUE(store->inner().put("k", old_value).ok());
  EXPECT_EQ(store->get("k").value(), old_value);
  const std::size_t clean = shared->used_bytes();
  EXPECT_EQ(clean, store->charged_bytes());
  ASSERT_TRUE(store->put("k", std::string(200, 'n')).ok());
  EXPECT_GT(shared->used_bytes(), clean + old_value.size() / 2);
  ASSERT_TRUE(store->flush().ok());
  EXPECT_EQ(shared->used_bytes(), clean);
}

TEST(CachingStore, ChargesAtMost48BytesPerEntryBeyondItsKeyAndValue) {
  for (bool dirty : {false, true}) {
    auto shared = budget(std::size_t{1} << 30);
    auto store = make_store(shared);
    constexpr int kEntries = 100'000;
    std::size_t data = 0;
    for (int i = 0; i < kEntries; ++i) {
      const std::string key = "key-" + std::to_string(i);
      const std::string value(16, 'v');  // a count: timestamp and value
      data += key.size() + value.size();
      if (dirty) {
        ASSERT_TRUE(store->put(key, value).ok());
      } else {
        ASSERT_TRUE(store->inner().put(key, value).ok());
        ASSERT_TRUE(store->get(key).has_value());
      }
    }
    ASSERT_EQ(store->entries(), static_cast<std::size_t>(kEntries));
    EXPECT_EQ(shared->used_bytes(), store->charged_bytes());
    // A dirty entry also keeps the value below it (here none: absent).
    EXPECT_LE(shared->used_bytes(), data + 48 * kEntries) << (dirty ? "dirty" : "clean");
  }
}

TEST(CachingStore, PutThenDeleteOfAKeyAbsentBelowTellsNothing) {
  Changes changes;
  auto store = make_store(budget(kLarge), &changes);
  ASSERT_TRUE(store->put("k", "1").ok());
  ASSERT_TRUE(store->put("k", std::nullopt).ok());
  ASSERT_TRUE(store->flush().ok());
  EXPECT_TRUE(changes.empty());
  EXPECT_EQ(store->inner().approximate_count().value(), 0);
}

TEST(CachingStore, DeleteOfAnExistingKeyTellsAbsentNewAndTheOldValue) {
  Changes changes;
  auto store = make_store(budget(kLarge), &changes);
  ASSERT_TRUE(store->inner().put("k", "1").ok());
  ASSERT_TRUE(store->put("k", std::nullopt).ok());
  ASSERT_TRUE(store->flush().ok());
  EXPECT_EQ(changes, (Changes{{"k", std::nullopt, "1"}}));
  EXPECT_EQ(store->inner().get("k").value(), std::nullopt);
  EXPECT_EQ(store->get("k").value(), std::nullopt);
  EXPECT_EQ(store->approximate_count().value(), 0);
}

TEST(CachingStore, GetSeesUnflushedWritesAndTombstones) {
  auto store = make_store(budget(kLarge));
  ASSERT_TRUE(store->inner().put("a", "below").ok());
  ASSERT_TRUE(store->inner().put("b", "below").ok());
  ASSERT_TRUE(store->put("a", "cached").ok());
  ASSERT_TRUE(store->put("b", std::nullopt).ok());
  ASSERT_TRUE(store->put("c", "new").ok());
  EXPECT_EQ(store->get("a").value(), "cached");
  EXPECT_EQ(store->get("b").value(), std::nullopt);
  EXPECT_EQ(store->get("c").value(), "new");
  EXPECT_EQ(store->get("d").value(), std::nullopt);
  EXPECT_EQ(store->inner().get("a").value(), "below");
  EXPECT_EQ(store->inner().get("b").value(), "below");
  EXPECT_EQ(store->inner().get("c").value(), std::nullopt);
}

TEST(CachingStore, GetCachesWhatItFindsBelowButNotAbsentKeys) {
  auto shared = budget(kLarge);
  auto store = make_store(shared);
  ASSERT_TRUE(store->inner().put("hot", "1").ok());
  EXPECT_EQ(store->get("missing").value(), std::nullopt);
  EXPECT_EQ(store->entries(), 0u);
  EXPECT_EQ(shared->used_bytes(), 0u);
  EXPECT_EQ(store->get("hot").value(), "1");
  EXPECT_EQ(store->entries(), 1u);
  EXPECT_GT(shared->used_bytes(), 0u);
  // Changed behind the cache's back: the cached copy answers.
  ASSERT_TRUE(store->inner().put("hot", "2").ok());
  EXPECT_EQ(store->get("hot").value(), "1");
}

TEST(CachingStore, AKeyReadAbsentJustBeforeItsPutIsNotReadAgainToWriteItDown) {
  Changes changes;
  auto below = std::make_shared<InMemoryStore>("counts");
  auto reads = std::make_shared<int>(0);
  CachingStore store(std::make_unique<SharedStore>(below, std::make_shared<bool>(false), reads),
                     budget(kLarge));
  store.set_flush_listener(recorder(changes));
  EXPECT_EQ(store.get("new").value(), std::nullopt);
  ASSERT_TRUE(store.put("new", "1").ok());
  ASSERT_TRUE(store.put("other", "1").ok());  // not read first: its write-down reads below
  ASSERT_TRUE(store.flush().ok());
  EXPECT_EQ(*reads, 2);
  std::sort(changes.begin(), changes.end(), [](auto& a, auto& b) { return a.key < b.key; });
  EXPECT_EQ(changes, (Changes{{"new", "1", std::nullopt}, {"other", "1", std::nullopt}}));
}

TEST(CachingStore, AQueryReadSeesTheCacheWithoutChangingIt) {
  auto shared = budget(kLarge);
  auto store = make_store(shared);
  ASSERT_TRUE(store->inner().put("below", "1").ok());
  ASSERT_TRUE(store->put("cached", "2").ok());
  const std::size_t used = shared->used_bytes();
  EXPECT_EQ(store->read("below").value(), "1");
  EXPECT_EQ(store->read("cached").value(), "2");
  EXPECT_EQ(store->read("missing").value(), std::nullopt);
  EXPECT_EQ(store->entries(), 1u);
  EXPECT_EQ(shared->used_bytes(), used);
}

TEST(CachingStore, TheListenerGetsTheHeadersOfTheLastUpdate) {
  std::vector<Headers> seen;
  auto store = make_store(budget(kLarge));
  store->set_flush_listener(
      [&](auto, auto, auto, const Headers& headers) { seen.push_back(headers); });
  const Headers first{{"trace", "1"}};
  const Headers last{{"trace", "2"}, {"empty", std::nullopt}};
  store->set_record_headers(&first);
  ASSERT_TRUE(store->put("k", "1").ok());
  store->set_record_headers(&last);
  ASSERT_TRUE(store->put("k", "2").ok());
  store->set_record_headers(nullptr);
  ASSERT_TRUE(store->put("plain", "1").ok());
  ASSERT_TRUE(store->flush().ok());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_TRUE(std::find(seen.begin(), seen.end(), last) != seen.end());
  EXPECT_TRUE(std::find(seen.begin(), seen.end(), Headers()) != seen.end());
}

TEST(CachingStore, ScanMergesTheCacheOverTheStoreBelowWithInclusiveBounds) {
  auto store = make_store(budget(kLarge));
  for (auto key : {"b", "c", "d", "e"}) ASSERT_TRUE(store->inner().put(key, "below").ok());
  ASSERT_TRUE(store->put("a", "cached").ok());
  ASSERT_TRUE(store->put("c", "cached").ok());
  ASSERT_TRUE(store->put("d", std::nullopt).ok());
  ASSERT_TRUE(store->put("f", "cached").ok());
  ASSERT_TRUE(store->put("g", std::nullopt).ok());
  EXPECT_EQ(
      scan_all(*store),
      (Entries{{"a", "cached"}, {"b", "below"}, {"c", "cached"}, {"e", "below"}, {"f", "cached"}}));
  EXPECT_EQ(scan_all(*store, {.from = "b", .to = "d"}), (Entries{{"b", "below"}, {"c", "cached"}}));
  EXPECT_EQ(scan_all(*store, {.from = "c", .to = "f"}),
            (Entries{{"c", "cached"}, {"e", "below"}, {"f", "cached"}}));
  EXPECT_EQ(scan_all(*store, {.to = "a"}), (Entries{{"a", "cached"}}));
  EXPECT_EQ(scan_all(*store, {.from = "d", .to = "d"}), Entries{});
  EXPECT_EQ(scan_all(*store, {.from = "f", .to = "b"}), Entries{});
}

TEST(CachingStore, ScanStopsWhenTheVisitorSaysSo) {
  auto store = make_store(budget(kLarge));
  ASSERT_TRUE(store->inner().put("b", "below").ok());
  ASSERT_TRUE(store->put("a", "cached").ok());
  ASSERT_TRUE(store->put("c", "cached").ok());
  ASSERT_TRUE(store->put("d", "cached").ok());
  for (int stop_after : {1, 2, 3}) {
    int seen = 0;
    ASSERT_TRUE(store->scan({}, [&](auto, auto) { return ++seen < stop_after; }).ok());
    EXPECT_EQ(seen, stop_after);
  }
}

TEST(CachingStore, FlushWritesDirtyKeysInKeyOrderAndKeepsThemCached) {
  Changes changes;
  auto shared = budget(kLarge);
  auto store = make_store(shared, &changes);
  for (auto key : {"c", "a", "b"}) ASSERT_TRUE(store->put(key, "1").ok());
  ASSERT_TRUE(store->flush().ok());
  EXPECT_EQ(
      changes,
      (Changes{{"a", "1", std::nullopt}, {"b", "1", std::nullopt}, {"c", "1", std::nullopt}}));
  EXPECT_EQ(store->entries(), 3u);
  ASSERT_TRUE(store->flush().ok());  // nothing dirty left
  EXPECT_EQ(changes.size(), 3u);
}

// Keys ordered by their unsigned bytes, also where their first 24 bytes (compared as numbers
// without reading the entries) are equal: longer keys, zero bytes, one key a prefix of another.
TEST(CachingStore, FlushOrdersKeysByTheirUnsignedBytesBeyondTheirFirst24) {
  const std::string shared(24, 'k');
  const std::vector<std::string> ordered = {"",
                                            std::string(1, '\0'),
                                            "a",
                                            std::string("a\0", 2),
                                            "a\x7f",
                                            "a\x80",
                                            "a\xff",
                                            shared,
                                            shared + std::string(1, '\0'),
                                            shared + "a",
                                            shared + "a\xff",
                                            shared + "b",
                                            "\xff"};
  Changes changes;
  auto store = make_store(budget(kLarge), &changes);
  for (auto it = ordered.rbegin(); it != ordered.rend(); ++it)
    ASSERT_TRUE(store->put(*it, "1").ok());
  ASSERT_TRUE(store->flush().ok());
  std::vector<std::string> flushed;
  for (const auto& change : changes) flushed.push_back(change.key);
  EXPECT_EQ(flushed, ordered);
}

// The listener's own writes make room by evicting the flushing store's clean entries, which
// moves the others in its table: every dirty entry is still written down once, with its value.
TEST(CachingStore, AFlushWhoseListenerEvictsFromTheSameStoreWritesEveryEntryDown) {
  const std::string value(100, 'v');
  auto shared = budget(room_for(22, value));
  auto first = make_store(shared);
  auto second = make_store(shared);
  Changes changes;
  int written = 0;
  first->set_flush_listener([&](std::string_view key, std::optional<std::string_view> now,
                                std::optional<std::string_view> before, const Headers& headers) {
    recorder(changes)(key, now, before, headers);
    EXPECT_TRUE(second->put("s" + std::to_string(written++), value).ok());
  });
  for (int i = 0; i < 12; ++i) {
    const std::string key = "c" + std::to_string(i);
    ASSERT_TRUE(first->inner().put(key, value).ok());
    ASSERT_EQ(first->get(key).value(), value);  // cached clean
  }
  Changes expected;
  for (int i = 0; i < 8; ++i) {
    const std::string key = "d" + std::to_string(i);
    ASSERT_TRUE(first->put(key, value + std::to_string(i)).ok());
    expected.push_back({key, value + std::to_string(i), std::nullopt});
  }
  const std::size_t before_flush = first->entries();
  ASSERT_TRUE(first->flush().ok());
  EXPECT_LT(first->entries(), before_flush) << "no clean entry was evicted during the flush";
  EXPECT_EQ(changes, expected);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(first->inner().get("d" + std::to_string(i)).value(), value + std::to_string(i));
  }
}

TEST(CachingStore, FlushDropsWrittenTombstonesFromTheCache) {
  auto store = make_store(budget(kLarge));
  ASSERT_TRUE(store->inner().put("k", "1").ok());
  ASSERT_TRUE(store->put("k", std::nullopt).ok());
  EXPECT_EQ(store->entries(), 1u);
  ASSERT_TRUE(store->flush().ok());
  EXPECT_EQ(store->entries(), 0u);
  EXPECT_EQ(store->get("k").value(), std::nullopt);
}

TEST(CachingStore, EvictionWritesDirtyEntriesDownAndSparesOnesUsedSinceTheSweepPassed) {
  Changes changes;
  auto below = std::make_shared<InMemoryStore>("counts");
  auto reads = std::make_shared<int>(0);
  auto shared = budget(room_for(16));
  CachingStore store(std::make_unique<SharedStore>(below, std::make_shared<bool>(false), reads),
                     shared);
  store.set_flush_listener(recorder(changes));
  ASSERT_TRUE(below->put("hot", "1").ok());
  ASSERT_EQ(store.get("hot").value(), "1");
  int hot_misses = 0;
  for (int i = 0; i < 200; ++i) {
    const int before = *reads;
    ASSERT_EQ(store.get("hot").value(), "1");  // used before every sweep can pass it twice
    hot_misses += *reads - before;
    ASSERT_TRUE(store.put("k" + std::to_string(i), "1").ok());
    ASSERT_LE(shared->used_bytes(), shared->max_bytes());
  }
  EXPECT_EQ(hot_misses, 0) << "the hot entry was evicted";
  EXPECT_GT(changes.size(), 150u);  // the others were written down to make room
  for (const auto& change : changes) EXPECT_EQ(below->get(change.key).value(), "1");
  ASSERT_TRUE(store.flush().ok());
  EXPECT_EQ(changes.size(), 200u);
}

TEST(CachingStore, EvictingACleanEntryWritesNothing) {
  Changes changes;
  auto shared = budget(room_for(1));
  auto store = make_store(shared, &changes);
  ASSERT_TRUE(store->inner().put("a", "1").ok());
  ASSERT_EQ(store->get("a").value(), "1");
  ASSERT_TRUE(store->put("b", "2").ok());
  EXPECT_TRUE(changes.empty());
  EXPECT_EQ(store->entries(), 1u);
}

TEST(CachingStore, AReadNeverMakesRoomAndThePutAfterItReadsNothingAgain) {
  Changes changes;
  auto below = std::make_shared<InMemoryStore>("counts");
  ASSERT_TRUE(below->put("a", "1").ok());
  auto reads = std::make_shared<int>(0);
  CachingStore store(std::make_unique<SharedStore>(below, std::make_shared<bool>(false), reads),
                     budget(room_for(1)));
  store.set_flush_listener(recorder(changes));
  ASSERT_TRUE(store.put("b", "2").ok());  // fills the budget
  EXPECT_EQ(store.get("a").value(), "1");
  EXPECT_EQ(store.entries(), 1u) << "a read evicted b";
  EXPECT_TRUE(changes.empty());
  EXPECT_EQ(store.get("a").value(), "1");
  EXPECT_EQ(*reads, 1) << "the second get read below again";
  ASSERT_TRUE(store.put("a", "3").ok());  // a write makes room: b goes down (read below)
  ASSERT_TRUE(store.flush().ok());
  EXPECT_EQ(*reads, 2) << "a's write-down read below again";
  EXPECT_EQ(changes, (Changes{{"b", "2", std::nullopt}, {"a", "3", "1"}}));
}

// get_into() of `key` into a buffer holding `stale`: what it found, or "<absent>" if it
// said absent (then the buffer must still hold `stale`).
std::string got_into(KeyValueBytesStore& store, std::string_view key) {
  const std::string stale = "stale bytes longer than a short string";
  std::string buffer = stale;
  auto found = store.get_into(key, buffer);
  EXPECT_TRUE(found.has_value());
  if (found && *found) return buffer;
  EXPECT_EQ(buffer, stale) << "an absent key changed the buffer";
  return "<absent>";
}

TEST(CachingStore, GetIntoAnswersAsGetFromTheCacheTheLastReadAndBelow) {
  auto below = std::make_shared<InMemoryStore>("counts");
  ASSERT_TRUE(below->put("a", "1").ok());
  ASSERT_TRUE(below->put("d", "4").ok());
  auto reads = std::make_shared<int>(0);
  CachingStore store(std::make_unique<SharedStore>(below, std::make_shared<bool>(false), reads),
                     budget(room_for(2)));
  ASSERT_TRUE(store.put("b", "2").ok());
  ASSERT_TRUE(store.put("c", std::nullopt).ok());  // the budget is full
  EXPECT_EQ(got_into(store, "b"), "2");            // a dirty entry
  EXPECT_EQ(got_into(store, "c"), "<absent>");     // a tombstone
  EXPECT_EQ(*reads, 0);
  EXPECT_EQ(got_into(store, "a"), "1");  // below, not cached: no room
  EXPECT_EQ(store.entries(), 2u);
  EXPECT_EQ(got_into(store, "a"), "1");  // the last read below, remembered
  EXPECT_EQ(*reads, 1);
  EXPECT_EQ(got_into(store, "e"), "<absent>");  // absent below
  EXPECT_EQ(*reads, 2);
  ASSERT_TRUE(store.flush().ok());  // c's tombstone goes, b stays cached clean
  EXPECT_EQ(got_into(store, "b"), "2");
  EXPECT_EQ(got_into(store, "d"), "4");  // below, cached in c's room
  EXPECT_EQ(store.entries(), 2u);
  const int reads_before = *reads;
  EXPECT_EQ(store.get("d").value(), "4");
  EXPECT_EQ(*reads, reads_before);
}

TEST(CachingStore, GetIntoCachesWhatItFindsBelowWhenItFits) {
  auto shared = budget(kLarge);
  auto store = make_store(shared);
  ASSERT_TRUE(store->inner().put("hot", "1").ok());
  EXPECT_EQ(got_into(*store, "hot"), "1");
  EXPECT_EQ(store->entries(), 1u);
  ASSERT_TRUE(store->inner().put("hot", "2").ok());  // behind the cache's back
  EXPECT_EQ(got_into(*store, "hot"), "1");
}

TEST(CachingStore, AStoreTakesRoomFromAnothersCleanEntries) {
  const std::string value(100, 'v');  // entries, not the second store's table, take the room
  auto shared = budget(room_for(8, value));
  auto first = make_store(shared);
  auto second = make_store(shared);
  for (auto key : {"a", "b", "c", "d", "e", "f"}) {
    ASSERT_TRUE(first->inner().put(key, value).ok());
    ASSERT_EQ(first->get(key).value(), value);  // cached clean
  }
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(second->put("k" + std::to_string(i), value).ok());
  EXPECT_LT(first->entries(), 6u) << "no clean entry of the first store was evicted";
  EXPECT_GT(second->entries(), 2u);
  EXPECT_LE(shared->used_bytes(), shared->max_bytes());
}

TEST(CachingStore, AStoreNeverWritesDownAnothersDirtyEntries) {
  Changes first_changes;
  auto shared = budget(room_for(8));
  auto first = make_store(shared, &first_changes);
  auto second = make_store(shared);
  for (auto key : {"a", "b", "c", "d", "e", "f"}) ASSERT_TRUE(first->put(key, "1").ok());
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(second->put("k" + std::to_string(i), "1").ok());  // its own room, or straight down
    ASSERT_LE(shared->used_bytes(), shared->max_bytes());
  }
  EXPECT_TRUE(first_changes.empty());
  EXPECT_EQ(first->entries(), 6u);
  ASSERT_TRUE(first->flush().ok());
  EXPECT_EQ(first_changes.size(), 6u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(second->get("k" + std::to_string(i)).value(), "1");
  }
}

TEST(CachingStore, StoresSharingABudgetBothStayWithinIt) {
  auto shared = budget(room_for(3));
  auto first = make_store(shared);
  auto second = make_store(shared);
  std::map<std::string, std::string> first_model;
  std::map<std::string, std::string> second_model;
  for (int i = 0; i < 40; ++i) {
    const std::string value = std::to_string(i % 10);
    const std::string first_key(1, static_cast<char>('a' + i % 5));
    const std::string second_key(1, static_cast<char>('a' + (i * 3) % 7));
    ASSERT_TRUE(first->put(first_key, value).ok());
    first_model[first_key] = value;
    ASSERT_LE(shared->used_bytes(), shared->max_bytes());
    ASSERT_TRUE(second->put(second_key, value).ok());
    second_model[second_key] = value;
    ASSERT_LE(shared->used_bytes(), shared->max_bytes());
    ASSERT_EQ(first->get(second_key).value(), first_model.contains(second_key)
                                                  ? std::optional(first_model[second_key])
                                                  : std::nullopt);
    ASSERT_LE(shared->used_bytes(), shared->max_bytes());
  }
  ASSERT_TRUE(first->flush().ok());
  ASSERT_TRUE(second->flush().ok());
  EXPECT_EQ(scan_all(first->inner()), Entries(first_model.begin(), first_model.end()));
  EXPECT_EQ(scan_all(second->inner()), Entries(second_model.begin(), second_model.end()));
}

TEST(CachingStore, ZeroBudgetWritesEveryPutThrough) {
  Changes changes;
  auto shared = budget(0);
  auto store = make_store(shared, &changes);
  ASSERT_TRUE(store->put("k", "1").ok());
  EXPECT_EQ(changes, (Changes{{"k", "1", std::nullopt}}));
  EXPECT_EQ(store->inner().get("k").value(), "1");
  EXPECT_EQ(store->get("k").value(), "1");
  ASSERT_TRUE(store->put("k", std::nullopt).ok());
  ASSERT_TRUE(store->put("never", std::nullopt).ok());
  EXPECT_EQ(changes, (Changes{{"k", "1", std::nullopt}, {"k", std::nullopt, "1"}}));
  EXPECT_EQ(shared->used_bytes(), 0u);
}

TEST(CachingStore, AnUpdateTooLargeForTheBudgetGoesStraightDownWithTheOldValueBelow) {
  Changes changes;
  auto shared = budget(room_for(1));
  auto store = make_store(shared, &changes);
  ASSERT_TRUE(store->inner().put("k", "0").ok());
  ASSERT_TRUE(store->put("k", "1").ok());
  ASSERT_TRUE(store->put("k", std::string(1000, 'x')).ok());
  EXPECT_EQ(changes, (Changes{{"k", std::string(1000, 'x'), "0"}}));
  EXPECT_EQ(store->entries(), 0u);
  EXPECT_EQ(store->get("k").value(), std::string(1000, 'x'));
}

TEST(CachingStore, MatchesAPlainMapAndTellsEveryChangeBelowUnderRandomOperations) {
  auto shared = budget(room_for(5));
  std::map<std::string, std::string> model;       // what the store must answer
  std::map<std::string, std::string> downstream;  // built from the listener's changes alone
  auto store = std::make_unique<CachingStore>(std::make_unique<InMemoryStore>("counts"), shared);
  store->set_flush_listener([&](std::string_view key, std::optional<std::string_view> now,
                                std::optional<std::string_view> before, const Headers&) {
    auto it = downstream.find(std::string(key));
    ASSERT_EQ(before,
              it == downstream.end() ? std::nullopt : std::optional<std::string_view>(it->second));
    if (now) {
      downstream[std::string(key)] = std::string(*now);
    } else {
      downstream.erase(it);
    }
  });
  std::mt19937 random(42);
  for (int i = 0; i < 5000; ++i) {
    const std::string key(1, static_cast<char>('a' + random() % 8));
    switch (random() % 6) {
      case 0:
      case 1: {
        const std::string value(1 + random() % 3, static_cast<char>('0' + i % 10));
        ASSERT_TRUE(store->put(key, value).ok());
        model[key] = value;
        break;
      }
      case 2:
        ASSERT_TRUE(store->put(key, std::nullopt).ok());
        model.erase(key);
        break;
      case 3: {
        auto it = model.find(key);
        if (i % 2 == 0) {
          ASSERT_EQ(store->get(key).value(),
                    it == model.end() ? std::nullopt : std::optional(it->second));
        } else {
          ASSERT_EQ(got_into(*store, key), it == model.end() ? "<absent>" : it->second);
        }
        break;
      }
      case 4: {
        const std::string to(1, static_cast<char>(key[0] + random() % 4));
        ASSERT_EQ(scan_all(*store, {.from = key, .to = to}),
                  Entries(model.lower_bound(key), model.upper_bound(to)));
        break;
      }
      default:
        if (random() % 10 == 0) {
          ASSERT_TRUE(store->flush().ok());
        }
    }
    ASSERT_LE(shared->used_bytes(), shared->max_bytes());
    ASSERT_EQ(scan_all(store->inner()), Entries(downstream.begin(), downstream.end()));
  }
  ASSERT_TRUE(store->flush().ok());
  EXPECT_EQ(Entries(downstream.begin(), downstream.end()), Entries(model.begin(), model.end()));
}

TEST(CachingStore, DestroyingDropsUnflushedWritesAndReleasesTheBudget) {
  Changes changes;
  auto shared = budget(kLarge);
  auto below = std::make_shared<InMemoryStore>("counts");
  {
    CachingStore store(std::make_unique<SharedStore>(below, std::make_shared<bool>(false)), shared);
    store.set_flush_listener(
        [&](auto key, auto, auto, auto&) { changes.push_back({std::string(key)}); });
    ASSERT_TRUE(store.put("flushed", "1").ok());
    ASSERT_TRUE(store.flush().ok());
    ASSERT_TRUE(store.put("unflushed", "1").ok());
    EXPECT_GT(shared->used_bytes(), 0u);
  }
  EXPECT_EQ(shared->used_bytes(), 0u);
  EXPECT_EQ(changes.size(), 1u);
  EXPECT_EQ(scan_all(*below), (Entries{{"flushed", "1"}}));
}

TEST(CachingStore, AFailedWriteDownIsReturnedAndKeepsTheEntryDirty) {
  Changes changes;
  auto below = std::make_shared<InMemoryStore>("counts");
  auto fail_puts = std::make_shared<bool>(false);
  CachingStore store(std::make_unique<SharedStore>(below, fail_puts), budget(room_for(1)));
  store.set_flush_listener(
      [&](auto key, auto, auto, auto&) { changes.push_back({std::string(key)}); });
  ASSERT_TRUE(store.put("a", "1").ok());
  *fail_puts = true;
  EXPECT_EQ(store.put("b", "1").code(), StatusCode::kIoError);  // evicting a fails
  EXPECT_EQ(store.get("b").value(), std::nullopt);
  EXPECT_EQ(store.flush().code(), StatusCode::kIoError);
  EXPECT_EQ(store.commit(Offset(1)).code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(changes.empty());
  *fail_puts = false;
  ASSERT_TRUE(store.flush().ok());
  EXPECT_EQ(scan_all(*below), (Entries{{"a", "1"}}));
  EXPECT_EQ(changes.size(), 1u);
}

TEST(CachingStore, CommitRequiresAFlushFirstAndForwardsToTheStoreBelow) {
  auto store = make_store(budget(kLarge));
  ASSERT_TRUE(store->put("k", "1").ok());
  EXPECT_EQ(store->commit(Offset(7)).code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(store->flush().ok());
  EXPECT_TRUE(store->commit(Offset(7)).ok());
  EXPECT_EQ(store->name(), "counts");
  EXPECT_FALSE(store->persistent());
  EXPECT_EQ(store->committed_offset(), std::nullopt);
  EXPECT_EQ(store->approximate_count().value(), 1);
}

}  // namespace
}  // namespace brook::internal
