// Fuzzes the reading of PostgreSQL's logical replication stream: decode_pgoutput on each
// message, and the JSON that pg_row_json and pg_value_json make of the rows of its changes. The
// input is a run of messages, each behind its length (2 bytes, big-endian), as the payloads of
// consecutive XLogData messages; a change's rows are read with the columns of the Relation of its
// OID sent before it.
//
// Properties:
// - decode_pgoutput gives a message or kCorruption: never a crash, an exception or UB.
// - A decoded message, encoded again as PostgreSQL's "Logical Replication Message Formats" lays
//   it out, gives back the input's bytes, except what the decoder is documented to drop: a
//   Commit's flags, a column's flag bits other than the key bit, a Truncate's option bits other
//   than cascade and restart identity, an empty namespace (read as pg_catalog). Origin and
//   logical decoding messages are read past: not compared.
// - pg_row_json fails (kCorruption) exactly when the tuple has not one value per column or a
//   column it writes holds text that is not a value of the column's type; else it writes a JSON
//   object of those columns, in order, each null, the TOAST placeholder or pg_value_json's value.
// - pg_value_json (tried on every text value with the column's type and with each type it knows)
//   fails with kCorruption or writes valid JSON of the kind pg_value.h promises for the type: a
//   boolean, the integer or number the text names, bytea's bytes in base64, times of day from 0
//   to 24 h, the text itself for other types (when it is UTF-8). A date, time, timestamp or
//   timestamptz in PostgreSQL's own text form (ISO, AD) is converted, to the days, microseconds
//   or UTC instant computed independently here.
#include "cdc/pgoutput.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "brook/internal/json_text.h"
#include "cdc/pg_value.h"
#include "core/base64.h"
#include "core/text_numbers.h"
#include "core/utf8.h"
#include "fuzz/fuzz_support.h"

namespace {

using namespace brook;
using namespace brook::internal;
using Json = nlohmann::ordered_json;

template <class... Fns>
struct Overloaded : Fns... {
  using Fns::operator()...;
};
template <class... Fns>
Overloaded(Fns...) -> Overloaded<Fns...>;  // clang 16 does not deduce aggregates' arguments

// ---- Encoding a decoded message again -------------------------------------------------------

// A message as PostgreSQL writes it, and where it holds column flags (of which only the key
// bit is kept).
struct Encoded {
  std::string bytes;
  std::vector<std::size_t> column_flags;
};

class Encoder {
 public:
  explicit Encoder(char type) { out_.bytes.push_back(type); }

  template <class Int>
  Encoder& integer(Int value) {
    for (int shift = 8 * (sizeof(Int) - 1); shift >= 0; shift -= 8) {
      out_.bytes.push_back(static_cast<char>(static_cast<std::uint64_t>(value) >> shift));
    }
    return *this;
  }
  Encoder& byte(char value) {
    out_.bytes.push_back(value);
    return *this;
  }
  Encoder& string(std::string_view text) {
    out_.bytes.append(text).push_back('\0');
    return *this;
  }
  Encoder& tuple(const PgTuple& tuple) {
    integer(static_cast<std::uint16_t>(tuple.size()));
    for (const PgValue& value : tuple) {
      switch (value.kind) {
        case PgValue::Kind::kNull: byte('n'); break;
        case PgValue::Kind::kUnchangedToast: byte('u'); break;
        case PgValue::Kind::kText:
          byte('t').integer(static_cast<std::uint32_t>(value.text.size()));
          out_.bytes += value.text;
          break;
      }
    }
    return *this;
  }
  Encoder& column_flags(bool key) {
    out_.column_flags.push_back(out_.bytes.size());
    return byte(key ? 1 : 0);
  }
  Encoded done() { return std::move(out_); }

