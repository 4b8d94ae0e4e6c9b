// The RocksDB key-value store: the persistent bottom of a store stack (DESIGN.md, state layer).
//
// Writes between two commits are buffered in memory (pending_writes.h) and reach RocksDB only
// at commit(), together with the changelog offset, in one atomic write. Reads see the batch over
// the database. So the directory always holds the state of a commit: a crash or a close without
// commit loses exactly the uncommitted writes, and restoration resumes from committed_offset().
//
// Which commit survives a crash: a commit with a changelog offset (or source positions) writes
// no write-ahead log, since the changelog (or source topic) is the store's log: it stays in
// RocksDB's memtables until they are flushed to files, when one fills (a 16th of the memory
// budget, at most 4 MiB) or the memory they share runs short, and at a close. A crash
// therefore leaves the store at its last flushed commit, an older one than its last, from whose
// offset restoration replays the tail: at most about two memtables' worth of writes. A commit
// without either (a store without a changelog) goes through the write-ahead log and survives a
// crash of the process.
//
// Restoration's writes (restore()) go to a RestoreBuffer instead (the latest write per key,
// charged to the shared memory of RocksDbMemory), and commit() only notes their offset. Until
// the commit that follows them, get(), scan() and put() fail with kFailedPrecondition, and
// restore() fails after a put() (KeyValueBytesStore::restore). The buffer is loaded into RocksDB,
// atomically with the offset, at flush() (the end of restoration), at the first read or write
// after a commit, when the memory it shares fills, and at a close: a small one as one write
// batch, a larger one as SST files ingested into the database (RocksDB's bulk load, which skips
// the memtables and, into an empty store, lands in the last level with no compaction to come).
//
// RocksDB headers stay in rocksdb_store.cc; nothing here includes <rocksdb/...>.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "brook/internal/bytes_store.h"
#include "brook/status.h"

namespace brook::internal {

class RocksDbMemory;

struct RocksDbOptions {
  // fsync the write-ahead log at every commit that goes through it (one without a changelog
  // offset): such commits then survive a machine crash, not only a crash of the process.
  bool sync = false;
  // Restoration loads a buffer of fewer bytes as a write batch, a larger one as SST files.
  std::size_t min_ingest_bytes = std::size_t{1} << 20;
  // The store is read only by scans right after it opens (a memory index above it answers the
  // rest): its writes are kept as they come, sorted only if a read comes before the commit, and
  // its memtables are unsorted vectors, one append per write at commit, sorted when RocksDB
  // flushes them on its background thread (a read of a memtable sorts a copy).
  bool written_only = false;
  // If set, memtable inserts of keys of at least this many bytes start from where the previous
  // such insert ended, which makes a commit's writes (in key order) cheap; delete_range() is
  // then refused unless its first key is shorter (RocksDB 7.8 would send a range deletion
  // through the same hints, which breaks them).
  std::optional<std::size_t> insert_hints_from_key_bytes;
};

// Opens the store `name` in `dir`, creating the directory and the database if needed, with its
// memory from `memory` (not null). The store is not thread-safe (KeyValueBytesStore); distinct
// stores may be used from distinct threads.
// Errors name the store and the directory: kIoError if RocksDB cannot open it (among others
// when another open store, in this process or another, holds the directory's lock), kCorruption
// if the stored changelog offset is unreadable.
Result<std::unique_ptr<KeyValueBytesStore>> open_rocksdb_store(
    std::string name, const std::filesystem::path& dir, std::shared_ptr<RocksDbMemory> memory,
    RocksDbOptions options = {});

// The memory all RocksDB stores of one application instance share: one LRU block cache and one
// write-buffer manager whose memtable memory is charged to that cache, so block cache, index and
// filter blocks and memtables of every store together stay around `total_bytes`. The limit is
// not strict: a cache that refused inserts when full would fail reads, so RocksDB may exceed it
// briefly (pinned blocks, a memtable being flushed). Memtables take at most about half of it:
// beyond that, the store being written flushes its memtables.
//
// Thread-safe. Each store keeps the parts it uses alive, so the object may go before its stores.
class RocksDbMemory {
 public:
  explicit RocksDbMemory(std::size_t total_bytes);
  ~RocksDbMemory();
  RocksDbMemory(const RocksDbMemory&) = delete;
  RocksDbMemory& operator=(const RocksDbMemory&) = delete;

  // The block cache's capacity: `total_bytes`.
  std::size_t cache_capacity() const;
  // The bytes the cache holds now: cached blocks plus the memtable memory charged to it.
  std::size_t cache_usage() const;

 private:
  struct Impl;
  friend Result<std::unique_ptr<KeyValueBytesStore>> open_rocksdb_store(
      std::string name, const std::filesystem::path& dir, std::shared_ptr<RocksDbMemory> memory,
      RocksDbOptions options);

  std::unique_ptr<Impl> impl_;
};

}  // namespace brook::internal
