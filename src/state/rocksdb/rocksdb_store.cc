#include "state/rocksdb/rocksdb_store.h"

#include <fmt/format.h>
#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>
#include <rocksdb/write_buffer_manager.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <system_error>
#include <utility>
#include <vector>

#include "brook/internal/coding.h"
#include "core/log.h"
#include "state/rocksdb/info_log.h"
#include "state/rocksdb/pending_writes.h"
#include "state/rocksdb/restore_buffer.h"

namespace brook::internal {

struct RocksDbMemory::Impl {
  std::shared_ptr<rocksdb::Cache> cache;
  std::shared_ptr<rocksdb::WriteBufferManager> write_buffer_manager;
};

RocksDbMemory::RocksDbMemory(std::size_t total_bytes) : impl_(std::make_unique<Impl>()) {
  impl_->cache = rocksdb::NewLRUCache(total_bytes);
  impl_->write_buffer_manager =
      std::make_shared<rocksdb::WriteBufferManager>(total_bytes / 2, impl_->cache);
}

RocksDbMemory::~RocksDbMemory() = default;

std::size_t RocksDbMemory::cache_capacity() const { return impl_->cache->GetCapacity(); }

std::size_t RocksDbMemory::cache_usage() const { return impl_->cache->GetUsage(); }

namespace {

// The column family of the changelog offset; the data lives in the default one, so scans never
// see the offset.
constexpr std::string_view kMetaFamily = "brook-meta";
constexpr std::string_view kOffsetKey = "changelog-offset";  // value: 8 bytes, big-endian
// Global stores (commit_positions()): one entry per source partition, the prefix then the
// partition as 4 bytes big-endian; value: the next offset, 8 bytes big-endian.
constexpr std::string_view kPositionPrefix = "source-offset-";
// A memtable's size: a 16th of the memory budget, so that the memtables of a few stores fit the
// write-buffer manager's half of the budget even when it is small (it would otherwise flush
// them at every write), between 64 KiB (RocksDB's least) and 4 MiB: inserting a commit's
// writes into a smaller skip list costs the stream thread less, and the flushes run on
// RocksDB's background thread (4 MiB against 16 MiB: count 1.2x, hopping windows 1.15x).
constexpr std::size_t kMinWriteBufferBytes = std::size_t{64} << 10;
constexpr std::size_t kMaxWriteBufferBytes = std::size_t{4} << 20;
constexpr int kBloomBitsPerKey = 10;
// The memtables' Bloom filter, as a share of their size: about 9 bits per write of 30 bytes,
// so that a point lookup of a key not in a memtable skips its search.
constexpr double kMemtableBloomRatio = 0.02;

// One memtable insert hint for every key of at least `min_bytes` bytes (their prefix is empty);
// shorter keys are inserted without one.
class OneInsertHint final : public rocksdb::SliceTransform {
 public:
  explicit OneInsertHint(std::size_t min_bytes) : min_bytes_(min_bytes) {}
  const char* Name() const override { return "brook.OneInsertHint"; }
  rocksdb::Slice Transform(const rocksdb::Slice& key) const override { return {key.data(), 0}; }
  bool InDomain(const rocksdb::Slice& key) const override { return key.size() >= min_bytes_; }

