#include "cdc/snapshot.h"

#include <fmt/format.h>

#include "cdc/pg_catalog.h"
#include "cdc/replication_stream.h"
#include "core/log.h"
#include "core/wall_clock.h"

namespace brook::internal {
namespace {

constexpr int kFetchRows = 5'000;

// Writes every row of `relation` as of the transaction's snapshot, counting them in `rows`;
// stops early when a stop is requested.
Status read_table(PgConnection& sql, const PgRelation& relation, ChangeSource& source,
                  const ChangeRecords& records, ChangeLogWriter& writer,
                  const std::stop_token& stop, std::int64_t& rows) {
  std::string columns;
  for (const auto& column : relation.columns) {
    columns += (columns.empty() ? "" : ", ") + sql.quote_identifier(column.name);
  }
  const std::string table =
      sql.quote_identifier(relation.schema) + "." + sql.quote_identifier(relation.table);
  if (auto s = sql.execute("read " + table,
                           fmt::format("DECLARE brook_snapshot NO SCROLL CURSOR FOR SELECT {} FROM "
                                       "ONLY {}",
                                       columns, table));
      !s.ok()) {
    return s;
  }
  const Timestamp timestamp(source.ts_ms);
  std::vector<ProducerRecord> out;
  while (!stop.stop_requested()) {
    auto batch =
        sql.query("read " + table, fmt::format("FETCH FORWARD {} FROM brook_snapshot", kFetchRows));
    if (!batch) return batch.error();
    if (batch->rows.empty()) break;
    for (const auto& row : batch->rows) {
      PgTuple tuple;
      tuple.reserve(row.size());
      for (const auto& value : row) {
        tuple.push_back(value ? PgValue{.kind = PgValue::Kind::kText, .text = *value}
                              : PgValue{.kind = PgValue::Kind::kNull});
      }
      out.clear();
      if (auto s = records.append(relation, {.op = ChangeOp::kRead, .after = &tuple}, source,
                                  timestamp, out);
          !s.ok()) {
        return s;
      }
      SourcePosition position = writer.written();
      if (auto s = writer.write(out, 1, position); !s.ok()) return s;
      ++rows;
    }
  }
  return sql.execute("read " + table, "CLOSE brook_snapshot");
}

}  // namespace

Result<SourcePosition> take_snapshot(PgConnection& sql, const PostgresSourceConfig& config,
                                     const ChangeRecords& records, LogBackend& backend,
                                     std::stop_token stop) {
  auto writer =
      ChangeLogWriter::open(backend, config, SourcePosition{}, kSnapshotTransactionTimeout);
  if (!writer) return error(writer.error());
  auto replication = PgConnection::connect(config.dsn, PgConnection::Kind::kReplication);
  if (!replication) return error(replication.error());
  auto slot = replication->query(
      "create the replication slot",
      fmt::format("CREATE_REPLICATION_SLOT {} LOGICAL pgoutput (SNAPSHOT 'export')",
                  replication->quote_identifier(config.slot)));
  if (!slot) return error(slot.error());
  const auto& created = slot->rows.at(0);
  auto consistent_point = parse_lsn(created.at(1).value_or(""));
  if (!consistent_point) return error(consistent_point.error());
  const std::string snapshot_name = created.at(2).value_or("");
  log(LogLevel::kInfo, "cdc: created slot {} at {}; snapshot {}", config.slot,
      lsn_text(*consistent_point), snapshot_name);

  if (auto s =
          sql.execute("begin the snapshot", "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
      !s.ok()) {
    return error(s);
  }
  if (auto s = sql.execute("import the snapshot",
                           "SET TRANSACTION SNAPSHOT " + sql.quote_literal(snapshot_name));
      !s.ok()) {
    return error(s);
  }
  auto tables = publication_tables(sql, config.publication);
  if (!tables) return error(tables.error());
  ChangeSource source = records.source(sql.database(), /*snapshot=*/true);
  source.ts_ms = wall_clock_ms();
  source.lsn = static_cast<std::int64_t>(*consistent_point);
  std::int64_t rows = 0;
  for (const auto& table : *tables) {
    auto relation = describe_relation(sql, table.oid);
    if (!relation) return error(relation.error());
    if (auto s = read_table(sql, *relation, source, records, *writer, stop, rows); !s.ok()) {
      return error(s);
    }
    if (stop.stop_requested()) {
      if (auto s = writer->abort(); !s.ok()) return error(s);
      return writer->committed();
    }
  }
  if (auto s = sql.execute("end the snapshot", "COMMIT"); !s.ok()) return error(s);
  std::vector<ProducerRecord> none;
  if (auto s = writer->write(
          none, 0,
          SourcePosition{.snapshot_done = true, .commit_lsn = *consistent_point, .complete = true});
      !s.ok()) {
    return error(s);
  }
  if (auto s = writer->commit(); !s.ok()) return error(s);
  log(LogLevel::kInfo, "cdc: snapshot of {} tables, {} rows, written", tables->size(), rows);
  return writer->committed();
}

}  // namespace brook::internal
