// TaskStores: the state stores of one task (Kafka Streams' ProcessorStateManager). Opens the
// stores its sub-topology uses, each in <state dir>/<task>/<store>, registers them for
// queries, and flushes and commits them with the task.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "brook/internal/topology_data.h"
#include "brook/metrics.h"
#include "runtime/local_store.h"
#include "runtime/store_registry.h"

namespace brook::internal {

// What an application instance gives its tasks for their stores.
struct StateConfig {
  std::filesystem::path dir;                      // <state.dir>/<application.id>
  std::shared_ptr<RocksDbMemory> rocksdb_memory;  // shared by all RocksDB stores
  bool sync = false;                              // fsync RocksDB's log on commit
  std::shared_ptr<RecordCache> cache;             // the record cache of the task's thread
  // The lock of the stores sharing `cache` (LocalStore); null: a lock per store.
  std::shared_ptr<std::recursive_mutex> cache_lock;
  StoreRegistry* registry = nullptr;  // where queries find the stores, if any
  bool standby = false;               // the stores are a standby replica's (for the registry)
  Metrics* metrics = nullptr;         // where the stores' sensors go, if anywhere
  bool debug_metrics = false;         // metrics.recording.level=DEBUG: get and put latency too
  std::string thread_id;              // the thread running the task, as the sensors tag it
  // The instance's global stores (opened and fed by the global thread), by name: every task
  // reads them; a task opens no store of its own for them.
  std::map<std::string, std::shared_ptr<LocalStore>, std::less<>> global_stores;
};

class TaskStores {
 public:
  // Sends one changelog record (to the task's collector).
  using Send = std::function<void(const std::string& topic, const OutgoingRecord& record)>;

  TaskStores(TaskId task, StateConfig config) : task_(task), config_(std::move(config)) {}
  ~TaskStores() { close(); }

  // Opens every store the nodes of the task's sub-topology use (those `keep` accepts, if
  // given), in the order of their first user (so upstream caches flush first). `now` gives
  // changelog records their timestamp.
  Status open(const TopologyData& topology, std::string_view application_id, Send send,
              std::function<Timestamp()> now,
              const std::function<bool(const StoreSpec&)>& keep = {});
  // The task's store `name`, or else the global store `name`; null if neither exists.
  LocalStore* find(std::string_view name) const;
  const std::vector<std::shared_ptr<LocalStore>>& stores() const { return stores_; }

  // Flushes the record caches (their updates go downstream and to the changelogs).
  Status flush();
  // Commits every store written since the last commit, a logged one with the end offset of
  // its changelog partition (`end_of`), after the changelog writes themselves committed.
  Status commit(const std::function<Result<Offset>(const TopicPartition&)>& end_of);
  // Closes every store (dirty: writes since the last commit are lost) and unregisters it.
  void close();

 private:
  TaskId task_;
  StateConfig config_;
  std::vector<std::shared_ptr<LocalStore>> stores_;
};

}  // namespace brook::internal
