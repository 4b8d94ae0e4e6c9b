// Writes the PostgreSQL source's records to the log in transactions, each ending with the
// source's position (source_position.h): what a transaction commits is exactly what its
// position counts.
#pragma once

#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backend/log_backend.h"
#include "brook/postgres_source.h"
#include "cdc/source_position.h"

namespace brook::internal {

class ChangeLogWriter {
 public:
  // A transactional producer (id "brook-cdc-<slot>": a newer source of the slot fences an
  // older one out) whose transactions may stay open `transaction_timeout` (zero: the log's
  // default), and the offsets topic, created if missing (compacted, one partition).
  static Result<ChangeLogWriter> open(
      LogBackend& log, const PostgresSourceConfig& config, SourcePosition committed,
      std::chrono::milliseconds transaction_timeout = std::chrono::milliseconds(0));

  // Sends `records` (of `changes` changes) in the open transaction, beginning one if none is
  // open; `written` is the position once they are in. Creates each topic on its first use,
  // with config.partitions partitions (a topic that exists is used as it is).
  Status write(std::vector<ProducerRecord>& records, std::int64_t changes,
               const SourcePosition& written);
  // Notes that the position moved without records (the commit of a transaction whose
  // changes are all sent): committed with the open transaction, if any.
  void advance(const SourcePosition& written) { written_ = written; }

  // Whether a transaction is open, how many changes it holds and since when.
  bool in_transaction() const { return in_transaction_; }
  std::int64_t batch_changes() const { return batch_changes_; }
  std::chrono::steady_clock::time_point batch_start() const { return batch_start_; }

  // Commits the open transaction with the position record (nothing to do if none is open).
  Status commit();
  // Aborts the open transaction: its records are discarded and the position goes back to the
  // last committed one.
  Status abort();

  const SourcePosition& committed() const { return committed_; }
  const SourcePosition& written() const { return written_; }

 private:
  ChangeLogWriter(LogBackend& log, const PostgresSourceConfig& config,
                  std::unique_ptr<Producer> producer, SourcePosition committed);
  Status create_topic(const std::string& topic);

  LogBackend* log_;
  std::string slot_;
  std::string offsets_topic_;
  std::int32_t partitions_;
  std::unique_ptr<Producer> producer_;
  std::set<std::string> topics_;  // created or found
  SourcePosition committed_;
  SourcePosition written_;
  bool in_transaction_ = false;
  std::int64_t batch_changes_ = 0;
  std::chrono::steady_clock::time_point batch_start_;
};

}  // namespace brook::internal