 private:
  Encoded out_;
};

// The message's bytes; nullopt for the messages the decoder reads past.
std::optional<Encoded> encode(const PgMessage& message) {
  return std::visit(
      Overloaded{
          [](const PgBegin& m) -> std::optional<Encoded> {
            return Encoder('B')
                .integer(m.final_lsn)
                .integer(m.commit_time_us)
                .integer(m.xid)
                .done();
          },
          [](const PgCommit& m) -> std::optional<Encoded> {
            return Encoder('C')
                .byte(0)
                .integer(m.commit_lsn)
                .integer(m.end_lsn)
                .integer(m.commit_time_us)
                .done();
          },
          [](const PgRelation& m) -> std::optional<Encoded> {
            Encoder out('R');
            out.integer(m.oid).string(m.schema).string(m.table).byte(m.replica_identity);
            out.integer(static_cast<std::uint16_t>(m.columns.size()));
            for (const PgColumn& column : m.columns) {
              out.column_flags(column.key)
                  .string(column.name)
                  .integer(column.type_oid)
                  .integer(column.type_modifier);
            }
            return out.done();
          },
          [](const PgType& m) -> std::optional<Encoded> {
            return Encoder('Y').integer(m.oid).string(m.schema).string(m.name).done();
          },
          [](const PgInsert& m) -> std::optional<Encoded> {
            return Encoder('I').integer(m.relation).byte('N').tuple(m.row).done();
          },
          [](const PgUpdate& m) -> std::optional<Encoded> {
            Encoder out('U');
            out.integer(m.relation);
            if (m.old_row) out.byte(m.old_is_key ? 'K' : 'O').tuple(*m.old_row);
            return out.byte('N').tuple(m.row).done();
          },
          [](const PgDelete& m) -> std::optional<Encoded> {
            return Encoder('D')
                .integer(m.relation)
                .byte(m.old_is_key ? 'K' : 'O')
                .tuple(m.old_row)
                .done();
          },
          [](const PgTruncate& m) -> std::optional<Encoded> {
            Encoder out('T');
            out.integer(static_cast<std::uint32_t>(m.relations.size()))
                .byte(static_cast<char>((m.cascade ? 1 : 0) | (m.restart_identity ? 2 : 0)));
            for (const std::uint32_t relation : m.relations) out.integer(relation);
            return out.done();
          },
          [](const PgIgnored&) -> std::optional<Encoded> { return std::nullopt; },
      },
      message);
}

// `bytes` with what the decoder drops as it re-encodes it: a Commit's flags cleared, a
// Truncate's unknown option bits cleared, an empty namespace written as pg_catalog.
std::string without_dropped_parts(std::string_view bytes) {
  std::string out(bytes);
  if (out[0] == 'C') out[1] = 0;
  if (out[0] == 'T' && out.size() > 5) out[5] = static_cast<char>(out[5] & 3);
  if (out[0] == 'R' && out.size() > 5 && out[5] == '\0') out.insert(5, "pg_catalog");
  return out;
}

void check_encodes_back(std::string_view bytes, const PgMessage& message) {
  const auto encoded = encode(message);
  if (!encoded) return;
  const std::string expected = without_dropped_parts(bytes);
  FUZZ_CHECK(encoded->bytes.size() == expected.size());
  std::set<std::size_t> flags(encoded->column_flags.begin(), encoded->column_flags.end());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const int kept = flags.contains(i) ? 1 : 0xff;
    FUZZ_CHECK((encoded->bytes[i] & kept) == (expected[i] & kept));
  }
}

// ---- Dates and times in PostgreSQL's text form, computed independently -----------------------

constexpr std::int64_t kMicrosPerDay = 86'400'000'000;

unsigned days_in_month(std::int64_t year, unsigned month) {
  const bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && leap ? 29 : kDays[month - 1];
}
// Days from 0001-01-01 to January 1st of `year` (1 or later), proleptic Gregorian.
std::int64_t days_before_year(std::int64_t year) {
  const std::int64_t years = year - 1;
  return 365 * years + years / 4 - years / 100 + years / 400;
}
// Days since 1970-01-01 of a date of year 1 or later, counted by years and months (not as
// pg_value.cc computes them).
std::int64_t days_since_epoch(std::int64_t year, unsigned month, unsigned day) {
  std::int64_t days = days_before_year(year) - days_before_year(1970) + day - 1;
  for (unsigned m = 1; m < month; ++m) days += days_in_month(year, m);
  return days;
}

// Reads the text forms PostgreSQL writes (DateStyle ISO), piece by piece off the front.
class IsoText {
 public:
  explicit IsoText(std::string_view text) : rest_(text) {}

