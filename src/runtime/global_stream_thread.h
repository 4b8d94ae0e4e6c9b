// GlobalStreamThread: keeps an application instance's global stores up to date (Kafka Streams'
// GlobalStreamThread). It reads every partition of every global topic with a consumer of its
// own (manual assignment, no group): first to the end offsets it found at start (the
// restoration: stream threads wait for it behind a GlobalGate), then on, as records arrive.
// A RocksDB global store commits, with its data, the next offset of each partition; a restart
// resumes there (an in-memory store reads from the beginning).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "backend/log_backend.h"
#include "brook/restore_listener.h"
#include "runtime/global_state.h"
#include "runtime/streams_config.h"

namespace brook::internal {

// What the stream threads wait on before they join the group: open once the global stores are
// restored, or failed with the error that stopped the global thread. Thread-safe.
class GlobalGate {
 public:
  void open();
  void fail(Status status);
  // Waits up to `timeout` for the gate to open or fail; true if it did.
  bool wait(std::chrono::milliseconds timeout) const;
  // Ok unless the global thread failed.
  Status status() const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool open_ = false;
  Status failure_;
  std::atomic<bool> failed_ = false;
};

class GlobalStreamThread final : public RecordCollector {
 public:
  // Called on the global thread when it stops with an error.
  using FailureListener = std::function<void(const Status&)>;

  GlobalStreamThread(const StreamsConfig& config, std::shared_ptr<const TopologyData> topology,
                     LogBackend& backend, Metrics& metrics, StateConfig state,
                     std::shared_ptr<StateRestoreListener> restore_listener,
                     FailureListener on_failure);
  ~GlobalStreamThread() override;

  // Opens the global stores and the clients; starts the thread.
  Status start();
  // The stores, for the tasks (valid after start()).
  const GlobalStores& stores() const { return stores_; }
  std::shared_ptr<const GlobalGate> gate() const { return gate_; }
  void request_stop() { stop_.store(true); }
  // Waits for the thread to end and closes the stores; the error that stopped it, if any.
  Status join();

  // RecordCollector: dead-lettered records.
  void send(const std::string& topic, const OutgoingRecord& record) override;
  Result<std::int32_t> partitions(const std::string& topic) override {
    return producer_->partitions(topic);
  }

 private:
  void run();
  Status loop();
  // Reads one batch and applies it; commits the stores if `commit`.
  Status step(std::chrono::milliseconds wait, bool commit);
  Status commit();

  const StreamsConfig& config_;
  std::shared_ptr<const TopologyData> topology_;
  LogBackend& backend_;
  Metrics& metrics_;
  StateConfig state_;
  std::shared_ptr<StateRestoreListener> restore_listener_;
  FailureListener on_failure_;
  std::shared_ptr<GlobalGate> gate_ = std::make_shared<GlobalGate>();

  GlobalStores stores_;
  std::unique_ptr<GlobalStateUpdater> updater_;
  std::unique_ptr<Consumer> consumer_;
  std::unique_ptr<Producer> producer_;  // dead letters only
  std::vector<TopicPartition> partitions_;
  bool dirty_ = false;  // records applied since the last commit
  std::chrono::steady_clock::time_point last_commit_;
  Status fatal_;
  std::atomic<bool> stop_ = false;
  std::thread thread_;
  Status result_;
};

}  // namespace brook::internal
