// Options of DSL operators, as aggregates for designated initialisers:
//   stream.filter(pred, {.name = "only-errors"});
//   stream.to("out", {.value_serde = std::make_shared<brook::AvroSerde>(schema)});
// An empty name means: generate one (KSTREAM-<OP>-<counter>). Name every node whose name
// must stay stable across versions of the application.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "brook/serde.h"
#include "brook/state_store.h"
#include "brook/timestamps.h"

namespace brook {

struct Named {
  std::string name;
};

// How a source reads a topic. Null serdes mean: the type's DefaultSerde.
//
// The records' event time (brook/timestamps.h): the log's timestamp by default; what
// `timestamp_extractor` returns if set; the task's wall clock when the record is processed if
// `wall_clock_time` (setting both is an error of build()). A negative timestamp is handled as
// `on_invalid_timestamp` says.
template <class K, class V>
struct Consumed {
  SerdePtr<SerdeTargetT<K>> key_serde;
  SerdePtr<SerdeTargetT<V>> value_serde;
  std::string name;
  TimestampExtractor<K, V> timestamp_extractor;
  bool wall_clock_time = false;
  InvalidTimestamp on_invalid_timestamp = InvalidTimestamp::kFail;
};

// How a sink writes a topic. Null serdes mean: the type's DefaultSerde.
template <class K, class V>
struct Produced {
  SerdePtr<SerdeTargetT<K>> key_serde;
  SerdePtr<SerdeTargetT<V>> value_serde;
  std::string name;
};

// One branch of KStream::split(). The branch's stream is found in the returned map under the
// split's name prefix + this name (or + its 1-based position if unnamed; the default branch
// is "0").
struct Branched {
  std::string name;
};

}  // namespace brook

namespace brook {

// KStream::process(): the node's name and the state stores its processor uses.
struct Processed {
  std::string name;
  std::vector<std::string> stores;
};

}  // namespace brook

namespace brook {

// The store behind a table or an aggregation, and the Processor API's add_state_store().
// An empty name generates one (it then changes when operators are added before it: name
// every store whose state must survive a new version of the application).
template <class K, class V>
struct Materialized {
  std::string name;
  StoreType type = StoreType::kRocksDb;
  bool logging = true;  // a changelog topic <application.id>-<name>-changelog restores it
  bool caching = true;  // the record cache collapses updates per key until commit
  SerdePtr<K> key_serde;
  SerdePtr<V> value_serde;
  // Window and session stores: how long windows are kept, for queries (0: the least the
  // windows need, window size + grace; less is an error).
  std::chrono::milliseconds retention{0};
};

// group_by / group_by_key: the name of the repartition topic (<name>-repartition), its
// partition count (0: as many as the writing sub-topology has tasks; 1 puts every group in one
// task) and the serdes it is written with, if the stream needs repartitioning. group_by also
// gives the name to its key-selecting node, as Kafka Streams.
template <class K, class V>
struct Grouped {
  std::string name;
  std::int32_t partitions = 0;
  SerdePtr<SerdeTargetT<K>> key_serde;
  SerdePtr<SerdeTargetT<V>> value_serde;
};

// Joins of a stream with a table: the join node's name, and how the stream is repartitioned if
// its keys may have changed (topic <application.id>-<name>-repartition, with the serdes given
// or the types' defaults, as many partitions as the table's topic).
template <class K, class V>
struct Joined {
  std::string name;
  SerdePtr<SerdeTargetT<K>> key_serde;
  SerdePtr<SerdeTargetT<V>> value_serde;
};

// Foreign-key joins of tables (KTable::join with a foreign_key function): `name` prefixes
// the join's nodes, its internal topics <application.id>-<name>-subscription-registration-topic
// and -subscription-response-topic, and its store <name>-subscription-store (empty: Kafka
// Streams' generated names, KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-<counter>-topic, ...,
// which move when the topology changes). Name it to keep them stable across versions.
struct TableJoined {
  std::string name;
};

// Windowed stream-stream joins (KStream::join with another stream), named as Kafka Streams
// names them. `name` names the nodes: <name>-this-windowed / -other-windowed (each side's
// records into its store), <name>-this-join / -other-join (-outer-this-join / -outer-other-join
// on a side whose unmatched records are emitted: the other side of a left join, both of an
// outer join) and <name>-merge (the output); and the repartition topics
// <application.id>-<name>-left-repartition / -right-repartition of a re-keyed side. `store_name`
// names the stores: <store_name><join node suffix>-store for each side's records within the
// window (e.g. <store_name>-this-join-store) and, for left and outer joins,
// <store_name>-left-shared-join-store / -outer-shared-join-store (records still waiting for a
// match); their changelogs are <application.id>-<store>-changelog. Unnamed, each takes a
// generated name (KSTREAM-JOINTHIS-0000000004-store, ...), which moves when the topology
// changes: name both to keep the state across versions of the application. The serdes (null:
// the types' defaults) serve the stores and the repartition topics.
template <class K, class V, class VO>
struct StreamJoined {
  std::string name;
  std::string store_name;
  StoreType type = StoreType::kRocksDb;
  bool logging = true;  // changelog topics <application.id>-<store>-changelog restore the stores
  SerdePtr<SerdeTargetT<K>> key_serde;
  SerdePtr<SerdeTargetT<V>> value_serde;         // this stream's values
  SerdePtr<SerdeTargetT<VO>> other_value_serde;  // the other stream's values
};

// KStream::repartition(): the topic <application.id>-<name>-repartition with `partitions`
// partitions (0: as many as the writing sub-topology has tasks).
template <class K, class V>
struct Repartitioned {
  std::string name;
  std::int32_t partitions = 0;
  SerdePtr<SerdeTargetT<K>> key_serde;
  SerdePtr<SerdeTargetT<V>> value_serde;
};

}  // namespace brook