  // The number of exactly `count` digits.
  std::optional<std::int64_t> digits(std::size_t count) {
    if (rest_.size() < count) return std::nullopt;
    std::int64_t value = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if (rest_[i] < '0' || rest_[i] > '9') return std::nullopt;
      value = value * 10 + (rest_[i] - '0');
    }
    rest_.remove_prefix(count);
    return value;
  }
  bool skip(char c) {
    if (rest_.empty() || rest_.front() != c) return false;
    rest_.remove_prefix(1);
    return true;
  }
  bool done() const { return rest_.empty(); }

  // "YYYY-MM-DD" (a year from 1 to `max_year`, of four digits or more without leading zeros
  // beyond four) as days since 1970-01-01.
  std::optional<std::int64_t> date(std::int64_t max_year) {
    const std::size_t year_digits = digit_run();
    if (year_digits < 4 || year_digits > 7 || (year_digits > 4 && rest_[0] == '0')) return {};
    const auto year = digits(year_digits);
    if (!year || *year < 1 || *year > max_year || !skip('-')) return std::nullopt;
    const auto month = digits(2);
    if (!month || *month < 1 || *month > 12 || !skip('-')) return std::nullopt;
    const auto day = digits(2);
    if (!day || *day < 1 || *day > days_in_month(*year, unsigned(*month))) return std::nullopt;
    return days_since_epoch(*year, unsigned(*month), unsigned(*day));
  }

  // "HH:MM:SS[.f]" (a fraction of 1 to 6 digits, no trailing zero) as microseconds since
  // midnight; "24:00:00" too with `end_of_day`.
  std::optional<std::int64_t> time(bool end_of_day) {
    const auto hours = digits(2);
    if (!hours || !skip(':')) return std::nullopt;
    const auto minutes = digits(2);
    if (!minutes || *minutes > 59 || !skip(':')) return std::nullopt;
    const auto seconds = digits(2);
    if (!seconds || *seconds > 59) return std::nullopt;
    std::int64_t micros = ((*hours * 60 + *minutes) * 60 + *seconds) * 1'000'000;
    if (skip('.')) {
      const std::size_t count = digit_run();
      if (count == 0 || count > 6 || rest_[count - 1] == '0') return std::nullopt;
      std::int64_t fraction = *digits(count);
      for (std::size_t i = count; i < 6; ++i) fraction *= 10;
      micros += fraction;
    }
    if (*hours < 24) return micros;
    return end_of_day && micros == kMicrosPerDay ? std::optional(micros) : std::nullopt;
  }

  // "+HH", "-HH:MM" or "+HH:MM:SS" as seconds east of UTC.
  std::optional<std::int64_t> offset() {
    const bool west = skip('-');
    if (!west && !skip('+')) return std::nullopt;
    const auto hours = digits(2);
    if (!hours) return std::nullopt;
    std::int64_t seconds = *hours * 3600;
    for (const std::int64_t unit : {60, 1}) {
      if (!skip(':')) break;
      const auto part = digits(2);
      if (!part || *part > 59) return std::nullopt;
      seconds += *part * unit;
    }
    return west ? -seconds : seconds;
  }

 private:
  // How many digits the rest starts with.
  std::size_t digit_run() const {
    std::size_t count = 0;
    while (count < rest_.size() && rest_[count] >= '0' && rest_[count] <= '9') ++count;
    return count;
  }

  std::string_view rest_;
};

// a + b * c, nullopt if it does not fit.
std::optional<std::int64_t> add_product(std::int64_t a, std::int64_t b, std::int64_t c) {
  std::int64_t product = 0, sum = 0;
  if (__builtin_mul_overflow(b, c, &product) || __builtin_add_overflow(a, product, &sum)) {
    return std::nullopt;
  }
  return sum;
}

constexpr std::int64_t kMaxDateYear = 5874897;      // PostgreSQL's last date
constexpr std::int64_t kMaxTimestampYear = 294276;  // and timestamp

// Microseconds since 1970-01-01 of "YYYY-MM-DD HH:MM:SS[.f]" (nullopt too if they do not fit).
std::optional<std::int64_t> iso_timestamp(IsoText& in) {
  const auto days = in.date(kMaxTimestampYear);
  if (!days || !in.skip(' ')) return std::nullopt;
  const auto time = in.time(/*end_of_day=*/false);
  return time ? add_product(*time, *days, kMicrosPerDay) : std::nullopt;
}

