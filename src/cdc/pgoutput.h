// The messages of PostgreSQL's pgoutput plugin (logical replication protocol version 1, values
// in text form), decoded from the payload of one XLogData message. The format is PostgreSQL's
// "Logical Replication Message Formats"; integers are big-endian, strings NUL-terminated.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "brook/status.h"

namespace brook::internal {

// A position in the WAL.
using Lsn = std::uint64_t;

struct PgBegin {
  Lsn final_lsn = 0;                // the LSN of the transaction's commit record
  std::int64_t commit_time_us = 0;  // microseconds since 2000-01-01 (PostgreSQL's epoch)
  std::uint32_t xid = 0;
};
struct PgCommit {
  Lsn commit_lsn = 0;  // equals the Begin's final_lsn
  Lsn end_lsn = 0;     // the end of the commit record: where the slot may move past it
  std::int64_t commit_time_us = 0;
};
struct PgColumn {
  std::string name;
  std::uint32_t type_oid = 0;
  std::int32_t type_modifier = -1;
  bool key = false;  // part of the key (the replica identity's; the source may mark others)
};
// A table's description, sent before its first change and again after its schema changed.
struct PgRelation {
  std::uint32_t oid = 0;
  std::string schema;
  std::string table;
  char replica_identity = 'd';  // d default, n nothing, f full, i index
  std::vector<PgColumn> columns;
};
struct PgType {
  std::uint32_t oid = 0;
  std::string schema;
  std::string name;
};
// One column's value in a tuple: SQL NULL, an unchanged TOASTed value (not sent), or text.
struct PgValue {
  enum class Kind { kNull, kUnchangedToast, kText } kind = Kind::kNull;
  std::string text;
};
using PgTuple = std::vector<PgValue>;
struct PgInsert {
  std::uint32_t relation = 0;
  PgTuple row;
};
// old_row: the old key ('K', old_is_key: only the key columns are set) or the whole old row
// ('O', REPLICA IDENTITY FULL); absent when the key did not change and identity is not FULL.
struct PgUpdate {
  std::uint32_t relation = 0;
  std::optional<PgTuple> old_row;
  bool old_is_key = false;
  PgTuple row;
};
struct PgDelete {
  std::uint32_t relation = 0;
  PgTuple old_row;
  bool old_is_key = false;
};
struct PgTruncate {
  std::vector<std::uint32_t> relations;
  bool cascade = false;
  bool restart_identity = false;
};
// Origin ('O') and logical decoding messages ('M'): read past, not used.
struct PgIgnored {
  char type = 0;
};
using PgMessage = std::variant<PgBegin, PgCommit, PgRelation, PgType, PgInsert, PgUpdate, PgDelete,
                               PgTruncate, PgIgnored>;

// Decodes one message. kCorruption naming the message and what is wrong: cut short, an unknown
// message type or tuple kind, a binary value (not requested), bytes left over.
Result<PgMessage> decode_pgoutput(std::string_view bytes);

}  // namespace brook::internal
