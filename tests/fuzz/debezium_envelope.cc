// Fuzzes Debezium's change events as Brook reads and writes them (brook/change_event.h): the
// input is read as an envelope (parse_debezium_envelope, DebeziumSerde of a row struct with both
// images and with the after image only) and as a key (parse_debezium_key, DebeziumKeySerde), and
// its bytes are taken as the fields of an envelope to write (write_debezium_envelope).
//
// Properties:
// - Reading gives a value or kCorruption: never a crash, UB or an exception (nlohmann's throw
//   on bad JSON, on a missing field or a field of another type must not escape).
// - An envelope read holds what its payload (inside {"schema", "payload"} or alone) says: its
//   `op`, `before` and `after` as they are, a row `after` for c, r and u, the strings of
//   `source` (a boolean `snapshot` as "true"/"false"; absent or null: empty), and its integers
//   exactly (absent or null: none, `source.ts_ms` 0).
// - Written back with write_debezium_envelope it is valid JSON that reads as the same fields;
//   a DebeziumSerde event serialized reads back as the same event, a key as the same key.
// - A key read is the input's object or its payload.
// - An envelope written of any fields reads back (fails only for c, r or u without `after`)
//   with the same fields; strings that are not UTF-8 come back as UTF-8 (with U+FFFD).
#include <algorithm>
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "brook/change_event.h"
#include "core/utf8.h"
#include "fuzz/fuzz_support.h"

