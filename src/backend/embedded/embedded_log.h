// The embedded log: Brook's default backend. A durable, partitioned, compacting log in a
// local data directory, locked by one process, with consumer groups and transactions.
// Everything about the on-disk format is in docs/log_format.md.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>

#include "backend/log_backend.h"

namespace brook::internal {

// How the log's producers batch records outside transactions (Kafka's producer settings
// batch.size and linger.ms): send() appends a partition's buffered records once they reach
// batch_bytes as the log encodes them; dispatch() appends everything buffered once the oldest
// record has waited `linger` (at once with 0); flush() appends everything. A transaction's records
// land at its commit.
struct ProducerBatching {
  std::size_t batch_bytes = std::size_t{1} << 20;
  std::chrono::milliseconds linger{0};
};

struct EmbeddedLogOptions {
  std::filesystem::path data_dir = "brook-data";
  bool fsync = false;  // fsync on flush and commit: durable against power loss, not only kill -9
  // How often retention and compaction run in the background; zero: never (call
  // run_maintenance() instead).
  std::chrono::milliseconds maintenance_interval = std::chrono::seconds(30);
  ProducerBatching batching;
};

class EmbeddedLog : public LogBackend {
 public:
  // Retention and compaction of every partition, now (deterministic tests).
  virtual Status run_maintenance(Timestamp now) = 0;
};

// Opens (creating if needed) the data dir. kFailedPrecondition if another process holds it.
// Finishes a transaction that a crash interrupted between commit and apply.
Result<std::unique_ptr<EmbeddedLog>> open_embedded_log(const EmbeddedLogOptions& options);

}  // namespace brook::internal
