// The RocksDB key-value store: the persistent bottom of a store stack (DESIGN.md, state layer).
//
// Writes between two commits are buffered in an indexed batch in memory and reach RocksDB only
// at commit(), together with the changelog offset, in one atomic write (WAL on). Reads see the
// batch over the database. Restoration's writes (restore()) go to a plain batch instead, which
// costs no indexing; until the commit that writes them, get(), scan() and put() fail with
// kFailedPrecondition, and restore() fails after a put() (KeyValueBytesStore::restore). So the
// directory always holds the state of the last commit: a crash or a close without commit loses
// exactly the uncommitted writes, and restoration resumes from committed_offset().
//
// RocksDB headers stay in rocksdb_store.cc; nothing here includes <rocksdb/...>.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>

#include "brook/internal/bytes_store.h"
#include "brook/status.h"

namespace brook::internal {

class RocksDbMemory;

struct RocksDbOptions {
  bool sync = false;  // fsync the WAL on every commit (survives a machine crash, not only ours)
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