// Type OIDs of pg_type.dat that pg_value.h converts, and a few it writes as text.
enum Oid : std::uint32_t {
  kBool = 16,
  kBytea = 17,
  kInt8 = 20,
  kInt2 = 21,
  kInt4 = 23,
  kText = 25,
  kOid = 26,
  kFloat4 = 700,
  kFloat8 = 701,
  kDate = 1082,
  kTime = 1083,
  kTimestamp = 1114,
  kTimestampTz = 1184,
  kNumeric = 1700,
};
constexpr Oid kOids[] = {kBool,   kBytea,  kInt8, kInt2, kInt4,      kText,        kOid,
                         kFloat4, kFloat8, kDate, kTime, kTimestamp, kTimestampTz, kNumeric};

// What `text` of type `type_oid` stands for when it is in PostgreSQL's own text form of a date
// or time type: days or microseconds since 1970-01-01 (UTC for a timestamptz of year 1 or
// later), microseconds since midnight; nullopt for other texts and types.
std::optional<std::int64_t> iso_value(std::uint32_t type_oid, std::string_view text) {
  IsoText in(text);
  std::optional<std::int64_t> value;
  switch (type_oid) {
    case kDate: value = in.date(kMaxDateYear); break;
    case kTime: value = in.time(/*end_of_day=*/true); break;
    case kTimestamp: value = iso_timestamp(in); break;
    case kTimestampTz: {
      const auto local = iso_timestamp(in);
      const auto offset = local ? in.offset() : std::nullopt;
      value = offset ? add_product(*local, -*offset, 1'000'000) : std::nullopt;
      const std::int64_t year_one = days_since_epoch(1, 1, 1) * kMicrosPerDay;
      if (value && *value < year_one) return std::nullopt;
      break;
    }
    default: return std::nullopt;
  }
  return in.done() ? value : std::nullopt;
}

// The number pg_value_json wrote as `json` for a date or time type: the integer, or the instant
// a timestamptz's "YYYY-MM-DDTHH:MM:SS[.f]Z" names.
std::optional<std::int64_t> written_value(std::uint32_t type_oid, const Json& json) {
  if (type_oid != kTimestampTz) {
    return json.is_number_integer() ? std::optional(json.get<std::int64_t>()) : std::nullopt;
  }
  if (!json.is_string()) return std::nullopt;
  const std::string text = json.get<std::string>();
  IsoText in(text);
  const auto days = in.date(kMaxDateYear);
  const auto time = days && in.skip('T') ? in.time(/*end_of_day=*/false) : std::nullopt;
  if (!time || !in.skip('Z') || !in.done()) return std::nullopt;
  return add_product(*time, *days, kMicrosPerDay);
}

bool is_special_time(std::string_view text) {
  return text == "infinity" || text == "-infinity" || text.ends_with(" BC");
}

template <class Number>
bool is_number_of(const Json& json, std::string_view text) {
  const auto number = parse_number<Number>(text);
  return number && json.is_number() && json == Json(*number);
}

// Whether `json` is what pg_value.h says a value `text` of type `type_oid` becomes.
bool has_promised_form(std::uint32_t type_oid, std::string_view text, const Json& json) {
  // The text itself (bytes that are not UTF-8 are replaced).
  const bool as_text = json.is_string() && (json.get<std::string>() == text || !is_utf8(text));
  switch (type_oid) {
    case kBool: return json.is_boolean() && json.get<bool>() == (text == "t");
    case kInt2:
    case kInt4:
    case kInt8: return json.is_number_integer() && is_number_of<std::int64_t>(json, text);
    case kOid: return json.is_number_unsigned() && is_number_of<std::uint32_t>(json, text);
    case kFloat4:
    case kFloat8:
      if (text == "NaN" || text == "Infinity" || text == "-Infinity") return as_text;
      return is_number_of<double>(json, text);
    case kBytea: {
      if (!json.is_string() || !text.starts_with("\\x")) return false;
      const auto bytes = base64_decode(json.get<std::string>());
      return bytes && bytes == from_hex(text.substr(2));
    }
    case kDate:
    case kTimestamp: return is_special_time(text) ? as_text : json.is_number_integer();
    case kTime:
      return json.is_number_integer() && json.get<std::int64_t>() >= 0 &&
             json.get<std::int64_t>() <= kMicrosPerDay;
    case kTimestampTz:
      return is_special_time(text) ? as_text
                                   : json.is_string() && json.get<std::string>().ends_with("Z");
    default: return as_text;
  }
}

