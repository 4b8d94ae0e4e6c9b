#include "cdc/pg_value.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "brook/internal/json_text.h"
#include "core/base64.h"

namespace brook::internal {
namespace {

// Type OIDs of pg_type.dat.
enum Oid : std::uint32_t {
  kBool = 16,
  kBytea = 17,
  kInt8 = 20,
  kInt2 = 21,
  kInt4 = 23,
  kOid = 26,
  kFloat4 = 700,
  kFloat8 = 701,
  kDate = 1082,
  kTime = 1083,
  kTimestamp = 1114,
  kTimestampTz = 1184,
};

constexpr std::int64_t kMicrosPerDay = 86'400'000'000;

template <class Number>
std::optional<Number> parse(std::string_view text) {
  Number value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// Days since 1970-01-01 of a proleptic Gregorian date, and back (Howard Hinnant's algorithms),
// in 64 bits: PostgreSQL's dates go to year 5874897, past std::chrono::year's 32767.
std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) {
  year -= month <= 2;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const auto year_of_era = static_cast<unsigned>(year - era * 400);
  const unsigned day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}
struct Civil {
  std::int64_t year;
  unsigned month, day;
};
Civil civil_from_days(std::int64_t days) {
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto day_of_era = static_cast<unsigned>(days - era * 146097);
  const unsigned year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const unsigned day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const unsigned shifted_month = (5 * day_of_year + 2) / 153;
  const unsigned month = shifted_month < 10 ? shifted_month + 3 : shifted_month - 9;
  return {.year = year_of_era + era * 400 + (month <= 2),
          .month = month,
          .day = day_of_year - (153 * shifted_month + 2) / 5 + 1};
}

// Days since 1970-01-01 of "YYYY-MM-DD".
std::optional<std::int64_t> parse_date(std::string_view text) {
  const auto first = text.find('-', 1);
  const auto second = first == std::string_view::npos ? first : text.find('-', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  auto y = parse<int>(text.substr(0, first));
  auto m = parse<unsigned>(text.substr(first + 1, second - first - 1));
  auto d = parse<unsigned>(text.substr(second + 1));
  if (!y || !m || !d || *m < 1 || *m > 12 || *d < 1) return std::nullopt;
  constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = *y % 4 == 0 && (*y % 100 != 0 || *y % 400 == 0);
  if (*d > kDays[*m - 1] + (*m == 2 && leap ? 1 : 0)) return std::nullopt;
  return days_from_civil(*y, *m, *d);
}

// Microseconds since midnight of "HH:MM:SS[.f{1,6}]" (24:00:00 included, as PostgreSQL has it).
std::optional<std::int64_t> parse_time(std::string_view text) {
  if (text.size() < 8 || text[2] != ':' || text[5] != ':') return std::nullopt;
  auto h = parse<unsigned>(text.substr(0, 2));  // unsigned: "-1" is not an hour
  auto m = parse<unsigned>(text.substr(3, 2));
  auto s = parse<unsigned>(text.substr(6, 2));
  if (!h || !m || !s || *h > 24 || *m > 59 || *s > 60) return std::nullopt;
  std::int64_t micros = 0;
  if (text.size() > 8) {
    const auto fraction = text.substr(9);
    if (text[8] != '.' || fraction.empty() || fraction.size() > 6) return std::nullopt;
    auto digits = parse<std::int64_t>(fraction);
    if (!digits || fraction.front() == '-' || fraction.front() == '+') return std::nullopt;
    micros = *digits;
    for (auto i = fraction.size(); i < 6; ++i) micros *= 10;
  }
  const std::int64_t total = ((*h * 60 + *m) * 60 + *s) * 1'000'000LL + micros;
  return total <= kMicrosPerDay ? std::optional(total) : std::nullopt;
}

// Microseconds since the epoch of "YYYY-MM-DD HH:MM:SS[.f]".
std::optional<std::int64_t> parse_timestamp(std::string_view text) {
  const auto space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  auto days = parse_date(text.substr(0, space));
  auto time = parse_time(text.substr(space + 1));
  std::int64_t micros = 0;
  if (!days || !time || __builtin_mul_overflow(*days, kMicrosPerDay, &micros) ||
      __builtin_add_overflow(micros, *time, &micros)) {
    return std::nullopt;  // not a timestamp, or too far away for microseconds in 64 bits
  }
  return micros;
}

// Seconds east of UTC of "+HH", "-HH:MM" or "+HH:MM:SS".
std::optional<std::int64_t> parse_offset(std::string_view text) {
  if (text.size() < 3 || (text[0] != '+' && text[0] != '-')) return std::nullopt;
  std::int64_t seconds = 0;
  int parts = 0;
  for (std::size_t at = 1; at < text.size(); at += 3, ++parts) {
    if (parts > 2 || (at > 1 && text[at - 1] != ':')) return std::nullopt;
    auto part = parse<int>(text.substr(at, 2));
    if (!part || text.substr(at, 2).size() != 2) return std::nullopt;
    seconds = seconds * 60 + *part;
  }
  for (; parts < 3; ++parts) seconds *= 60;
  return text[0] == '-' ? -seconds : seconds;
}

// "YYYY-MM-DDTHH:MM:SS[.f]Z" of microseconds since the epoch (the fraction without trailing
// zeros), as Debezium writes a ZonedTimestamp.
std::string iso_utc(std::int64_t micros) {
  const std::int64_t days = micros / kMicrosPerDay - (micros % kMicrosPerDay < 0 ? 1 : 0);
  std::int64_t in_day = micros - days * kMicrosPerDay;
  const Civil date = civil_from_days(days);
  const std::int64_t fraction = in_day % 1'000'000;
  in_day /= 1'000'000;
  std::string text = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", date.year, date.month,
                                 date.day, in_day / 3600, in_day / 60 % 60, in_day % 60);
  if (fraction != 0) {
    std::string digits = fmt::format("{:06}", fraction);
    while (digits.back() == '0') digits.pop_back();
    text += "." + digits;
  }
  return text + "Z";
}

// bytea's hex form ("\\x0aff") as base64.
std::optional<std::string> base64_of_hex(std::string_view text) {
  if (text.size() < 2 || text.substr(0, 2) != "\\x" || text.size() % 2 != 0) return std::nullopt;
  std::string bytes;
  for (std::size_t i = 2; i < text.size(); i += 2) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(text.data() + i, text.data() + i + 2, value, 16);
    if (ec != std::errc() || end != text.data() + i + 2) return std::nullopt;
    bytes.push_back(static_cast<char>(value));
  }
  return base64_encode(bytes);
}

bool is_special_time(std::string_view text) {
  return text == "infinity" || text == "-infinity" || text.ends_with(" BC");
}

// Appends the JSON text of `text` of type `type_oid` to `out`; false if `text` is not a value
// of that type (`out` may then hold part of it).
bool append_value(std::string& out, std::uint32_t type_oid, std::string_view text) {
  auto number = [&](auto value) {
    if (!value) return false;
    append_json_number(out, *value);
    return true;
  };
  auto string = [&](std::string_view value) {
    append_json_string(out, value);
    return true;
  };
  switch (type_oid) {
    case kBool:
      if (text == "t" || text == "f") out += text == "t" ? "true" : "false";
      return text == "t" || text == "f";
    case kInt2:
    case kInt4:
    case kInt8: return number(parse<std::int64_t>(text));
    case kOid: return number(parse<std::uint32_t>(text));
    case kFloat4:
    case kFloat8: {
      if (text == "NaN" || text == "Infinity" || text == "-Infinity") return string(text);
      auto value = parse<double>(text);
      return number(value && std::isfinite(*value) ? value : std::nullopt);
    }
    case kBytea: {
      auto encoded = base64_of_hex(text);
      return encoded && string(*encoded);
    }
    case kDate: return is_special_time(text) ? string(text) : number(parse_date(text));
    case kTime: return number(parse_time(text));
    case kTimestamp: return is_special_time(text) ? string(text) : number(parse_timestamp(text));
    case kTimestampTz: {
      if (is_special_time(text)) return string(text);
      // The offset starts at the last '+' or '-' after the time.
      const auto sign = text.find_last_of("+-");
      if (sign == std::string_view::npos || sign < 11) return false;
      auto micros = parse_timestamp(text.substr(0, sign));
      auto offset = parse_offset(text.substr(sign));
      std::int64_t utc = 0;
      return micros && offset && !__builtin_sub_overflow(*micros, *offset * 1'000'000, &utc) &&
             string(iso_utc(utc));
    }
    default:  // numeric, text, json, uuid, arrays, enums, ...: as PostgreSQL writes them
      return string(text);
  }
}

}  // namespace

