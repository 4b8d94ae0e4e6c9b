#include "cdc/change_records.h"

#include <algorithm>

#include "cdc/pg_value.h"
#include "core/wall_clock.h"

namespace brook::internal {
namespace {

bool has_key(const PgRelation& relation) {
  return std::any_of(relation.columns.begin(), relation.columns.end(),
                     [](const PgColumn& column) { return column.key; });
}

std::string topic_safe(std::string_view name) {
  std::string safe(name);
  for (char& c : safe) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!allowed) c = '_';
  }
  return safe;
}

}  // namespace

std::string ChangeRecords::topic(const PgRelation& relation) const {
  return topic_safe(topic_prefix_ + "." + relation.schema + "." + relation.table);
}

Status ChangeRecords::append(const PgRelation& relation, const RowChange& change,
                             ChangeSource& source, Timestamp timestamp,
                             std::vector<ProducerRecord>& out) const {
  source.schema.assign(relation.schema);
  source.table.assign(relation.table);
  const std::int64_t handled_ms = wall_clock_ms();
  // A row's JSON text, empty for none.
  auto json_of = [&](const PgTuple* row, bool key_only) -> Result<std::string> {
    if (row == nullptr) return std::string();
    return pg_row_json(relation, *row, key_only);
  };
  // The key of a row: the object of its key columns, or none.
  auto key_of = [&](const PgTuple* row) -> Result<std::optional<std::string>> {
    if (row == nullptr || !has_key(relation)) return std::optional<std::string>();
    auto key = json_of(row, /*key_only=*/true);
    if (!key) return error(key.error());
    return std::optional<std::string>(std::move(*key));
  };
  auto before = json_of(change.before, /*key_only=*/false);
  if (!before) return before.error();
  auto after = json_of(change.after, /*key_only=*/false);
  if (!after) return after.error();
  auto old_key = key_of(change.before);
  if (!old_key) return old_key.error();
  auto new_key = key_of(change.after);
  if (!new_key) return new_key.error();

  const std::string topic = this->topic(relation);
  auto emit = [&](const std::optional<std::string>& key, ChangeOp op, std::string_view old_row,
                  std::string_view new_row) {
    out.push_back(
        ProducerRecord{.topic = topic,
                       .timestamp = timestamp,
                       .key = key,
                       .value = write_debezium_envelope(op, old_row, new_row, source, handled_ms)});
  };
  auto tombstone = [&](const std::optional<std::string>& key) {
    if (key) out.push_back(ProducerRecord{.topic = topic, .timestamp = timestamp, .key = key});
  };

  switch (change.op) {
    case ChangeOp::kDelete:  // the event under the old key, then its tombstone
      emit(*old_key, ChangeOp::kDelete, *before, "");
      tombstone(*old_key);
      return Status();
    case ChangeOp::kUpdate:
      if (change.before != nullptr && *old_key != *new_key) {
        emit(*old_key, ChangeOp::kDelete, *before, "");
        tombstone(*old_key);
        emit(*new_key, ChangeOp::kCreate, "", *after);
      } else {
        emit(*new_key, ChangeOp::kUpdate, *before, *after);
      }
      return Status();
    case ChangeOp::kCreate:
    case ChangeOp::kRead:
    case ChangeOp::kTruncate: emit(*new_key, change.op, *before, *after); return Status();
  }
  return Status();
}

}  // namespace brook::internal
