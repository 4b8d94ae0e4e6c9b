// StreamsBuilder: the entry point of the DSL. Describe streams, then build() the Topology.
//
//   brook::StreamsBuilder builder;
//   builder.stream<std::string, std::string>("logs").filter(...).to("errors");
//   auto topology = builder.build();
//   if (!topology) return brook::report(topology.error());
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "brook/global_ktable.h"
#include "brook/kstream.h"
#include "brook/options.h"
#include "brook/topology.h"

namespace brook {

template <class V>
struct ChangeEvent;  // brook/change_event.h

class StreamsBuilder {
 public:
  StreamsBuilder() : graph_(std::make_shared<internal::GraphBuilder>()) {}

  // A stream of the records of `topics`. A topic may be read by one source only.
  template <class K, class V>
  KStream<K, V> stream(std::vector<std::string> topics, Consumed<K, V> consumed = {}) {
    return KStream<K, V>(graph_, add_source<K, V>(std::move(topics), consumed).name);
  }

  template <class K, class V>
  KStream<K, V> stream(std::string topic, Consumed<K, V> consumed = {}) {
    return stream<K, V>(std::vector<std::string>{std::move(topic)}, std::move(consumed));
  }

  // A table of the latest value per key of `topic` (best a compacted topic); a null value
  // deletes its key. A record with a null key is dropped, counted in dropped-records and
  // logged: a row needs a key (so K is never std::optional). Materialised in a store named
  // `materialized.name` (or generated), which is restored from its changelog on start (with
  // reuse.ktable.source.topics: from `topic` itself, see build()).
  template <class K, class V>
  KTable<K, V> table(std::string topic, Consumed<K, std::optional<V>> consumed = {},
                     Materialized<K, V> materialized = {}) {
    static_assert(!internal::kIsOptional<K>,
                  "StreamsBuilder::table<K, V>: a table's key type must not be std::optional "
                  "(records with a null key are dropped: a row needs a key)");
    // The store first: its generated name takes the first number, as in Kafka Streams.
    auto declared = internal::add_table_store<K, V>(*graph_, materialized, topic);
    auto source = add_source<K, std::optional<V>>({topic}, consumed, internal::NullKeys::kDrop);
    auto store = declared.name;
    if (!consumed.timestamp_extractor && !consumed.wall_clock_time) {
      graph_->add_table_source(
          {.topic = topic,
           .store = store,
           .from_source = internal::table_entry_of<K, V>(
               source.key_serde, source.value_serde, declared.key_serde, declared.value_serde)});
    }
    auto node = internal::add_processor<K, std::optional<V>, K, internal::Change<V>>(
        *graph_, "KTABLE-SOURCE", "", {source.name},
        [store] {
          return std::make_unique<internal::TableSourceProcessor<K, std::optional<V>>>(store);
        },
        {store});
    return KTable<K, V>(graph_, node, store);
  }

  // A table of the rows of `topic`, a topic of Debezium change events (defined in
  // brook/change_event.h: include it to call this):
  // each key's row is the `after` image of its latest event; a delete, and the tombstone
  // Debezium writes after it, delete the key. Values are read by default with
  // DebeziumSerde<V>(kAfterOnly) (`before` is not needed, nor read), keys by
  // default with DebeziumKeySerde<K> when K defaults to JSON (the object of the primary key's
  // columns, with or without its `schema` part). A record with a null key is dropped, counted
  // and logged, as for table(): Debezium's truncate events have none, so a truncate does not
  // empty the table. A malformed event goes to the deserialisation exception handler. The
  // table is materialised with a changelog of its own (the topic holds events, not rows).
  template <class K, class V>
  KTable<K, V> table_from_changes(std::string topic,
                                  Consumed<K, std::optional<ChangeEvent<V>>> consumed = {},
                                  Materialized<K, V> materialized = {});