 private:
  std::size_t min_bytes_;
};
// Where restoration writes its SST files before ingesting them, inside the store's directory
// (on the same file system, so that ingestion moves them); emptied at open.
constexpr std::string_view kRestoreDir = "restore-tmp";
// A restore buffer's first reservation: room for the keys that many bytes of the budget hold.
constexpr std::size_t kReservedEntryBytes = 128;

rocksdb::Slice slice(std::string_view s) { return {s.data(), s.size()}; }
std::string_view view(const rocksdb::Slice& s) { return {s.data(), s.size()}; }

std::array<char, 8> encode_offset(Offset offset) {
  std::array<char, 8> bytes;
  put_big_endian(bytes.data(), offset.value());
  return bytes;
}

std::string position_key(std::int32_t partition) {
  std::string key(kPositionPrefix);
  append_big_endian(key, static_cast<std::uint32_t>(partition), 4);
  return key;
}

Offset decode_offset(std::string_view bytes) {
  return Offset(static_cast<std::int64_t>(read_big_endian(bytes)));
}

Status failure(const rocksdb::Status& s, std::string_view name, std::string_view dir,
               std::string_view operation) {
  std::string message =
      fmt::format("RocksDB store '{}' in {}: {} failed: {}", name, dir, operation, s.ToString());
  return s.IsCorruption() ? Status::corruption(std::move(message))
                          : Status::io_error(std::move(message));
}

rocksdb::CompressionType compression() {
  auto supported = rocksdb::GetSupportedCompressions();
  return std::ranges::find(supported, rocksdb::kLZ4Compression) != supported.end()
             ? rocksdb::kLZ4Compression
             : rocksdb::kNoCompression;
}

// Memory charged to the shared block cache with entries that hold no block, as RocksDB's
// write-buffer manager charges memtables: the cache then evicts blocks to make room, so that a
// restore buffer counts against the same budget.
class CacheCharge {
 public:
  explicit CacheCharge(std::shared_ptr<rocksdb::Cache> cache) : cache_(std::move(cache)) {}
  ~CacheCharge() { set(0); }
  CacheCharge(const CacheCharge&) = delete;
  CacheCharge& operator=(const CacheCharge&) = delete;

  // Charges `bytes`, rounded up to whole chunks.
  void set(std::size_t bytes) {
    const std::size_t chunks = (bytes + kChunk - 1) / kChunk;
    while (handles_.size() > chunks) {
      cache_->Release(handles_.back(), /*erase_if_last_ref=*/true);
      handles_.pop_back();
    }
    while (handles_.size() < chunks) {
      const std::string key = fmt::format("brook-restore-buffer-{}-{}",
                                          static_cast<const void*>(this), handles_.size());
      rocksdb::Cache::Handle* handle = nullptr;
      // A cache without a strict capacity limit (RocksDbMemory's) never refuses an insert.
      if (!cache_
               ->Insert(
                   key, &placeholder_, kChunk, [](const rocksdb::Slice&, void*) {}, &handle)
               .ok()) {
        return;
      }
      handles_.push_back(handle);
    }
  }
  // True once what the cache cannot evict (memtables, restore buffers, pinned blocks) reached
  // its capacity: the whole budget.
  bool budget_reached() const { return cache_->GetPinnedUsage() >= cache_->GetCapacity(); }
  std::size_t capacity() const { return cache_->GetCapacity(); }

 private:
  static constexpr std::size_t kChunk = std::size_t{1} << 20;

  std::shared_ptr<rocksdb::Cache> cache_;
  std::vector<rocksdb::Cache::Handle*> handles_;
  char placeholder_ = 0;  // the value of every entry: they hold nothing
};

class RocksDbStore final : public KeyValueBytesStore {
 public:
  RocksDbStore(std::string name, std::string dir, rocksdb::DB* db,
               rocksdb::ColumnFamilyHandle* data, rocksdb::ColumnFamilyHandle* meta,
               rocksdb::Options sst_options, std::shared_ptr<rocksdb::Cache> cache,
               RocksDbOptions options)
      : name_(std::move(name)),
        dir_(std::move(dir)),
        db_(db),
        data_(data),
        meta_(meta),
        sst_options_(std::move(sst_options)),
        options_(options),
        charge_(std::move(cache)) {}

