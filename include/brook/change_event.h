// Change data capture: the change events Debezium writes (its envelope), as Brook values.
//
//   // A table of the rows of a Debezium topic: the `after` images, deletes as tombstones.
//   auto profiles = builder.table_from_changes<ProfileKey, Profile>("pg.public.profiles");
//   // Every event, with its before and after images and what made it.
//   builder.stream<ProfileKey, std::optional<brook::ChangeEvent<Profile>>>("pg.public.profiles")
//
// Values are read with DebeziumSerde<V> (the default serde of ChangeEvent<V>), keys with
// DebeziumKeySerde<K>; V and K are types nlohmann::json converts (to_json/from_json), read
// with the checks of JsonSerde (brook/json_serde.h).
#pragma once

#include <cstdint>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "brook/json_serde.h"
#include "brook/serde.h"
#include "brook/streams_builder.h"

namespace brook {

// Debezium's `op`: c create, u update, d delete, r read (a snapshot's row), t truncate.
enum class ChangeOp { kCreate, kUpdate, kDelete, kRead, kTruncate };

// Debezium's `source` block: where the change was made. Fields absent from an event are
// empty / nullopt; source fields not listed here are not kept.
struct ChangeSource {
  std::string connector;  // "postgresql", ...
  std::string name;       // the connector's topic prefix
  std::string db;
  std::string schema;
  std::string table;
  std::string snapshot;    // "true", "first", "last", "incremental" during a snapshot, else "false"
  std::int64_t ts_ms = 0;  // when the change was committed in the database
  std::optional<std::int64_t> lsn;    // PostgreSQL: the change's position in the WAL
  std::optional<std::int64_t> tx_id;  // the database transaction
  friend bool operator==(const ChangeSource&, const ChangeSource&) = default;
};

// One change event. `before` is the row before an update or delete (for PostgreSQL only the
// key columns unless the table has REPLICA IDENTITY FULL; absent for creates and reads);
// `after` the row after a create, read or update (absent for deletes and truncates).
template <class V>
struct ChangeEvent {
  ChangeOp op = ChangeOp::kCreate;
  std::optional<V> before;
  std::optional<V> after;
  ChangeSource source;
  std::optional<std::int64_t> ts_ms;  // when the connector handled the event

  // The row as a table holds it after this event: `after`, or nullopt (a deletion) for a
  // delete or truncate.
  std::optional<V> row() const {
    return op == ChangeOp::kDelete || op == ChangeOp::kTruncate ? std::nullopt : after;
  }
  friend bool operator==(const ChangeEvent&, const ChangeEvent&) = default;
};

namespace internal {
// An envelope with its rows still as JSON (null when absent).
struct DebeziumEnvelope {
  ChangeOp op = ChangeOp::kCreate;
  nlohmann::json before, after;
  ChangeSource source;
  std::optional<std::int64_t> ts_ms;
};
// Reads Debezium's JSON envelope, with its `schema` part ({"schema": ..., "payload": {...}},
// the JSON converter's schemas.enable=true) or without (the payload alone). kCorruption naming
// what is wrong: not JSON, not an object, no or an unknown `op`, a row that is not an object,
// a create/read/update without `after`, a field of the wrong type.
Result<DebeziumEnvelope> parse_debezium_envelope(std::string_view bytes);
// The payload alone (schemas.enable=false), as Debezium writes its fields. `before` and
// `after` are rows already in JSON text, or empty for none (null).
std::string write_debezium_envelope(ChangeOp op, std::string_view before, std::string_view after,
                                    const ChangeSource& source, std::optional<std::int64_t> ts_ms);
// A Debezium key: the object of the primary key's columns, with or without the `schema` part.
// kCorruption if the bytes are not a JSON object (or a schema-wrapped one).
Result<nlohmann::json> parse_debezium_key(std::string_view bytes);
// kCorruption "debezium serde: <what>: <why>", quoting the start of `bytes`.
Status debezium_error(std::string_view what, std::string_view bytes, std::string_view why);
}  // namespace internal

// ChangeEvent<V> from and to Debezium's JSON envelope. deserialize(): kCorruption naming what
// is wrong (see internal::parse_debezium_envelope), or the row and field from_json could not
// read. A tombstone (the null value Debezium writes after a delete) is not an event: read the
// topic with a std::optional value type, where it is nullopt. serialize() writes the payload
// without the `schema` part.
//
// With PostgreSQL's default replica identity, a delete's `before` holds the key columns and
// nulls for the others: V must read that (its other fields optional), or the table be
// REPLICA IDENTITY FULL. A serde of Images::kAfterOnly (what table_from_changes uses) does not
// read `before` at all: the event's `before` is always empty.
template <JsonConvertible V>
class DebeziumSerde final : public Serde<ChangeEvent<V>> {
 public:
  enum class Images { kBeforeAndAfter, kAfterOnly };
  explicit DebeziumSerde(Images images = Images::kBeforeAndAfter) : images_(images) {}

