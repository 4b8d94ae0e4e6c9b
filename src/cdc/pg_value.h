// PostgreSQL values, in their text form, as the JSON values Debezium's PostgreSQL connector
// writes with the JSON converter: the connector's default mappings, except numeric, which is
// written as a string (Debezium's decimal.handling.mode=string) rather than as bytes.
//
//   bool -> true/false          int2, int4, int8, oid -> integer      float4, float8 -> number
//   (NaN and infinities -> "NaN", "Infinity", "-Infinity")            numeric -> "12.50"
//   date -> days since 1970-01-01          time -> microseconds since midnight
//   timestamp -> microseconds since 1970-01-01T00:00:00
//   timestamptz -> "2024-05-01T10:00:00.5Z" (UTC, ISO 8601)
//   bytea -> base64 of the bytes           text, varchar, char, name, json, jsonb, uuid, arrays,
//   every other type -> the text as PostgreSQL writes it
// Infinite dates and timestamps ('infinity', '-infinity') and dates before the common era
// ('... BC') are kept as text. The text form is the one the source's connections ask for
// (pg_connection.h): DateStyle ISO, TimeZone UTC, extra_float_digits 3, UTF-8.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "brook/status.h"
#include "cdc/pgoutput.h"

namespace brook::internal {

// The JSON text of a column of type `type_oid` whose text form is `text`. kCorruption naming
// the type and the value if `text` is not a value of that type.
Result<std::string> pg_value_json(std::uint32_t type_oid, std::string_view text);

// The JSON text of the row `tuple` of `relation`: an object of column name -> value, null for
// SQL NULL, and for an unchanged TOASTed value (which PostgreSQL does not send) Debezium's
// placeholder "__debezium_unavailable_value". With `key_only`, only the key columns.
// kCorruption if the tuple has not one value per column, or a value cannot be read as its type.
Result<std::string> pg_row_json(const PgRelation& relation, const PgTuple& tuple, bool key_only);

}  // namespace brook::internal