  // A close loads committed restored writes (uncommitted ones are dropped) and flushes the
  // memtables (RocksDB would too, for writes made without its log, but silently). Neither can
  // fail the close: what could not be written stays in the changelog, and the next start
  // restores it; the failure is logged.
  ~RocksDbStore() override {
    if (restoring_ && !restored_uncommitted_) {
      if (auto s = load_restored(); !s.ok()) {
        log(LogLevel::kError, "{}; the next start restores these records again", s.message());
      }
    }
    if (!unlogged_) return;
    if (auto s = db_->Flush(rocksdb::FlushOptions(), {data_.get(), meta_.get()}); !s.ok()) {
      log(LogLevel::kError,
          "RocksDB store '{}' in {}: writing its memtables at close failed: {}; the next start "
          "restores the changelog from the offset of their last flush",
          name_, dir_, s.ToString());
    }
  }
  RocksDbStore(const RocksDbStore&) = delete;
  RocksDbStore& operator=(const RocksDbStore&) = delete;

  // Reads the offset stored by the last commit into committed_offset_.
  Status load_committed_offset() {
    std::string value;
    auto s = db_->Get(read_options_, meta_.get(), slice(kOffsetKey), &value);
    if (s.IsNotFound()) return {};
    if (!s.ok()) return failure(s, name_, dir_, "reading the committed offset");
    if (value.size() != sizeof(std::uint64_t)) {
      return Status::corruption(
          fmt::format("RocksDB store '{}' in {}: the committed changelog offset has {} bytes, "
                      "expected 8",
                      name_, dir_, value.size()));
    }
    committed_offset_ = decode_offset(value);
    return {};
  }

  // Reads the source positions stored by commit_positions() into committed_positions_.
  Status load_committed_positions() {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read_options_, meta_.get()));
    for (it->Seek(slice(kPositionPrefix)); it->Valid(); it->Next()) {
      const auto key = view(it->key());
      if (!key.starts_with(kPositionPrefix)) break;
      const auto value = view(it->value());
      if (key.size() != kPositionPrefix.size() + 4 || value.size() != sizeof(std::uint64_t)) {
        return Status::corruption(fmt::format(
            "RocksDB store '{}' in {}: a malformed source position entry", name_, dir_));
      }
      const auto partition =
          static_cast<std::int32_t>(decode_offset(key.substr(kPositionPrefix.size())).value());
      committed_positions_[partition] = decode_offset(value);
    }
    if (!it->status().ok()) return failure(it->status(), name_, dir_, "reading source positions");
    return {};
  }

  const std::string& name() const override { return name_; }

  Result<std::optional<std::string>> get(std::string_view key) override {
    if (auto s = end_restoring("get"); !s.ok()) return error(std::move(s));
    if (auto s = settle(); !s.ok()) return error(std::move(s));
    if (auto pending = pending_.find(key)) {
      if (!*pending) return std::optional<std::string>();
      return std::optional<std::string>(**pending);
    }
    std::optional<std::string> value(std::in_place);
    auto s = db_->Get(read_options_, data_.get(), slice(key), &*value);
    if (s.ok()) return value;
    if (s.IsNotFound()) return std::optional<std::string>();
    return error(failure(s, name_, dir_, "get"));
  }

  Status put(std::string_view key, std::optional<std::string_view> value) override {
    if (auto s = end_restoring("put"); !s.ok()) return s;
    if (options_.written_only) {
      auto s = value ? unsorted_.Put(data_.get(), slice(key), slice(*value))
                     : unsorted_.Delete(data_.get(), slice(key));
      return s.ok() ? Status() : failure(s, name_, dir_, "put");
    }
    pending_.put(key, value);
    return {};
  }

