#include "cdc/pgoutput.h"

#include <fmt/format.h>

#include <algorithm>

#include "brook/internal/coding.h"

namespace brook::internal {
namespace {

// Reads big-endian integers, NUL-terminated strings and byte runs off a message, remembering
// the first read that ran past its end.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  template <class Int>
  Int integer() {
    if (!take(sizeof(Int))) return 0;
    return get_big_endian<Int>(bytes_.data() + at_ - sizeof(Int));
  }
  char byte() { return static_cast<char>(integer<std::uint8_t>()); }
  std::string string() {
    const auto end = bytes_.find('\0', at_);
    if (end == std::string_view::npos) {
      short_ = true;
      at_ = bytes_.size();
      return {};
    }
    std::string text(bytes_.substr(at_, end - at_));
    at_ = end + 1;
    return text;
  }
  std::string run(std::size_t size) {
    if (!take(size)) return {};
    return std::string(bytes_.substr(at_ - size, size));
  }

  bool cut_short() const { return short_; }
  std::size_t left() const { return bytes_.size() - at_; }

 private:
  bool take(std::size_t size) {
    if (short_ || bytes_.size() - at_ < size) {
      short_ = true;
      at_ = bytes_.size();
      return false;
    }
    at_ += size;
    return true;
  }

  std::string_view bytes_;
  std::size_t at_ = 0;
  bool short_ = false;
};

Status corrupt(std::string_view message, std::string_view why) {
  return Status::corruption(fmt::format("pgoutput: {} message: {}", message, why));
}

// TupleData: a column count (unsigned, as PostgreSQL reads it), then each column's kind and
// value.
Result<PgTuple> read_tuple(Reader& in, std::string_view message) {
  const auto columns = in.integer<std::uint16_t>();
  PgTuple tuple;
  tuple.reserve(std::min<std::size_t>(columns, in.left()));  // a column takes a byte at least
  for (int i = 0; i < columns && !in.cut_short(); ++i) {
    const char kind = in.byte();
    switch (kind) {
      case 'n': tuple.push_back({.kind = PgValue::Kind::kNull}); break;
      case 'u': tuple.push_back({.kind = PgValue::Kind::kUnchangedToast}); break;
      case 't': {
        const auto size = in.integer<std::int32_t>();
        if (size < 0) return error(corrupt(message, fmt::format("column {} of size {}", i, size)));
        tuple.push_back({.kind = PgValue::Kind::kText, .text = in.run(size)});
        break;
      }
      case 'b': return error(corrupt(message, "a binary value, which was not requested"));
      default:
        if (in.cut_short()) break;
        return error(corrupt(
            message, fmt::format("unknown value kind '{}' in column {}", std::string(1, kind), i)));
    }
  }
  return tuple;
}

// An old tuple ('K' or 'O') if one follows, then, for an update, the new one ('N').
Result<PgMessage> read_change(Reader& in, char type) {
  const std::string_view message = type == 'I' ? "insert" : type == 'U' ? "update" : "delete";
  const auto relation = in.integer<std::uint32_t>();
  char marker = in.byte();
  auto tuple_after = [&](char expected) -> Result<PgTuple> {
    if (marker != expected && !in.cut_short()) {
      return error(corrupt(message, fmt::format("tuple marker '{}' where '{}' belongs",
                                                std::string(1, marker), expected)));
    }
    return read_tuple(in, message);
  };
  if (type == 'I') {
    auto row = tuple_after('N');
    if (!row) return error(row.error());
    return PgInsert{.relation = relation, .row = std::move(*row)};
  }
  std::optional<PgTuple> old_row;
  const bool old_is_key = marker == 'K';
  if (marker == 'K' || marker == 'O') {
    auto old = read_tuple(in, message);
    if (!old) return error(old.error());
    old_row = std::move(*old);
    if (type == 'U') marker = in.byte();
  } else if (type == 'D' && !in.cut_short()) {
    return error(corrupt(message, fmt::format("tuple marker '{}' where 'K' or 'O' belongs",
                                              std::string(1, marker))));
  }
  if (type == 'D') {
    return PgDelete{.relation = relation,
                    .old_row = std::move(old_row).value_or(PgTuple{}),
                    .old_is_key = old_is_key};
  }
  auto row = tuple_after('N');
  if (!row) return error(row.error());
  return PgUpdate{.relation = relation,
                  .old_row = std::move(old_row),
                  .old_is_key = old_is_key,
                  .row = std::move(*row)};
}

Result<PgMessage> read_message(Reader& in, char type) {
  switch (type) {
    case 'B': {
      PgBegin begin;
      begin.final_lsn = in.integer<Lsn>();
      begin.commit_time_us = in.integer<std::int64_t>();
      begin.xid = in.integer<std::uint32_t>();
      return begin;
    }
    case 'C': {
      in.byte();  // flags, unused
      PgCommit commit;
      commit.commit_lsn = in.integer<Lsn>();
      commit.end_lsn = in.integer<Lsn>();
      commit.commit_time_us = in.integer<std::int64_t>();
      return commit;
    }
    case 'R': {
      PgRelation relation;
      relation.oid = in.integer<std::uint32_t>();
      relation.schema = in.string();
      if (relation.schema.empty()) relation.schema = "pg_catalog";
      relation.table = in.string();
      relation.replica_identity = in.byte();
      const auto columns = in.integer<std::uint16_t>();
      for (int i = 0; i < columns && !in.cut_short(); ++i) {
        PgColumn column;
        column.key = (in.byte() & 1) != 0;
        column.name = in.string();
        column.type_oid = in.integer<std::uint32_t>();
        column.type_modifier = in.integer<std::int32_t>();
        relation.columns.push_back(std::move(column));
      }
      return relation;
    }
    case 'Y': {
      PgType pg_type;
      pg_type.oid = in.integer<std::uint32_t>();
      pg_type.schema = in.string();
      pg_type.name = in.string();
      return pg_type;
    }
    case 'I':
    case 'U':
    case 'D': return read_change(in, type);
    case 'T': {
      PgTruncate truncate;
      const auto count = in.integer<std::uint32_t>();
      const auto options = in.integer<std::uint8_t>();
      truncate.cascade = (options & 1) != 0;
      truncate.restart_identity = (options & 2) != 0;
      for (std::uint32_t i = 0; i < count && !in.cut_short(); ++i) {
        truncate.relations.push_back(in.integer<std::uint32_t>());
      }
      return truncate;
    }
    case 'O':
      in.integer<Lsn>();
      in.string();
      return PgIgnored{type};
    case 'M': {
      in.byte();
      in.integer<Lsn>();
      in.string();
      const auto size = in.integer<std::int32_t>();
      in.run(size > 0 ? size : 0);
      return PgIgnored{type};
    }
    default:
      return error(
          Status::corruption(fmt::format("pgoutput: unknown message type '{}' (0x{:02x})",
                                         std::string(1, type), static_cast<unsigned char>(type))));
  }
}

std::string_view message_name(char type) {
  switch (type) {
    case 'B': return "begin";
    case 'C': return "commit";
    case 'R': return "relation";
    case 'Y': return "type";
    case 'I': return "insert";
    case 'U': return "update";
    case 'D': return "delete";
    case 'T': return "truncate";
    case 'O': return "origin";
    default: return "logical decoding";
  }
}

}  // namespace

Result<PgMessage> decode_pgoutput(std::string_view bytes) {
  if (bytes.empty()) return error(Status::corruption("pgoutput: an empty message"));
  Reader in(bytes.substr(1));
  auto message = read_message(in, bytes[0]);
  if (!message) return message;
  if (in.cut_short()) {
    return error(
        corrupt(message_name(bytes[0]), fmt::format("cut short ({} bytes in all)", bytes.size())));
  }
  if (in.left() != 0) {
    return error(
        corrupt(message_name(bytes[0]), fmt::format("{} bytes left over after it", in.left())));
  }
  return message;
}

}  // namespace brook::internal
