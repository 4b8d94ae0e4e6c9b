#include "cdc/pg_catalog.h"

#include <fmt/format.h>

#include <charconv>

#include "cdc/replication_stream.h"

namespace brook::internal {
namespace {

template <class Int>
Int number(const std::optional<std::string>& text) {
  Int value{};
  if (text) std::from_chars(text->data(), text->data() + text->size(), value);
  return value;
}

bool is_true(const std::optional<std::string>& text) { return text && *text == "t"; }

}  // namespace

Status check_source_preconditions(PgConnection& sql, const std::string& publication) {
  auto facts = sql.query("check the server",
                         "SELECT current_setting('wal_level'), current_user,"
                         " (SELECT rolreplication OR rolsuper FROM pg_roles"
                         "  WHERE rolname = current_user),"
                         " EXISTS (SELECT 1 FROM pg_publication WHERE pubname = $1)",
                         {publication});
  if (!facts) return facts.error();
  const auto& row = facts->rows.at(0);
  std::vector<std::string> problems;
  if (row[0] != "logical") {
    problems.push_back(fmt::format(
        "wal_level is {}, not logical: set wal_level = logical in postgresql.conf and restart "
        "the server",
        row[0].value_or("unknown")));
  }
  if (!is_true(row[2])) {
    problems.push_back(fmt::format(
        "user {} may not replicate: ALTER ROLE {} REPLICATION (or connect as a superuser)",
        row[1].value_or(""), row[1].value_or("")));
  }
  if (!is_true(row[3])) {
    problems.push_back(fmt::format(
        "publication {} does not exist: CREATE PUBLICATION {} FOR TABLE ... (or FOR ALL TABLES)",
        publication, publication));
  } else {
    auto denied = sql.query("check the publication's tables",
                            "SELECT schemaname, tablename FROM pg_publication_tables"
                            " WHERE pubname = $1 AND NOT has_table_privilege("
                            "  format('%I.%I', schemaname, tablename), 'SELECT')"
                            " ORDER BY 1, 2",
                            {publication});
    if (!denied) return denied.error();
    for (const auto& table : denied->rows) {
      problems.push_back(fmt::format("user {} may not SELECT from {}.{} (of publication {})",
                                     row[1].value_or(""), table[0].value_or(""),
                                     table[1].value_or(""), publication));
    }
  }
  if (problems.empty()) return Status();
  std::string message = "postgres: the source cannot run:";
  for (const auto& problem : problems) message += "\n  " + problem;
  return Status::failed_precondition(std::move(message));
}

Result<std::vector<PgRelation>> publication_tables(PgConnection& sql,
                                                   const std::string& publication) {
  auto rows = sql.query("list the publication's tables",
                        "SELECT format('%I.%I', schemaname, tablename)::regclass::oid,"
                        " schemaname, tablename FROM pg_publication_tables WHERE pubname = $1"
                        " ORDER BY 2, 3",
                        {publication});
  if (!rows) return error(rows.error());
  std::vector<PgRelation> tables;
  for (const auto& row : rows->rows) {
    tables.push_back(PgRelation{.oid = number<std::uint32_t>(row[0]),
                                .schema = row[1].value_or(""),
                                .table = row[2].value_or("")});
  }
  return tables;
}

Result<std::vector<std::string>> primary_key_columns(PgConnection& sql, std::uint32_t oid) {
  auto rows = sql.query("read a primary key",
                        "SELECT a.attname FROM pg_index i JOIN pg_attribute a"
                        " ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)"
                        " WHERE i.indrelid = $1::oid AND i.indisprimary ORDER BY a.attnum",
                        {std::to_string(oid)});
  if (!rows) return error(rows.error());
  std::vector<std::string> columns;
  for (const auto& row : rows->rows) columns.push_back(row[0].value_or(""));
  return columns;
}

Result<PgRelation> describe_relation(PgConnection& sql, std::uint32_t oid) {
  auto rows =
      sql.query("describe a table",
                "SELECT n.nspname, c.relname, c.relreplident, a.attname, a.atttypid, a.atttypmod,"
                " COALESCE(a.attnum = ANY(i.indkey), false)"
                " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped"
                " LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary"
                " WHERE c.oid = $1::oid ORDER BY a.attnum",
                {std::to_string(oid)});
  if (!rows) return error(rows.error());
  if (rows->rows.empty()) {
    return error(Status::not_found(fmt::format("postgres: no table has oid {}", oid)));
  }
  const auto& first = rows->rows.front();
  PgRelation relation{.oid = oid,
                      .schema = first[0].value_or(""),
                      .table = first[1].value_or(""),
                      .replica_identity = first[2].value_or("d").front()};
  for (const auto& row : rows->rows) {
    relation.columns.push_back(PgColumn{.name = row[3].value_or(""),
                                        .type_oid = number<std::uint32_t>(row[4]),
                                        .type_modifier = number<std::int32_t>(row[5]),
                                        .key = is_true(row[6])});
  }
  return relation;
}

Result<std::optional<SlotState>> find_slot(PgConnection& sql, const std::string& slot) {
  auto rows = sql.query("look up the replication slot",
                        "SELECT plugin, database, active, confirmed_flush_lsn"
                        " FROM pg_replication_slots WHERE slot_name = $1",
                        {slot});
  if (!rows) return error(rows.error());
  if (rows->rows.empty()) return std::optional<SlotState>();
  const auto& row = rows->rows.front();
  SlotState state{
      .plugin = row[0].value_or(""), .database = row[1].value_or(""), .active = is_true(row[2])};
  if (row[3]) {
    auto lsn = parse_lsn(*row[3]);
    if (!lsn) return error(lsn.error());
    state.confirmed_flush = *lsn;
  }
  return std::optional<SlotState>(state);
}

}  // namespace brook::internal