  Status restore(std::string_view key, std::optional<std::string_view> value) override {
    if (auto s = settle(); !s.ok()) return s;
    if (pending_.has_entries()) {
      return Status::failed_precondition(fmt::format(
          "RocksDB store '{}' in {}: restore after put without a commit between", name_, dir_));
    }
    if (!restoring_) {
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read_options_, data_.get()));
      it->SeekToFirst();
      if (!it->status().ok()) return failure(it->status(), name_, dir_, "restore");
      below_empty_ = !it->Valid();
      buffer_.reserve(std::min(reserve_hint_, charge_.capacity() / kReservedEntryBytes));
      restoring_ = true;
      restore_offset_ = committed_offset_;
      // Range deletions before any write: restoration's.
      for (auto& [from, to] : pending_.take_ranges()) {
        buffer_.delete_range(std::move(from), std::move(to));
      }
    }
    buffer_.put(key, value);
    restored_uncommitted_ = true;
    return {};
  }

  void reserve_for_restore(std::int64_t records) override {
    reserve_hint_ = static_cast<std::size_t>(std::max<std::int64_t>(records, 0));
  }

  // Merges the database's keys in the range with the pending writes: an entry replaces the
  // database's value of its key (a deletion hides it), a pending range deletion hides the
  // database's keys it covers.
  Status scan(const KeyRange& range, const ScanVisitor& visit) override {
    if (auto s = end_restoring("scan"); !s.ok()) return s;
    if (auto s = settle(); !s.ok()) return s;
    if (range.from && range.to && *range.from > *range.to) return {};
    // RocksDB's upper bound is exclusive; `to` + '\0' is the smallest key after `to`.
    rocksdb::ReadOptions options = read_options_;
    std::string upper;
    rocksdb::Slice upper_slice;
    if (range.to) {
      upper.reserve(range.to->size() + 1);
      upper.append(*range.to).push_back('\0');
      upper_slice = slice(upper);
      options.iterate_upper_bound = &upper_slice;
    }
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(options, data_.get()));
    const auto& entries = pending_.entries();
    auto entry = range.from ? entries.lower_bound(*range.from) : entries.begin();
    const auto entries_end = range.to ? entries.upper_bound(*range.to) : entries.end();
    if (range.from) {
      it->Seek(slice(*range.from));
    } else {
      it->SeekToFirst();
    }
    while (true) {
      const bool from_db = it->Valid();
      const bool from_pending = entry != entries_end;
      if (!from_db && !from_pending) break;
      const std::string_view db_key = from_db ? view(it->key()) : std::string_view();
      if (from_pending && (!from_db || entry->first <= db_key)) {
        if (from_db && entry->first == db_key) it->Next();  // replaced
        const auto& [key, value] = *entry++;
        if (value && !visit(key, *value)) return {};
        continue;
      }
      if (!pending_.in_range(db_key) && !visit(db_key, view(it->value()))) return {};
      it->Next();
    }
    if (!it->status().ok()) return failure(it->status(), name_, dir_, "scan");
    return {};
  }

  // During restoration (restored writes buffered) the deletion joins them, in order; otherwise
  // it joins the pending writes (pending_writes.h).
  Status delete_range(const KeyRange& range) override {
    if (const auto hinted = options_.insert_hints_from_key_bytes;
        hinted && range.from.value_or(std::string()).size() >= *hinted) {
      return Status::failed_precondition(fmt::format(
          "store {}: delete_range() from a key of {} bytes or more, which memtable insert "
          "hints are for",
          name_, *hinted));
    }
    if (restoring_ && range.to) {
      std::string to;
      to.reserve(range.to->size() + 1);
      to.append(*range.to).push_back('\0');  // RocksDB's end is exclusive
      buffer_.delete_range(range.from.value_or(std::string()), std::move(to));
      return {};
    }
    if (auto s = end_restoring("delete_range"); !s.ok()) return s;
    std::string from = range.from.value_or(std::string());
    std::string to;
    if (range.to) {
      to.reserve(range.to->size() + 1);
      to.append(*range.to).push_back('\0');  // RocksDB's end is exclusive
      if (options_.written_only && from < to) {
        auto s = unsorted_.DeleteRange(data_.get(), slice(from), slice(to));
        return s.ok() ? Status() : failure(s, name_, dir_, "delete_range");
      }
    } else {  // an open end: just past the last key, in the database or the pending writes
      if (auto s = settle(); !s.ok()) return s;
      std::unique_ptr<rocksdb::Iterator> last(db_->NewIterator(read_options_, data_.get()));
      last->SeekToLast();
      if (!last->status().ok()) return failure(last->status(), name_, dir_, "delete_range");
      if (last->Valid()) to = view(last->key());
      const auto& entries = pending_.entries();
      if (!entries.empty() && entries.rbegin()->first > to) to = entries.rbegin()->first;
      if (!last->Valid() && entries.empty()) return {};
      to.push_back('\0');
    }
    pending_.delete_range(std::move(from), std::move(to));
    return {};
  }

  Result<std::int64_t> approximate_count() override {
    std::uint64_t count = 0;
    if (!db_->GetIntProperty(data_.get(), rocksdb::DB::Properties::kEstimateNumKeys, &count)) {
      return error(Status::io_error(fmt::format(
          "RocksDB store '{}' in {}: the key count estimate is unavailable", name_, dir_)));
    }
    return static_cast<std::int64_t>(count);
  }

  // Loads the committed restored writes (the end of a restoration).
  Status flush() override { return end_restoring("flush"); }

  Status commit(std::optional<Offset> changelog_next) override {
    if (restoring_) {
      restore_offset_ = changelog_next;
      restored_uncommitted_ = false;
      charge_.set(buffer_.bytes());
      return charge_.budget_reached() ? load_restored() : Status();
    }
    // RocksDB counts key comparisons and more for its perf context unless told not to, on
    // the thread that asks (a thread-local setting, which stays): a fifth of the memtable
    // inserts' time went to those counters.
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
    if (pending_.empty()) return write(unsorted_, changelog_next);  // nothing was read
    if (auto status = settle(); !status.ok()) return status;
    rocksdb::WriteBatch writes;
    rocksdb::Status s;
    for (const auto& [from, to] : pending_.ranges()) {
      if (s.ok()) s = writes.DeleteRange(data_.get(), slice(from), slice(to));
    }
    pending_.for_each_in_order([&](std::string_view key, PendingWrites::Value value) {
      if (!s.ok()) return;
      s = value ? writes.Put(data_.get(), slice(key), slice(*value))
                : writes.Delete(data_.get(), slice(key));
    });
    if (!s.ok()) return failure(s, name_, dir_, "commit");
    if (auto status = write(writes, changelog_next); !status.ok()) return status;
    pending_.clear();
    return {};
  }

  std::optional<Offset> committed_offset() const override {
    return restoring_ ? restore_offset_ : committed_offset_;
  }
  Status commit_positions(const std::map<std::int32_t, Offset>& next) override {
    if (auto s = end_restoring("commit_positions"); !s.ok()) return s;
    for (const auto& [partition, offset] : next) {
      auto it = committed_positions_.find(partition);
      if (it == committed_positions_.end() || it->second != offset) {
        pending_positions_[partition] = offset;
      }
    }
    return commit(std::nullopt);
  }
  std::map<std::int32_t, Offset> committed_positions() const override {
    return committed_positions_;
  }
  bool persistent() const override { return true; }

 private:
  // Writes `batch` with `changelog_next` in one atomic write and clears it; on failure it stays
  // as it was. With a changelog offset or source positions the
  // write skips RocksDB's log (the class comment says why).
  Status write(rocksdb::WriteBatch& batch, std::optional<Offset> changelog_next) {
    if (batch.Count() == 0 && changelog_next == committed_offset_ && pending_positions_.empty()) {
      return {};
    }
    const bool logged_elsewhere =
        changelog_next.has_value() || !pending_positions_.empty() || !committed_positions_.empty();
    rocksdb::WriteOptions write_options;
    write_options.disableWAL = logged_elsewhere;
    write_options.sync = !logged_elsewhere && options_.sync;
    if (!logged_elsewhere && unlogged_) {
      // Writes made without the log must reach the files before one made with it: replaying
      // the log after a crash would otherwise apply it over a state without them.
      if (auto s = db_->Flush(rocksdb::FlushOptions(), {data_.get(), meta_.get()}); !s.ok()) {
        return failure(s, name_, dir_, "commit");
      }
      unlogged_ = false;
    }
    batch.SetSavePoint();
    rocksdb::Status s;
    if (changelog_next) {
      auto bytes = encode_offset(*changelog_next);
      s = batch.Put(meta_.get(), slice(kOffsetKey), rocksdb::Slice(bytes.data(), bytes.size()));
    } else if (committed_offset_) {
      s = batch.Delete(meta_.get(), slice(kOffsetKey));
    }
    for (const auto& [partition, offset] : pending_positions_) {
      if (!s.ok()) break;
      auto bytes = encode_offset(offset);
      s = batch.Put(meta_.get(), slice(position_key(partition)),
                    rocksdb::Slice(bytes.data(), bytes.size()));
    }
    if (s.ok()) s = db_->Write(write_options, &batch);
    if (!s.ok()) {
      batch.RollbackToSavePoint().PermitUncheckedError();
      return failure(s, name_, dir_, "commit");
    }
    batch.Clear();
    committed_offset_ = changelog_next;
    for (const auto& [partition, offset] : pending_positions_)
      committed_positions_[partition] = offset;
    pending_positions_.clear();
    unlogged_ = unlogged_ || logged_elsewhere;
    return {};
  }

  // A written-only store's writes, replayed in order into pending_ for a read or a restoration.
  Status settle() {
    if (unsorted_.Count() == 0) return {};
    class Replay final : public rocksdb::WriteBatch::Handler {
     public:
      explicit Replay(PendingWrites& pending) : pending_(pending) {}
      rocksdb::Status PutCF(std::uint32_t, const rocksdb::Slice& key,
                            const rocksdb::Slice& value) override {
        pending_.put(view(key), view(value));
        return {};
      }
      rocksdb::Status DeleteCF(std::uint32_t, const rocksdb::Slice& key) override {
        pending_.put(view(key), std::nullopt);
        return {};
      }
      rocksdb::Status DeleteRangeCF(std::uint32_t, const rocksdb::Slice& from,
                                    const rocksdb::Slice& to) override {
        pending_.delete_range(std::string(view(from)), std::string(view(to)));
        return {};
      }

     private:
      PendingWrites& pending_;
    } replay(pending_);
    auto s = unsorted_.Iterate(&replay);
    if (!s.ok()) return failure(s, name_, dir_, "reading its unsorted writes");
    unsorted_.Clear();
    return {};
  }

  // Before a read or write (or flush()): loads the restored writes, if they are committed;
  // kFailedPrecondition if not.
  Status end_restoring(std::string_view operation) {
    if (!restoring_) return {};
    if (restored_uncommitted_) {
      return Status::failed_precondition(
          fmt::format("RocksDB store '{}' in {}: {} before the restored writes are committed",
                      name_, dir_, operation));
    }
    return load_restored();
  }

  // Writes the restore buffer and its offset to the database, atomically: a small buffer as one
  // write batch, a larger one as an SST file per column family, ingested together. Range
  // deletions and deletions are left out if the store was empty when restoration began (there
  // is nothing for them to delete). On failure the buffer stays, to be loaded again.
  Status load_restored() {
    std::size_t loaded = 0;
    const bool ingest = buffer_.bytes() >= options_.min_ingest_bytes;
    auto s = ingest ? ingest_restored(loaded) : write_restored();
    if (!s.ok()) return s;
    if (ingest && loaded == 0 && !(s = write_restored()).ok()) return s;  // only deletions
    restoring_ = false;
    below_empty_ = false;
    buffer_.clear();
    charge_.set(0);
    return {};
  }

  Status write_restored() {
    rocksdb::WriteBatch writes;
    rocksdb::Status s;
    if (!below_empty_) {
      for (const auto& [from, to] : buffer_.ranges()) {
        if (s.ok()) s = writes.DeleteRange(data_.get(), slice(from), slice(to));
      }
    }
    buffer_.for_each(false, [&](std::string_view key, std::optional<std::string_view> value) {
      if (!s.ok()) return;
      if (value) {
        s = writes.Put(data_.get(), slice(key), slice(*value));
      } else if (!below_empty_) {
        s = writes.Delete(data_.get(), slice(key));
      }
    });
    if (!s.ok()) return failure(s, name_, dir_, "loading restored writes");
    return write(writes, restore_offset_);
  }

  // The SST path of load_restored(); `loaded`: the entries written to the data file (0: no
  // file, nothing ingested).
  Status ingest_restored(std::size_t& loaded) {
    const std::filesystem::path tmp = std::filesystem::path(dir_) / kRestoreDir;
    std::error_code ec;
    std::filesystem::create_directories(tmp, ec);
    if (ec) {
      return Status::io_error(fmt::format("RocksDB store '{}' in {}: cannot create {}: {}", name_,
                                          dir_, tmp.string(), ec.message()));
    }
    const std::string data_file = (tmp / "data.sst").string();
    const std::string meta_file = (tmp / "meta.sst").string();
    auto fail = [&](const rocksdb::Status& status, std::string_view step) {
      std::filesystem::remove_all(tmp, ec);
      return failure(status, name_, dir_, fmt::format("loading restored writes ({})", step));
    };

    rocksdb::SstFileWriter data(rocksdb::EnvOptions(), sst_options_, data_.get());
    rocksdb::Status s = data.Open(data_file);
    if (!below_empty_) {
      for (const auto& [from, to] : buffer_.ranges()) {
        if (s.ok()) s = data.DeleteRange(slice(from), slice(to));
        loaded += s.ok();
      }
    }
    buffer_.for_each(true, [&](std::string_view key, std::optional<std::string_view> value) {
      if (!s.ok() || (!value && below_empty_)) return;
      s = value ? data.Put(slice(key), slice(*value)) : data.Delete(slice(key));
      ++loaded;
    });
    if (!s.ok()) return fail(s, "writing " + data_file);
    if (loaded == 0) {
      std::filesystem::remove_all(tmp, ec);
      return {};
    }
    if (!(s = data.Finish()).ok()) return fail(s, "writing " + data_file);

    rocksdb::SstFileWriter meta(rocksdb::EnvOptions(), sst_options_, meta_.get());
    s = meta.Open(meta_file);
    if (s.ok()) {
      if (restore_offset_) {
        auto bytes = encode_offset(*restore_offset_);
        s = meta.Put(slice(kOffsetKey), rocksdb::Slice(bytes.data(), bytes.size()));
      } else {
        s = meta.Delete(slice(kOffsetKey));
      }
    }
    if (s.ok()) s = meta.Finish();
    if (!s.ok()) return fail(s, "writing " + meta_file);

    rocksdb::IngestExternalFileOptions ingest;
    ingest.move_files = true;
    std::vector<rocksdb::IngestExternalFileArg> args(2);
    args[0].column_family = data_.get();
    args[0].external_files = {data_file};
    args[0].options = ingest;
    args[1].column_family = meta_.get();
    args[1].external_files = {meta_file};
    args[1].options = ingest;
    if (!(s = db_->IngestExternalFiles(args)).ok()) return fail(s, "ingesting");
    committed_offset_ = restore_offset_;
    std::filesystem::remove_all(tmp, ec);
    return {};
  }

  std::string name_;
  std::string dir_;
  // Declared before the handles, which must be destroyed while the database is open.
  std::unique_ptr<rocksdb::DB> db_;
  std::unique_ptr<rocksdb::ColumnFamilyHandle> data_;
  std::unique_ptr<rocksdb::ColumnFamilyHandle> meta_;
  rocksdb::Options sst_options_;  // the data family's, for restoration's SST files
  RocksDbOptions options_;
  PendingWrites pending_;  // the writes since the last commit
  // written_only: the writes since the last commit or read, in order (pending_ then empty,
  // unless a read came between).
  rocksdb::WriteBatch unsorted_;
  rocksdb::ReadOptions read_options_;
  std::optional<Offset> committed_offset_;              // what the database holds
  std::map<std::int32_t, Offset> committed_positions_;  // commit_positions(), by partition
  std::map<std::int32_t, Offset> pending_positions_;    // to write with the next commit
  bool unlogged_ = false;  // writes made without RocksDB's log since the last synchronous flush

  // Restoration: the buffered writes, the offset of their last commit, the memory they take.
  RestoreBuffer buffer_;
  bool restoring_ = false;             // buffer_ is in use (even if empty)
  bool restored_uncommitted_ = false;  // restore() since the last commit
  bool below_empty_ = false;           // the database had no data when restoration began
  std::optional<Offset> restore_offset_;
  std::size_t reserve_hint_ = 0;  // reserve_for_restore()
  CacheCharge charge_;
};

}  // namespace

