#include "cdc/change_records.h"

#include <algorithm>
#include <chrono>

#include "cdc/pg_value.h"

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

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::string ChangeRecords::topic(const PgRelation& relation) const {
  return topic_safe(topic_prefix_ + "." + relation.schema + "." + relation.table);
}

Status ChangeRecords::append(const PgRelation& relation, const RowChange& change,
                             Timestamp timestamp, std::vector<ProducerRecord>& out) const {
  DebeziumEnvelope envelope{.op = change.op, .source = change.source, .ts_ms = now_ms()};
  envelope.source.schema = relation.schema;
  envelope.source.table = relation.table;
  // The key of a row: the object of its key columns, or none.
  auto key_of = [&](const PgTuple* row) -> Result<std::optional<std::string>> {
    if (row == nullptr || !has_key(relation)) return std::optional<std::string>();
    auto key = pg_row_to_json(relation, *row, /*key_only=*/true);
    if (!key) return error(key.error());
    return std::optional<std::string>(key->dump());
  };
  if (change.before != nullptr) {
    auto before = pg_row_to_json(relation, *change.before, /*key_only=*/false);
    if (!before) return before.error();
    envelope.before = std::move(*before);
  }
  if (change.after != nullptr) {
    auto after = pg_row_to_json(relation, *change.after, /*key_only=*/false);
    if (!after) return after.error();
    envelope.after = std::move(*after);
  }
  auto old_key = key_of(change.before);
  if (!old_key) return old_key.error();
  auto new_key = key_of(change.after);
  if (!new_key) return new_key.error();

  const std::string topic = this->topic(relation);
  auto emit = [&](const std::optional<std::string>& key, std::optional<std::string> value) {
    out.push_back(ProducerRecord{
        .topic = topic, .timestamp = timestamp, .key = key, .value = std::move(value)});
  };
  // A delete: the event under the old key, then its tombstone.
  auto emit_delete = [&](const std::optional<std::string>& key, const DebeziumEnvelope& event) {
    emit(key, write_debezium_envelope(event));
    if (key) emit(key, std::nullopt);
  };

  switch (change.op) {
    case ChangeOp::kDelete: emit_delete(*old_key, envelope); return Status();
    case ChangeOp::kUpdate:
      if (change.before != nullptr && *old_key != *new_key) {
        DebeziumEnvelope deleted = envelope;
        deleted.op = ChangeOp::kDelete;
        deleted.after = nullptr;
        emit_delete(*old_key, deleted);
        envelope.op = ChangeOp::kCreate;
        envelope.before = nullptr;
      }
      emit(*new_key, write_debezium_envelope(envelope));
      return Status();
    case ChangeOp::kCreate:
    case ChangeOp::kRead: emit(*new_key, write_debezium_envelope(envelope)); return Status();
    case ChangeOp::kTruncate:
      emit(std::nullopt, write_debezium_envelope(envelope));
      return Status();
  }
  return Status();
}

}  // namespace brook::internal
