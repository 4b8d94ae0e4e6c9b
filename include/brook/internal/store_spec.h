// A state store as the topology declares it: its name, kind, decorators and serdes. The
// runtime builds one store stack per task from it. Not for users.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <typeindex>
#include <typeinfo>

#include "brook/internal/bytes_store.h"
#include "brook/internal/json_form.h"
#include "brook/internal/type_name.h"
#include "brook/serde.h"
#include "brook/state_store.h"

namespace brook::internal {

// What a store's keys are. Window and session stores are segmented by time: their keys end
// in a timestamp (see window_keys.h), and whole segments older than `retention` are dropped.
enum class StoreKind {
  kKeyValue,
  kWindow,   // keys [key][8-byte window start][4-byte sequence]
  kSession,  // keys [key][8-byte session end][8-byte session start]
};

inline const char* kind_name(StoreKind kind) {
  switch (kind) {
    case StoreKind::kKeyValue: return "key-value";
    case StoreKind::kWindow: return "window";
    case StoreKind::kSession: return "session";
  }
  return "unknown";
}

// A store's entry as bytes: key and value (nullopt: the key is deleted).
struct StoreEntry {
  std::string key;
  std::optional<std::string> value;
};

// A record of a table's source topic as its store's entry, as the table's source would write
// it; nullopt for a record the source skips (a null key, bytes its serdes cannot read, an
// invalid timestamp).
using FromSourceRecord = std::function<std::optional<StoreEntry>(
    std::optional<std::string_view> key, std::optional<std::string_view> value, Timestamp)>;

// Whether `serde` lays values out as TimestampedSerde does.
template <class V>
bool is_timestamped(const Serde<V>*) {
  return false;
}
template <class V>
bool is_timestamped(const Serde<ValueAndTimestamp<V>>* serde) {
  return dynamic_cast<const TimestampedSerde<V>*>(serde) != nullptr;
}

struct StoreSpec {
  std::string name;
  StoreType type{};
  StoreKind kind = StoreKind::kKeyValue;
  std::chrono::milliseconds retention{0};    // window and session stores: how long they keep data
  std::chrono::milliseconds window_size{0};  // window stores: window end = start + window_size
  bool retain_duplicates = false;            // window stores: add() keeps every value of a key
  // Window and session stores: every live entry is kept in a memory index grouped by record
  // key, so reads never reach the store below (stores read on every record, small by their
  // retention); in memory the index is the store.
  bool reads_in_memory = false;
  bool logging = true;  // every write goes to the changelog topic <app>-<name>-changelog
  // Values are [8-byte timestamp][value] (TimestampedSerde). Their changelog records carry
  // the value alone and the timestamp as the record's, as Kafka Streams logs timestamped
  // stores; restoration puts the timestamp back in front.
  bool timestamped = false;
  bool caching = true;  // the record cache sits in front of the store
  // Which of its keys the store's processor reads first for a record reaching its
  // sub-topology, if known: the record's key bytes (kRecordKey: the DSL's tables and
  // aggregations), or the key of each time window holding the record's timestamp
  // (kTimeWindows: window_key(record key, start, 0), windows of window_size every
  // window_advance). Tasks prefetch those keys a few records ahead (runtime/read_ahead.h); a
  // wrong guess costs a wasted prefetch, nothing else.
  enum class ReadBy { kUnknown, kRecordKey, kTimeWindows };
  ReadBy read_by = ReadBy::kUnknown;
  std::chrono::milliseconds window_advance{0};
  // reuse.ktable.source.topics: the source topic of the table this store materialises, its
  // changelog instead of one of its own (then `logging` is false): restored up to the
  // application's committed offset, each record through `from_source`. Empty: none.
  std::string source_topic;
  FromSourceRecord from_source;
  // A global table's store: one per application instance, fed from every partition of its
  // source topic by the global thread, read by every task (never logged nor cached).
  bool global = false;
  // The key and value types of the typed facade, and their serdes (Serde<K>, Serde<V>).
  std::type_index key_type = typeid(void);
  std::type_index value_type = typeid(void);
  std::string key_type_name;
  std::string value_type_name;
  std::shared_ptr<const void> key_serde;
  std::shared_ptr<const void> value_serde;
  // Keys from their text form, keys and values as JSON (json_form.h): null for types without
  // that form.
  FromText key_from_text;
  ToJson key_to_json;
  ToJson value_to_json;

  template <class K, class V>
  bool holds() const {
    return key_type == typeid(K) && value_type == typeid(V);
  }
  // "store <name> holds <its types>, not <K, V>".
  template <class K, class V>
  std::string mismatch() const {
    return mismatch(type_name<K>(), type_name<V>());
  }
  std::string mismatch(std::string_view key, std::string_view value) const;

  // "store <name> is a <kind> store, not a <wanted> store", or empty if it is one.
  std::string kind_mismatch(StoreKind wanted) const;

  template <class K, class V>
  static StoreSpec make(std::string name, StoreType type, bool logging, bool caching,
                        SerdePtr<K> key_serde, SerdePtr<V> value_serde) {
    return {.name = std::move(name),
            .type = type,
            .logging = logging,
            .timestamped = is_timestamped(value_serde.get()),
            .caching = caching,
            .key_type = typeid(K),
            .value_type = typeid(V),
            .key_type_name = type_name<K>(),
            .value_type_name = type_name<V>(),
            .key_serde = key_serde,
            .value_serde = value_serde,
            .key_from_text = make_from_text<K>(key_serde),
            .key_to_json = make_to_json<K>(key_serde),
            .value_to_json = make_to_json<V>(value_serde)};
  }
};

// What a processor gets when it asks its task for a store.
struct StoreAccess {
  KeyValueBytesStore& store;
  const StoreSpec& spec;
};

// The typed facade of `access`. Throws std::invalid_argument if the store holds other types
// or is a window or session store.
template <class K, class V>
KeyValueStore<K, V> typed_store(const StoreAccess& access) {
  if (auto wrong = access.spec.kind_mismatch(StoreKind::kKeyValue); !wrong.empty()) {
    throw std::invalid_argument(wrong);
  }
  if (!access.spec.holds<K, V>()) throw std::invalid_argument(access.spec.mismatch<K, V>());
  return KeyValueStore<K, V>(access.store,
                             std::static_pointer_cast<const Serde<K>>(access.spec.key_serde),
                             std::static_pointer_cast<const Serde<V>>(access.spec.value_serde));
}

}  // namespace brook::internal
