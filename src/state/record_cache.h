// The record cache of one stream thread (DESIGN.md, state layer; Kafka Streams' ThreadCache):
// one memory budget (statestore.cache.max.bytes divided among the threads) shared by the
// caching stores of all the thread's tasks, and the eviction that keeps them within it.
//
// Every byte is charged: each entry's heap block at its real size, each store's index
// (state/cache_table.h) and ordered index. When an insertion would go over the budget, the
// cache evicts in a batch, down to 15/16 of the budget, with a clock sweep (an entry used
// since the sweep last passed it is spared once): first clean entries, of every store in turn
// (dropping them costs no write; after a commit they are the ones not updated since), then
// the entries of the store that asked for room, dirty ones written down first (its flush
// listener runs downstream nodes), then clean ones again. Another store's dirty entries are
// never written down for it. While a write-down runs downstream nodes, what they evict is
// clean only, so write-downs never nest.
// Single-threaded, like its stores.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "brook/status.h"

namespace brook::internal {

class CachingStore;

class RecordCache {
 public:
  explicit RecordCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}
  RecordCache(const RecordCache&) = delete;
  RecordCache& operator=(const RecordCache&) = delete;

  std::size_t max_bytes() const { return max_bytes_; }
  std::size_t used_bytes() const { return used_bytes_; }
  bool fits(std::size_t extra) const { return used_bytes_ + extra <= max_bytes_; }

  // Called by the caching stores as their memory changes.
  void charge(std::size_t bytes) { used_bytes_ += bytes; }
  void release(std::size_t bytes) { used_bytes_ -= bytes; }
  void add(CachingStore& store);
  void remove(CachingStore& store);

  // Evicts until `need()` more bytes fit (see above; asked again after each eviction, as an
  // insertion's need may shrink with its store); the status of a failed write-down. May not
  // make room (everything left is dirty in other stores, pinned, or too small a budget):
  // check fits() after.
  Status make_room(CachingStore& requester, const std::function<std::size_t()>& need);

  // True while a write-down runs downstream nodes.
  bool writing_down() const { return write_downs_ > 0; }
  // Marks a write-down for its lifetime.
  class WriteDown {
   public:
    explicit WriteDown(RecordCache& cache) : cache_(cache) { ++cache_.write_downs_; }
    ~WriteDown() { --cache_.write_downs_; }
    WriteDown(const WriteDown&) = delete;
    WriteDown& operator=(const WriteDown&) = delete;

   private:
    RecordCache& cache_;
  };

 private:
  std::size_t max_bytes_;
  std::size_t used_bytes_ = 0;
  std::vector<CachingStore*> stores_;
  std::size_t next_store_ = 0;  // where the next sweep starts
  int write_downs_ = 0;
};

}  // namespace brook::internal
