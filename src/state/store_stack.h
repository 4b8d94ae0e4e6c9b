// Builds the decorator stack of one store of one task from its spec:
//   metering (if DEBUG metrics) -> record cache (if caching and there is a cache)
//   -> change logging (if logging) -> in-memory | RocksDB,
// with a SegmentedStore above the bottom store for window and session stores (it is then
// the `bottom` restoration writes to: it translates their keys).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "brook/internal/store_spec.h"
#include "state/caching_store.h"
#include "state/change_logging_store.h"
#include "state/record_cache.h"
#include "state/rocksdb/rocksdb_store.h"

namespace brook::internal {

struct StoreStack {
  std::unique_ptr<KeyValueBytesStore> top;
  KeyValueBytesStore* bottom = nullptr;  // where restoration writes, below cache and log
};

struct StoreEnvironment {
  std::filesystem::path dir;                      // this store's directory (RocksDB)
  std::shared_ptr<RocksDbMemory> rocksdb_memory;  // shared by the instance's RocksDB stores
  bool sync = false;                              // fsync RocksDB's log on every commit
  std::shared_ptr<RecordCache> cache;             // the task thread's record cache, or null
  ChangeLoggingStore::Log log;                    // where changelog records go (if logging)
  // Where the store's sensors go (null: none), tagged with `metric_tags` (thread and task): the
  // record cache's hit ratio, and with `debug_metrics` (metrics.recording.level=DEBUG) the
  // latency of every get and put.
  Metrics* metrics = nullptr;
  std::map<std::string, std::string> metric_tags;
  bool debug_metrics = false;
};

// Opens the store; an error names the store and what failed.
Result<StoreStack> open_store_stack(const StoreSpec& spec, const StoreEnvironment& env);

}  // namespace brook::internal