  std::string_view name() const override { return "debezium"; }

  Result<std::string> serialize(const ChangeEvent<V>& event) const override {
    try {
      return internal::write_debezium_envelope(
          event.op, event.before ? nlohmann::json(*event.before).dump() : std::string(),
          event.after ? nlohmann::json(*event.after).dump() : std::string(), event.source,
          event.ts_ms);
    } catch (const std::exception& e) {
      return error(Status::invalid_argument(std::string("debezium serde: cannot encode a row: ") +
                                            e.what()));
    }
  }

  Result<ChangeEvent<V>> deserialize(std::string_view bytes) const override {
    auto envelope = internal::parse_debezium_envelope(bytes);
    if (!envelope) return error(std::move(envelope.error()));
    ChangeEvent<V> event{
        .op = envelope->op, .source = std::move(envelope->source), .ts_ms = envelope->ts_ms};
    for (auto [json, row, field] : {std::tuple{&envelope->before, &event.before, "before"},
                                    std::tuple{&envelope->after, &event.after, "after"}}) {
      if (json->is_null() || (row == &event.before && images_ == Images::kAfterOnly)) continue;
      auto value = internal::json_as<V>(*json);
      if (!value) {
        return error(internal::debezium_error(
            std::string("cannot read ") + internal::type_name<V>() + " from '" + field + "'", bytes,
            value.error()));
      }
      *row = std::move(*value);
    }
    return event;
  }

 private:
  Images images_;
};

// A key as Debezium writes it: the object of the primary key's columns, with or without the
// `schema` part, read as K by from_json (a struct of those columns, or nlohmann::json).
// serialize() writes the object alone.
template <JsonConvertible K>
class DebeziumKeySerde final : public Serde<K> {
 public:
  std::string_view name() const override { return "debezium-key"; }

  Result<std::string> serialize(const K& key) const override { return json_.serialize(key); }

  Result<K> deserialize(std::string_view bytes) const override {
    auto json = internal::parse_debezium_key(bytes);
    if (!json) return error(std::move(json.error()));
    auto key = internal::json_as<K>(*json);
    if (!key) {
      return error(internal::debezium_error(
          std::string("cannot read the key as ") + internal::type_name<K>(), bytes, key.error()));
    }
    return std::move(*key);
  }

 private:
  JsonSerde<K> json_;
};

template <JsonConvertible V>
struct DefaultSerde<ChangeEvent<V>> {
  static SerdePtr<ChangeEvent<V>> make() { return std::make_shared<const DebeziumSerde<V>>(); }
};

// StreamsBuilder::table_from_changes (declared and documented in brook/streams_builder.h).
template <class K, class V>
KTable<K, V> StreamsBuilder::table_from_changes(std::string topic,
                                                Consumed<K, std::optional<ChangeEvent<V>>> consumed,
                                                Materialized<K, V> materialized) {
  static_assert(!internal::kIsOptional<K>,
                "StreamsBuilder::table_from_changes<K, V>: a table's key type must not be "
                "std::optional (records with a null key are dropped: a row needs a key)");
  if constexpr (JsonByDefault<K>) {
    if (!consumed.key_serde) consumed.key_serde = std::make_shared<const DebeziumKeySerde<K>>();
  }
  if (!consumed.value_serde) {
    consumed.value_serde =
        std::make_shared<const DebeziumSerde<V>>(DebeziumSerde<V>::Images::kAfterOnly);
  }
  using Event = std::optional<ChangeEvent<V>>;
  auto source = add_source<K, Event>({topic}, consumed, internal::NullKeys::kDrop);
  return KStream<K, Event>(graph_, source.name)
      .map_values([](const Event& event) { return event ? event->row() : std::optional<V>(); })
      .to_table(std::move(materialized));
}

}  // namespace brook
