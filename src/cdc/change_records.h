// A PostgreSQL row change as the records Debezium's PostgreSQL connector writes for it: the
// change event (brook/change_event.h's envelope, without the schema part) keyed by the row's
// primary key, to the topic `<prefix>.<schema>.<table>`, and after a delete the tombstone
// that lets compaction forget the key.
#pragma once

#include <string>
#include <vector>

#include "brook/change_event.h"
#include "brook/record.h"
#include "cdc/pgoutput.h"

namespace brook::internal {

// One row change. `before`: the old row of an update or delete (only the key columns when
// `before_is_key`: the table's replica identity is not FULL), or null. `after`: the new row
// of a create, read or update, or null.
struct RowChange {
  ChangeOp op = ChangeOp::kCreate;
  const PgTuple* before = nullptr;
  bool before_is_key = false;
  const PgTuple* after = nullptr;
};

class ChangeRecords {
 public:
  // Topics are named `<topic_prefix>.<schema>.<table>`.
  explicit ChangeRecords(std::string topic_prefix) : topic_prefix_(std::move(topic_prefix)) {}

  // `<prefix>.<schema>.<table>`, with every character a topic name cannot hold (anything but
  // ASCII letters, digits, '.', '_' and '-') replaced by '_', as Debezium does.
  std::string topic(const PgRelation& relation) const;

  // The `source` block of the changes of `database`, from its snapshot or not; the change's
  // time, LSN, transaction, schema and table are set per change.
  ChangeSource source(const std::string& database, bool snapshot) const {
    return {.connector = "postgresql",
            .name = topic_prefix_,
            .db = database,
            .snapshot = snapshot ? "true" : "false"};
  }

  // Appends the records of `change` to `out`, dated `timestamp`, with `source` (the change's
  // origin; its schema and table are set here to the relation's, reusing its strings, so a
  // caller keeps one source for every change): the event, and after a
  // delete its tombstone. An update that changes the primary key is, as in Debezium, a delete
  // of the old key, its tombstone, and a create under the new one. The key is the object of
  // the relation's key columns (`PgColumn::key`), null when it has none (a truncate, a table
  // without a primary key). kCorruption if a value cannot be read as its column's type.
  Status append(const PgRelation& relation, const RowChange& change, ChangeSource& source,
                Timestamp timestamp, std::vector<ProducerRecord>& out) const;

 private:
  std::string topic_prefix_;
};

}  // namespace brook::internal
