// TransactionLog: makes a committed transaction land whole, even across kill -9.
//
// commit_transaction() writes one entry (every record with the offset it must get, and the
// consumer offsets) to `<data>/transactions.wal`, then applies it to the partitions and the
// offset store, then empties the file. On open, an entry still in the file was committed but
// perhaps not fully applied: its missing records are appended and its offsets committed
// again (both idempotent, as long as nothing else was written to its partitions since: the
// embedded log accepts no write after a commit that failed past its entry). A torn entry (a prefix
// of one: its write did not finish) was never acknowledged: it is discarded, which is exactly an
// abort, with a warning naming its transactional id if the header is whole. A whole entry that
// fails its checks was damaged: kCorruption naming the file.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/embedded/partition_log.h"
#include "backend/embedded/pending_records.h"
#include "backend/log_backend.h"

namespace brook::internal {

struct TransactionEntry {
  std::string transactional_id;  // of the producer that commits it, for what is logged
  struct Batch {
    Offset base;  // the offset the first record gets
    PendingRecords records;
  };
  std::map<TopicPartition, Batch> batches;
  std::map<std::string, std::map<TopicPartition, OffsetAndMetadata>> offsets;  // per group
};

// The entry in `payload` (an entry's bytes after its header and transactional id, whose
// checksum matched), without its transactional id; kCorruption naming `file` unless the bytes
// parse exactly.
Result<TransactionEntry> decode_transaction_payload(std::string_view payload,
                                                    const std::string& file);

class TransactionLog {
 public:
  static Result<std::unique_ptr<TransactionLog>> open(std::filesystem::path data_dir, bool fsync);
  ~TransactionLog();

  // The entry left by a crash after write() and before clear(), if any (none if the write
  // did not finish; logged at WARN).
  Result<std::optional<TransactionEntry>> pending() const;
  // Replaces what the file holds with `entry`. Durable against a killed process when it
  // returns (and against power loss with fsync).
  Status write(const TransactionEntry& entry);
  // Empties the file; durable against power loss when it returns with fsync.
  Status clear();

 private:
  Status truncate();  // without an fsync

  TransactionLog(std::filesystem::path path, int fd, bool fsync)
      : path_(std::move(path)), fd_(fd), fsync_(fsync) {}

  std::filesystem::path path_;
  int fd_;
  bool fsync_;
};

}  // namespace brook::internal
