#include "cdc/change_streamer.h"

#include <fmt/format.h>

#include <algorithm>

#include "cdc/pg_catalog.h"
#include "core/log.h"

namespace brook::internal {
namespace {

// Milliseconds between the Unix epoch and PostgreSQL's (2000-01-01).
constexpr std::int64_t kPostgresEpochMs = 946'684'800'000;
// How long a wait for the server's next message may be, so a stop request is seen promptly.
constexpr std::chrono::milliseconds kLongestWait{200};

}  // namespace

ChangeStreamer::ChangeStreamer(const PostgresSourceConfig& config, const ChangeRecords& records,
                               ChangeLogWriter& writer, const std::string& database)
    : config_(config),
      records_(records),
      writer_(writer),
      source_(records.source(database, /*snapshot=*/false)),
      last_status_(std::chrono::steady_clock::now()) {}

Status ChangeStreamer::stream(PgConnection& sql, ReplicationStream& stream,
                              const std::stop_token& stop) {
  using Clock = std::chrono::steady_clock;
  while (!stop.stop_requested()) {
    // Nothing waits in the log's transaction longer than it must: when the server has nothing
    // more at once, or the batch is full or old enough, it commits.
    const bool batch_open = writer_.in_transaction();
    auto message = stream.next(batch_open ? std::chrono::milliseconds(0) : kLongestWait);
    if (!message) return message.error();
    if (batch_open && (!*message || writer_.batch_changes() >= config_.max_batch_changes ||
                       Clock::now() - writer_.batch_start() >= config_.max_batch_delay)) {
      if (auto s = commit(stream); !s.ok()) return s;
    }
    if (*message) {
      if (const auto* change = std::get_if<WalChange>(&**message)) {
        auto decoded = decode_pgoutput(change->payload);
        if (!decoded) return decoded.error();
        if (auto s = on_message(sql, *decoded, change->lsn); !s.ok()) return s;
      } else {
        const auto& keepalive = std::get<WalKeepalive>(**message);
        // Between transactions, with the log holding everything read, the slot may move to
        // the server's end of WAL: what lies before it is nothing this publication sends.
        if (!transaction_ && !writer_.in_transaction()) {
          confirmable_ = std::max(confirmable_, keepalive.wal_end);
        }
        if (keepalive.reply_requested) {
          if (auto s = confirm(stream); !s.ok()) return s;
        }
      }
    }
    if (confirmable_ > confirmed_ || Clock::now() - last_status_ >= config_.status_interval) {
      if (auto s = confirm(stream); !s.ok()) return s;
    }
  }
  if (auto s = commit(stream); !s.ok()) return s;
  return confirm(stream);
}

Status ChangeStreamer::commit(ReplicationStream& stream) {
  if (auto s = writer_.commit(); !s.ok()) return s;
  confirmable_ = std::max(confirmable_, on_commit_);
  return confirm(stream);
}

Status ChangeStreamer::confirm(ReplicationStream& stream) {
  if (auto s = stream.confirm(confirmable_); !s.ok()) return s;
  confirmed_ = confirmable_;
  last_status_ = std::chrono::steady_clock::now();
  return Status();
}

Status ChangeStreamer::on_message(PgConnection& sql, const PgMessage& message, Lsn lsn) {
  if (const auto* begin = std::get_if<PgBegin>(&message)) {
    transaction_ = Transaction{.final_lsn = begin->final_lsn,
                               .xid = begin->xid,
                               .commit_ms = begin->commit_time_us / 1000 + kPostgresEpochMs};
    return Status();
  }
  if (const auto* commit = std::get_if<PgCommit>(&message)) {
    if (!transaction_) {
      return Status::corruption("cdc: a commit without its transaction's begin");
    }
    const SourcePosition done{.snapshot_done = true,
                              .commit_lsn = transaction_->final_lsn,
                              .changes = transaction_->changes,
                              .complete = true};
    if (writer_.in_transaction()) {
      writer_.advance(done);
      on_commit_ = commit->end_lsn;
    } else if (transaction_->changes > 0) {
      // Its last changes went out in a log transaction committed before this commit came
      // (the batch was full, or nothing more was there at once): that position says
      // incomplete, so a log transaction of the position alone follows.
      std::vector<ProducerRecord> none;
      if (auto s = writer_.write(none, 0, done); !s.ok()) return s;
      on_commit_ = commit->end_lsn;
    } else {
      confirmable_ = std::max(confirmable_, commit->end_lsn);
    }
    transaction_.reset();
    return Status();
  }
  if (const auto* relation = std::get_if<PgRelation>(&message)) {
    return on_relation(sql, *relation);
  }
  if (std::holds_alternative<PgType>(message) || std::holds_alternative<PgIgnored>(message)) {
    return Status();
  }
  return on_change(message, lsn);
}

Status ChangeStreamer::on_relation(PgConnection& sql, PgRelation relation) {
  // pgoutput marks the replica identity's columns (all of them under REPLICA IDENTITY FULL);
  // Debezium's key is the primary key.
  auto key = primary_key_columns(sql, relation.oid);
  if (!key) return key.error();
  for (auto& column : relation.columns) {
    column.key = std::find(key->begin(), key->end(), column.name) != key->end();
  }
  log(LogLevel::kDebug, "cdc: relation {}.{} (oid {}), {} columns", relation.schema, relation.table,
      relation.oid, relation.columns.size());
  relations_[relation.oid] = std::move(relation);
  return Status();
}

Status ChangeStreamer::on_change(const PgMessage& message, Lsn lsn) {
  if (!transaction_) return Status::corruption("cdc: a change outside a transaction");
  const std::int64_t index = ++transaction_->changes;
  if (writer_.written().covers(transaction_->final_lsn, index)) return Status();  // in the log

  auto relation_of = [&](std::uint32_t oid) -> Result<const PgRelation*> {
    auto it = relations_.find(oid);
    if (it == relations_.end()) {
      return error(Status::corruption(
          fmt::format("cdc: a change of relation {}, which the server has not described", oid)));
    }
    return &it->second;
  };
  source_.ts_ms = transaction_->commit_ms;
  source_.lsn = static_cast<std::int64_t>(lsn);
  source_.tx_id = transaction_->xid;
  const Timestamp timestamp(transaction_->commit_ms);
  out_.clear();
  auto append = [&](std::uint32_t oid, const RowChange& change) -> Status {
    auto relation = relation_of(oid);
    if (!relation) return relation.error();
    return records_.append(**relation, change, source_, timestamp, out_);
  };
  Status appended;
  if (const auto* insert = std::get_if<PgInsert>(&message)) {
    appended = append(insert->relation, {.op = ChangeOp::kCreate, .after = &insert->row});
  } else if (const auto* update = std::get_if<PgUpdate>(&message)) {
    appended = append(update->relation, {.op = ChangeOp::kUpdate,
                                         .before = update->old_row ? &*update->old_row : nullptr,
                                         .before_is_key = update->old_is_key,
                                         .after = &update->row});
  } else if (const auto* deleted = std::get_if<PgDelete>(&message)) {
    appended = append(deleted->relation, {.op = ChangeOp::kDelete,
                                          .before = &deleted->old_row,
                                          .before_is_key = deleted->old_is_key});
  } else if (const auto* truncate = std::get_if<PgTruncate>(&message)) {
    for (auto oid : truncate->relations) {
      appended = append(oid, {.op = ChangeOp::kTruncate});
      if (!appended.ok()) break;
    }
  }
  if (!appended.ok()) return appended;
  return writer_.write(out_, 1,
                       SourcePosition{.snapshot_done = true,
                                      .commit_lsn = transaction_->final_lsn,
                                      .changes = index,
                                      .complete = false});
}

}  // namespace brook::internal