Result<std::unique_ptr<KeyValueBytesStore>> open_rocksdb_store(
    std::string name, const std::filesystem::path& dir, std::shared_ptr<RocksDbMemory> memory,
    RocksDbOptions options) {
  std::string dir_name = dir.string();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return error(Status::io_error(
        fmt::format("RocksDB store '{}': cannot create {}: {}", name, dir_name, ec.message())));
  }

  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  // Both families flush together: a flush never writes the data without its offset (commits
  // with an offset write no WAL), and the WAL is not kept for the rarely-written offset family.
  db_options.atomic_flush = true;
  db_options.write_buffer_manager = memory->impl_->write_buffer_manager;
  db_options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;  // many stores, little noise
  db_options.info_log = make_info_log(name, dir_name);            // no LOG file beside the data

  // Point lookups: Bloom filters of whole keys in files and memtables, kept for the last level
  // too (optimize_filters_for_hits would drop those, and a count's lookup of a new key misses),
  // and a hash index in each data block.
  rocksdb::BlockBasedTableOptions table_options;
  table_options.block_cache = memory->impl_->cache;
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(kBloomBitsPerKey));
  table_options.whole_key_filtering = true;
  table_options.data_block_index_type = rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
  table_options.cache_index_and_filter_blocks = true;  // charged to the shared cache
  table_options.pin_l0_filter_and_index_blocks_in_cache = true;

  rocksdb::ColumnFamilyOptions family_options;
  family_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options));
  family_options.write_buffer_size =
      std::clamp(memory->cache_capacity() / 16, kMinWriteBufferBytes, kMaxWriteBufferBytes);
  family_options.compression = compression();
  family_options.memtable_prefix_bloom_size_ratio = kMemtableBloomRatio;
  family_options.memtable_whole_key_filtering = true;
  family_options.optimize_filters_for_hits = false;

  rocksdb::ColumnFamilyOptions data_options = family_options;
  if (options.insert_hints_from_key_bytes) {
    // A commit writes its keys in key order (pending_writes.h): each memtable insert starts
    // from where the previous one ended instead of searching the skip list from its top.
    // Inserts out of order search as usual.
    data_options.memtable_insert_with_hint_prefix_extractor =
        std::make_shared<OneInsertHint>(*options.insert_hints_from_key_bytes);
  }
  if (options.written_only) {
    data_options.memtable_factory = std::make_shared<rocksdb::VectorRepFactory>();
    db_options.allow_concurrent_memtable_write = false;  // which vectors do not support
  }

  // Restoration's SST files of an earlier run that a crash left behind.
  std::filesystem::remove_all(dir / kRestoreDir, ec);

  std::vector<rocksdb::ColumnFamilyDescriptor> families{
      {rocksdb::kDefaultColumnFamilyName, data_options},
      {std::string(kMetaFamily), family_options}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  auto s = rocksdb::DB::Open(db_options, dir_name, families, &handles, &db);
  if (!s.ok()) return error(failure(s, name, dir_name, "open"));

  auto store = std::make_unique<RocksDbStore>(
      std::move(name), std::move(dir_name), db, handles[0], handles[1],
      rocksdb::Options(db_options, data_options), memory->impl_->cache, options);
  if (auto loaded = store->load_committed_offset(); !loaded.ok()) return error(std::move(loaded));
  if (auto loaded = store->load_committed_positions(); !loaded.ok()) {
    return error(std::move(loaded));
  }
  return store;
}

}  // namespace brook::internal
