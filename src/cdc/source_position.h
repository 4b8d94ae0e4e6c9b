// How far the PostgreSQL source has written a slot's changes to the log. It is a record of the
// offsets topic (compacted, keyed by the slot's name), written in the same log transaction as
// the changes it counts, so the log and the position can never disagree: after a crash the
// source skips exactly what the log already holds of what PostgreSQL sends again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "backend/log_backend.h"
#include "cdc/pgoutput.h"

namespace brook::internal {

struct SourcePosition {
  // The initial snapshot is entirely in the log. Until then, a restart redoes it.
  bool snapshot_done = false;
  // The transaction written last, in part or whole, by its commit LSN (pgoutput's
  // Begin.final_lsn; the snapshot's consistent point once the snapshot is done), and how many
  // of its changes (inserts, updates, deletes, truncates) are written; `complete`: all.
  Lsn commit_lsn = 0;
  std::int64_t changes = 0;
  bool complete = true;

  // Whether the `index`-th change (1-based) of the transaction committed at `final_lsn` is
  // already written.
  bool covers(Lsn final_lsn, std::int64_t index) const {
    return final_lsn < commit_lsn || (final_lsn == commit_lsn && (complete || index <= changes));
  }
  friend bool operator==(const SourcePosition&, const SourcePosition&) = default;
};

// The offsets topic's record of `slot` at `position`.
ProducerRecord position_record(const std::string& topic, const std::string& slot,
                               const SourcePosition& position);

// The latest committed position of `slot` in the offsets topic `topic` (one partition, read
// to its end, read_committed); nullopt if it holds none or does not exist. kCorruption if the
// record cannot be read.
Result<std::optional<SourcePosition>> read_position(LogBackend& log, const std::string& topic,
                                                    const std::string& slot);

}  // namespace brook::internal