void check_value(std::uint32_t type_oid, std::string_view text) {
  const auto out = pg_value_json(type_oid, text);
  const auto iso = iso_value(type_oid, text);
  if (!out) {
    FUZZ_CHECK(out.error().code() == StatusCode::kCorruption);
    FUZZ_CHECK(!iso);  // PostgreSQL's own text form of a value is one
    return;
  }
  const Json json = Json::parse(*out, nullptr, /*allow_exceptions=*/false);
  FUZZ_CHECK(!json.is_discarded());
  FUZZ_CHECK(has_promised_form(type_oid, text, json));
  if (iso) FUZZ_CHECK(written_value(type_oid, json) == *iso);
}

// ---- Rows ------------------------------------------------------------------------------------

// The text append_json_string writes of `name` (non-UTF-8 bytes replaced), as read back.
std::string written_name(std::string_view name) {
  std::string quoted;
  append_json_string(quoted, name);
  return Json::parse(quoted).get<std::string>();
}

void check_row(const PgRelation& relation, const PgTuple& tuple, bool key_only) {
  const auto row = pg_row_json(relation, tuple, key_only);
  bool readable = tuple.size() == relation.columns.size();
  std::vector<std::pair<std::string, Json>> members;  // the columns it writes, as they should be
  for (std::size_t i = 0; readable && i < tuple.size(); ++i) {
    const PgColumn& column = relation.columns[i];
    if (key_only && !column.key) continue;
    Json value;  // null
    if (tuple[i].kind == PgValue::Kind::kUnchangedToast) value = "__debezium_unavailable_value";
    if (tuple[i].kind == PgValue::Kind::kText) {
      const auto text = pg_value_json(column.type_oid, tuple[i].text);
      readable = text.has_value();
      if (text) value = Json::parse(*text);
    }
    members.emplace_back(written_name(column.name), std::move(value));
  }
  FUZZ_CHECK(row.has_value() == readable);
  if (!row) {
    FUZZ_CHECK(row.error().code() == StatusCode::kCorruption);
    return;
  }
  const Json json = Json::parse(*row, nullptr, /*allow_exceptions=*/false);
  FUZZ_CHECK(json.is_object());
  std::set<std::string> names;
  for (const auto& member : members) names.insert(member.first);
  if (names.size() != members.size()) return;  // a repeated name: one member for several columns
  FUZZ_CHECK(json.size() == members.size());
  auto it = json.begin();
  for (const auto& [name, value] : members) {
    FUZZ_CHECK(it.key() == name && *it == value);
    ++it;
  }
}

void check_rows(const PgRelation& relation, const PgTuple& tuple) {
  for (const bool key_only : {false, true}) check_row(relation, tuple, key_only);
  for (std::size_t i = 0; i < tuple.size(); ++i) {
    if (tuple[i].kind != PgValue::Kind::kText) continue;
    if (i < relation.columns.size()) check_value(relation.columns[i].type_oid, tuple[i].text);
    for (const Oid oid : kOids) check_value(oid, tuple[i].text);
  }
}

// ---- The stream ------------------------------------------------------------------------------

void check_message(std::string_view bytes, std::map<std::uint32_t, PgRelation>& relations) {
  const auto message = decode_pgoutput(bytes);
  if (!message) {
    FUZZ_CHECK(message.error().code() == StatusCode::kCorruption);
    return;
  }
  check_encodes_back(bytes, *message);
  auto rows_of = [&](std::uint32_t relation, std::initializer_list<const PgTuple*> tuples) {
    auto it = relations.find(relation);
    for (const PgTuple* tuple : tuples) {
      if (tuple != nullptr) check_rows(it != relations.end() ? it->second : PgRelation{}, *tuple);
    }
  };
  std::visit(Overloaded{
                 [&](const PgRelation& m) { relations[m.oid] = m; },
                 [&](const PgInsert& m) { rows_of(m.relation, {&m.row}); },
                 [&](const PgUpdate& m) {
                   rows_of(m.relation, {m.old_row ? &*m.old_row : nullptr, &m.row});
                 },
                 [&](const PgDelete& m) { rows_of(m.relation, {&m.old_row}); },
                 [](const auto&) {},
             },
             *message);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput input(data, size);
  std::map<std::uint32_t, PgRelation> relations;  // by OID, as the stream described them
  while (!input.empty()) {
    const std::size_t high = input.byte();  // read before the low byte
    const std::size_t length = high << 8 | input.byte();
    check_message(input.bytes(length), relations);
  }
  return 0;
}