  // Global tables (brook/global_ktable.h): a table of the latest value per key of every
  // partition of `topic` (best a compacted topic; it is the table's only log), replicated in
  // full on every instance in the store `materialized.name` (or generated; RocksDB or in
  // memory, never logged nor cached), restored to the end of the topic before any stream
  // thread processes and kept up to date by the global thread. A null value deletes its key;
  // a record with a null key is dropped, counted and logged, as for table(). Join streams
  // with it (KStream::join / left_join with a key mapper); query it with
  // Streams::store<K, V>(store_name()).
  template <class K, class V>
  GlobalKTable<K, V> global_table(std::string topic, Consumed<K, std::optional<V>> consumed = {},
                                  Materialized<K, V> materialized = {}) {
    static_assert(!internal::kIsOptional<K>,
                  "StreamsBuilder::global_table<K, V>: a table's key type must not be "
                  "std::optional (records with a null key are dropped: a row needs a key)");
    return internal::add_global_table<K, V>(graph_, std::move(topic), consumed, materialized);
  }

  // Declares a key-value store for the Processor API: connect it to processors with
  // Processed{.stores = {name}} and open it with context.key_value_store<K, V>(name).
  template <class K, class V>
  void add_state_store(Materialized<K, V> materialized) {
    if (materialized.name.empty()) {
      graph_->add_error(Status::invalid_argument("add_state_store: the store needs a name"));
    }
    auto key_serde = internal::serde_or_default<K>(
        *graph_, materialized.key_serde, materialized.name, "store", "key", "Materialized");
    auto value_serde = internal::serde_or_default<V>(
        *graph_, materialized.value_serde, materialized.name, "store", "value", "Materialized");
    graph_->add_store(internal::StoreSpec::make<K, V>(materialized.name, materialized.type,
                                                      materialized.logging, materialized.caching,
                                                      key_serde, value_serde));
  }

  // The topology described so far, or one Status listing every mistake, each naming its
  // node. Call once; the builder is spent afterwards. `config` may be the application's
  // Streams configuration: build() reads topology.optimization from it and ignores the other
  // keys. Its values, as Kafka Streams': "none" (the default), "all", or a comma-separated
  // list of optimisation names: reuse.ktable.source.topics (a table's store restores from the
  // table's topic, with no changelog of its own), merge.repartition.topics (one repartition
  // topic per key change) (docs/configuration.md).
  // Give Streams the same configuration: it refuses a topology built otherwise.
  Result<Topology> build(const std::map<std::string, std::string>& config = {}) {
    return graph_->build(config);
  }

 private:
  // A source node just added: its name and serdes.
  template <class K, class V>
  struct AddedSource {
    std::string name;
    SerdePtr<SerdeTargetT<K>> key_serde;
    SerdePtr<SerdeTargetT<V>> value_serde;
  };

  template <class K, class V>
  AddedSource<K, V> add_source(std::vector<std::string> topics, const Consumed<K, V>& consumed,
                               internal::NullKeys null_keys = internal::NullKeys::kRead) {
    auto name = graph_->name_for(consumed.name, "KSTREAM-SOURCE");
    auto key_serde = internal::serde_or_default<K>(*graph_, consumed.key_serde, name, "source",
                                                   "key", "Consumed");
    auto value_serde = internal::serde_or_default<V>(*graph_, consumed.value_serde, name, "source",
                                                     "value", "Consumed");
    if (consumed.timestamp_extractor && consumed.wall_clock_time) {
      graph_->add_error(Status::invalid_argument(
          "source " + name +
          ": Consumed sets both timestamp_extractor and wall_clock_time; choose one"));
    }
    internal::add_source<K, V>(*graph_, name, std::move(topics), false, key_serde, value_serde,
                               {.extractor = consumed.timestamp_extractor,
                                .wall_clock = consumed.wall_clock_time,
                                .on_invalid = consumed.on_invalid_timestamp},
                               null_keys);
    return {std::move(name), std::move(key_serde), std::move(value_serde)};
  }

  std::shared_ptr<internal::GraphBuilder> graph_;
};

}  // namespace brook