namespace {

using namespace brook;
using Json = nlohmann::json;

// A table's row and key, as a user's types: from_json throws on a missing or mistyped field.
struct Row {
  std::int64_t id = 0;
  std::string name;
  friend bool operator==(const Row&, const Row&) = default;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Row, id, name)
struct RowKey {
  std::int64_t id = 0;
  friend bool operator==(const RowKey&, const RowKey&) = default;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RowKey, id)

constexpr std::array<std::pair<char, ChangeOp>, 5> kOps{{{'c', ChangeOp::kCreate},
                                                         {'u', ChangeOp::kUpdate},
                                                         {'d', ChangeOp::kDelete},
                                                         {'r', ChangeOp::kRead},
                                                         {'t', ChangeOp::kTruncate}}};

bool needs_after(ChangeOp op) {
  return op == ChangeOp::kCreate || op == ChangeOp::kRead || op == ChangeOp::kUpdate;
}

// `object[name]`, null when absent.
Json member(const Json& object, const char* name) {
  const auto it = object.find(name);
  return it == object.end() ? Json() : *it;
}

// Whether `read` is the integer `json` holds (the same digits), or none for null.
bool same_integer(const Json& json, std::optional<std::int64_t> read) {
  if (json.is_null()) return !read;
  return json.is_number_integer() && read && json.dump() == std::to_string(*read);
}

// Whether `read` is the text field `json`: a string, a boolean as its name, empty for null.
bool same_text(const Json& json, const std::string& read) {
  if (json.is_null()) return read.empty();
  if (json.is_boolean()) return read == (json.get<bool>() ? "true" : "false");
  return json.is_string() && json.get<std::string>() == read;
}

bool same_source(const Json& json, const ChangeSource& source) {
  if (json.is_null()) return source == ChangeSource{};
  return json.is_object() && same_text(member(json, "connector"), source.connector) &&
         same_text(member(json, "name"), source.name) && same_text(member(json, "db"), source.db) &&
         same_text(member(json, "schema"), source.schema) &&
         same_text(member(json, "table"), source.table) &&
         same_text(member(json, "snapshot"), source.snapshot) &&
         same_integer(member(json, "ts_ms").is_null() ? Json(0) : member(json, "ts_ms"),
                      source.ts_ms) &&
         same_integer(member(json, "lsn"), source.lsn) &&
         same_integer(member(json, "txId"), source.tx_id);
}

bool same_envelope(const internal::DebeziumEnvelope& a, const internal::DebeziumEnvelope& b) {
  return a.op == b.op && a.before == b.before && a.after == b.after && a.source == b.source &&
         a.ts_ms == b.ts_ms;
}

std::string text_of_row(const Json& row) { return row.is_null() ? std::string() : row.dump(); }

void check_envelope(std::string_view bytes) {
  const auto envelope = internal::parse_debezium_envelope(bytes);
  if (!envelope) {
    FUZZ_CHECK(envelope.error().code() == StatusCode::kCorruption);
    return;
  }
  const Json input = Json::parse(bytes);
  const Json& payload = input.contains("op") ? input : input.at("payload");
  const Json op = member(payload, "op");
  FUZZ_CHECK(op.is_string());
  const auto known = std::find_if(kOps.begin(), kOps.end(), [&](const auto& entry) {
    return op.get<std::string>() == std::string(1, entry.first);
  });
  FUZZ_CHECK(known != kOps.end() && known->second == envelope->op);
  FUZZ_CHECK(envelope->before == member(payload, "before"));
  FUZZ_CHECK(envelope->after == member(payload, "after"));
  FUZZ_CHECK(envelope->before.is_null() || envelope->before.is_object());
  FUZZ_CHECK(envelope->after.is_object() ||
             (envelope->after.is_null() && !needs_after(known->second)));
  FUZZ_CHECK(same_source(member(payload, "source"), envelope->source));
  FUZZ_CHECK(same_integer(member(payload, "ts_ms"), envelope->ts_ms));

  const std::string written = internal::write_debezium_envelope(
      envelope->op, text_of_row(envelope->before), text_of_row(envelope->after), envelope->source,
      envelope->ts_ms);
  FUZZ_CHECK(Json::accept(written));
  const auto again = internal::parse_debezium_envelope(written);
  FUZZ_CHECK(again.has_value() && same_envelope(*again, *envelope));
}

// Reads `bytes` with `serde`; what it reads serializes and reads back the same.
template <class T>
void check_serde(const Serde<T>& serde, std::string_view bytes) {
  const auto value = serde.deserialize(bytes);
  if (!value) {
    FUZZ_CHECK(value.error().code() == StatusCode::kCorruption);
    return;
  }
  const auto written = serde.serialize(*value);
  FUZZ_CHECK(written.has_value());
  const auto again = serde.deserialize(*written);
  FUZZ_CHECK(again.has_value() && *again == *value);
}

// nlohmann reads a floating-point number into an integer field with a static_cast, undefined
// behaviour out of the field's range: a known finding in json_as (brook/json_serde.h), left to
// the fuzz target json_serde. Whether `json` holds a number no int64_t holds that is not an
// integer (which Row and RowKey would read into their id).
bool has_float_beyond_int64(const Json& json) {
  if (json.is_number_float()) {
    const double x = json.get<double>();
    return !(x >= -0x1p63 && x < 0x1p63);
  }
  if (!json.is_structured()) return false;
  return std::any_of(json.begin(), json.end(),
                     [](const Json& e) { return has_float_beyond_int64(e); });
}

// `bytes` as an event and as a key of the user's types.
void check_typed_serdes(std::string_view bytes) {
  static const DebeziumSerde<Row> both_images;
  static const DebeziumSerde<Row> after_only(DebeziumSerde<Row>::Images::kAfterOnly);
  static const DebeziumKeySerde<RowKey> key_serde;
  check_serde(both_images, bytes);
  check_serde(after_only, bytes);
  const auto event = after_only.deserialize(bytes);
  FUZZ_CHECK(!event || !event->before);
  check_serde(key_serde, bytes);
}

void check_key(std::string_view bytes) {
  const auto key = internal::parse_debezium_key(bytes);
  if (!key) {
    FUZZ_CHECK(key.error().code() == StatusCode::kCorruption);
    return;
  }
  const Json input = Json::parse(bytes);
  FUZZ_CHECK(key->is_object());
  FUZZ_CHECK(*key == input || (input.contains("payload") && *key == input.at("payload")));
}

// ---- Writing ---------------------------------------------------------------------------------

std::int64_t integer(fuzz::FuzzInput& in) {
  std::uint64_t value = 0;
  for (const char c : in.bytes(8)) value = value << 8 | static_cast<std::uint8_t>(c);
  return static_cast<std::int64_t>(value);
}
std::optional<std::int64_t> maybe_integer(fuzz::FuzzInput& in) {
  if (in.byte() % 2 == 0) return std::nullopt;
  return integer(in);
}
// A row's JSON text (empty for none) of an id and a name taken from `in`.
std::string row_text(fuzz::FuzzInput& in, bool present) {
  if (!present) return "";
  const Json row{{"id", integer(in)}, {"name", std::string(in.short_bytes())}};
  return row.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Whether `read` is `written`, or, for text that is not UTF-8, UTF-8.
bool same_or_repaired(const std::string& written, const std::string& read) {
  return read == written || (!internal::is_utf8(written) && internal::is_utf8(read));
}

void check_writer(fuzz::FuzzInput in) {
  const ChangeOp op = kOps[in.byte() % kOps.size()].second;
  ChangeSource source;
  for (std::string* text : {&source.connector, &source.name, &source.db, &source.schema,
                            &source.table, &source.snapshot}) {
    *text = std::string(in.short_bytes());
  }
  source.ts_ms = integer(in);
  source.lsn = maybe_integer(in);
  source.tx_id = maybe_integer(in);
  const std::optional<std::int64_t> ts_ms = maybe_integer(in);
  const std::uint8_t rows = in.byte();
  const std::string before = row_text(in, (rows & 1) != 0);
  const std::string after = row_text(in, (rows & 2) != 0);

  const std::string written = internal::write_debezium_envelope(op, before, after, source, ts_ms);
  FUZZ_CHECK(Json::accept(written));
  const auto read = internal::parse_debezium_envelope(written);
  FUZZ_CHECK(read.has_value() == !(needs_after(op) && after.empty()));
  if (!read) return;
  FUZZ_CHECK(read->op == op && read->ts_ms == ts_ms);
  FUZZ_CHECK(read->before == (before.empty() ? Json() : Json::parse(before)));
  FUZZ_CHECK(read->after == (after.empty() ? Json() : Json::parse(after)));
  FUZZ_CHECK(read->source.ts_ms == source.ts_ms && read->source.lsn == source.lsn &&
             read->source.tx_id == source.tx_id);
  FUZZ_CHECK(same_or_repaired(source.connector, read->source.connector) &&
             same_or_repaired(source.name, read->source.name) &&
             same_or_repaired(source.db, read->source.db) &&
             same_or_repaired(source.schema, read->source.schema) &&
             same_or_repaired(source.table, read->source.table) &&
             same_or_repaired(source.snapshot, read->source.snapshot));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  check_envelope(bytes);
  check_key(bytes);
  if (!has_float_beyond_int64(Json::parse(bytes, nullptr, /*allow_exceptions=*/false))) {
    check_typed_serdes(bytes);
  }
  check_writer(fuzz::FuzzInput(data, size));
  return 0;
}