Result<std::string> pg_value_json(std::uint32_t type_oid, std::string_view text) {
  std::string out;
  if (!append_value(out, type_oid, text)) {
    return error(Status::corruption(
        fmt::format("cdc: '{}' is not a value of PostgreSQL type oid {}", text, type_oid)));
  }
  return out;
}

Result<std::string> pg_row_json(const PgRelation& relation, const PgTuple& tuple, bool key_only) {
  if (tuple.size() != relation.columns.size()) {
    return error(Status::corruption(
        fmt::format("cdc: a row of {}.{} with {} values for its {} columns", relation.schema,
                    relation.table, tuple.size(), relation.columns.size())));
  }
  std::string out = "{";
  for (std::size_t i = 0; i < tuple.size(); ++i) {
    const PgColumn& column = relation.columns[i];
    if (key_only && !column.key) continue;
    if (out.size() > 1) out += ',';
    append_json_string(out, column.name);
    out += ':';
    const PgValue& value = tuple[i];
    switch (value.kind) {
      case PgValue::Kind::kNull: out += "null"; break;
      case PgValue::Kind::kUnchangedToast: out += "\"__debezium_unavailable_value\""; break;
      case PgValue::Kind::kText:
        if (!append_value(out, column.type_oid, value.text)) {
          return error(Status::corruption(fmt::format(
              "cdc: column {} of {}.{}: '{}' is not a value of PostgreSQL type oid {}", column.name,
              relation.schema, relation.table, value.text, column.type_oid)));
        }
        break;
    }
  }
  out += '}';
  return out;
}

}  // namespace brook::internal
