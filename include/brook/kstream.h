// KStream<K, V>: an unbounded stream of records, each an independent event.
//
// Every operator adds a node to the topology being described and returns a new stream; the
// stream object itself is a cheap handle and may be copied and branched from freely.
// Callables are copied once per task and called on that task's thread only.
//
//   Predicates:    bool(const K&, const V&)
//   Value mappers: VOut(const V&) or VOut(const K&, const V&)
//   Key/value mappers return brook::KeyValue<KOut, VOut> or std::pair<KOut, VOut>;
//   flat mappers return any range of those (or of values, for flat_map_values).
//
// Mistakes (a missing serde, a duplicate name) are collected and reported together by
// StreamsBuilder::build().
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "brook/internal/dsl_support.h"
#include "brook/internal/stateful.h"
#include "brook/internal/stateless.h"
#include "brook/options.h"
#include "brook/processor.h"
#include "brook/windows.h"

namespace brook {

template <class K, class V>
class BranchedKStream;
template <class K, class V>
class KGroupedStream;
template <class K, class V>
class KTable;
template <class K, class V>
class GlobalKTable;

// A callable that names the topic of a record: std::string-like f(const K&, const V&).
template <class F, class K, class V>
concept TopicOf = std::convertible_to<std::invoke_result_t<F&, const K&, const V&>, std::string>;

template <class K, class V>
class KStream {
 public:
  using key_type = K;
  using value_type = V;

  // `rekeyed`: an operator upstream may have changed the keys, so a key-based operation
  // downstream reads the stream through a repartition topic.
  KStream(std::shared_ptr<internal::GraphBuilder> graph, std::string node, bool rekeyed = false)
      : graph_(std::move(graph)), node_(std::move(node)), rekeyed_(rekeyed) {}

  // The name of the node that produces this stream.
  const std::string& node_name() const { return node_; }
  bool rekeyed() const { return rekeyed_; }

  // Keeps the records for which `pred` is true.
  template <std::predicate<const K&, const V&> Pred>
  KStream filter(Pred pred, Named named = {}) const {
    return add_node<K, V>("KSTREAM-FILTER", named,
                          [pred](const std::string& name) {
                            return std::make_unique<internal::FilterNode<K, V, Pred>>(name, pred,
                                                                                      true);
                          })
        .preserving_records();
  }

  // Drops the records for which `pred` is true.
  template <std::predicate<const K&, const V&> Pred>
  KStream filter_not(Pred pred, Named named = {}) const {
    return add_node<K, V>("KSTREAM-FILTER", named,
                          [pred](const std::string& name) {
                            return std::make_unique<internal::FilterNode<K, V, Pred>>(name, pred,
                                                                                      false);
                          })
        .preserving_records();
  }

  // Replaces key and value. Marks the stream as re-keyed.
  template <class F, class R = std::invoke_result_t<F&, const K&, const V&>,
            class KOut = typename internal::KeyValueTraits<R>::key_type,
            class VOut = typename internal::KeyValueTraits<R>::value_type>
  KStream<KOut, VOut> map(F f, Named named = {}) const {
    return add_node<KOut, VOut>("KSTREAM-MAP", named,
                                [f](const std::string& name) {
                                  return std::make_unique<internal::MapNode<K, V, KOut, VOut, F>>(
                                      name, f);
                                })
        .changed_keys();
  }

  // Replaces the value; the key stays.
  template <class F, class VOut = internal::ValueFnResult<F, K, V>>
  KStream<K, VOut> map_values(F f, Named named = {}) const {
    return add_node<K, VOut>("KSTREAM-MAPVALUES", named, [f](const std::string& name) {
      return std::make_unique<internal::MapValuesNode<K, V, VOut, F>>(name, f);
    });
  }

  // Turns each record into zero or more records. Marks the stream as re-keyed.
  template <class F, class R = std::invoke_result_t<F&, const K&, const V&>,
            class KV = std::ranges::range_value_t<R>,
            class KOut = typename internal::KeyValueTraits<KV>::key_type,
            class VOut = typename internal::KeyValueTraits<KV>::value_type>
  KStream<KOut, VOut> flat_map(F f, Named named = {}) const {
    return add_node<KOut, VOut>(
               "KSTREAM-FLATMAP", named,
               [f](const std::string& name) {
                 return std::make_unique<internal::FlatMapNode<K, V, KOut, VOut, F>>(name, f);
               })
        .changed_keys();
  }

  // Turns each value into zero or more values, each with the record's key.
  template <class F, class VOut = std::ranges::range_value_t<internal::ValueFnResult<F, K, V>>>
  KStream<K, VOut> flat_map_values(F f, Named named = {}) const {
    return add_node<K, VOut>("KSTREAM-FLATMAPVALUES", named, [f](const std::string& name) {
      return std::make_unique<internal::FlatMapValuesNode<K, V, VOut, F>>(name, f);
    });
  }

  // Sets a new key computed from key and value. Marks the stream as re-keyed.
  template <class F, class KOut = std::decay_t<std::invoke_result_t<F&, const K&, const V&>>>
  KStream<KOut, V> select_key(F f, Named named = {}) const {
    return add_node<KOut, V>("KSTREAM-KEY-SELECT", named,
                             [f](const std::string& name) {
                               return std::make_unique<internal::SelectKeyNode<K, V, KOut, F>>(name,
                                                                                               f);
                             })
        .changed_keys();
  }

  // Calls `f(key, value)` for each record and passes the record on unchanged.
  template <std::invocable<const K&, const V&> F>
  KStream peek(F f, Named named = {}) const {
    return add_node<K, V>("KSTREAM-PEEK", named,
                          [f](const std::string& name) {
                            return std::make_unique<internal::PeekNode<K, V, F>>(name, f);
                          })
        .preserving_records();
  }

  // Calls `f(key, value)` for each record. Terminal: nothing follows.
  template <std::invocable<const K&, const V&> F>
  void foreach (F f, Named named = {}) const {
    add_node<K, V>("KSTREAM-FOREACH", named, [f](const std::string& name) {
      return std::make_unique<internal::PeekNode<K, V, F>>(name, f);
    });
  }

  // Splits the stream into named branches: see BranchedKStream.
  BranchedKStream<K, V> split(Named named = {}) const;

  // One stream with the records of both, in the order they are processed.
  KStream merge(const KStream& other, Named named = {}) const {
    auto merged = add_node<K, V>("KSTREAM-MERGE", named,
                                 [](const std::string& name) {
                                   return std::make_unique<internal::PassThroughNode<K, V>>(name);
                                 },
                                 {node_, other.node_});
    // Merged re-keyed streams: for the optimiser, the merge is where the keys changed (so the
    // repartitions downstream of it can become one, as in Kafka Streams).
    if (!merged.rekeyed_ && !other.rekeyed_) return merged;
    return std::move(merged).changed_keys();
  }

  // Groups the records by their key, for an aggregation. If the keys may have changed
  // upstream (map, flat_map, select_key), the aggregation reads the stream through the
  // repartition topic <application.id>-<name>-repartition, so each key lands in one task.
  KGroupedStream<K, V> group_by_key(Grouped<K, V> grouped = {}) const {
    return KGroupedStream<K, V>(graph_, node_, rekeyed_, std::move(grouped));
  }

  // Groups the records by the key `f(key, value)` (a node named grouped.name, if given);
  // always repartitions.
  template <class F, class KOut = std::decay_t<std::invoke_result_t<F&, const K&, const V&>>>
  KGroupedStream<KOut, V> group_by(F f, Grouped<KOut, V> grouped = {}) const {
    return select_key(f, Named{grouped.name}).group_by_key(std::move(grouped));
  }

  // Writes the stream to the topic <application.id>-<name>-repartition and reads it back,
  // spreading it by key over `partitions` partitions. Starts a new sub-topology.
  KStream repartition(Repartitioned<K, V> options = {}) const {
    const auto name = graph_->given_or_generated(options.name, "KSTREAM-REPARTITION");
    return KStream(graph_, internal::add_repartition<K, V>(*graph_, node_, name + "-repartition",
                                                           options.partitions, options.key_serde,
                                                           options.value_serde,
                                                           internal::RepartitionShape::kStream));
  }

  // A table of the latest value per key. With a std::optional value type, nullopt deletes
  // the key. Repartitions first if the keys may have changed.
  KTable<K, internal::UnwrappedT<V>> to_table(
      Materialized<K, internal::UnwrappedT<V>> materialized = {}) const;

  // Runs a hand-written Processor. `supplier` returns a new std::unique_ptr to a Processor
  // on each call; the output types are the processor's KeyOut and ValueOut. Marks the stream
  // as re-keyed, as the processor may change keys (as in Kafka Streams).
  template <class Supplier, class P = typename std::invoke_result_t<Supplier&>::element_type>
  KStream<typename P::KeyOut, typename P::ValueOut> process(Supplier supplier,
                                                            Processed options = {}) const {
    using KOut = typename P::KeyOut;
    using VOut = typename P::ValueOut;
    static_assert(std::is_base_of_v<Processor<K, V, KOut, VOut>, P>,
                  "process(): the supplier must return a std::unique_ptr to a "
                  "brook::Processor whose input types are this stream's key and value types");
    return add<KOut, VOut>(
               "", Named{graph_->given_or_generated(options.name, "KSTREAM-PROCESSOR")},
               [supplier]() mutable {
                 return std::unique_ptr<Processor<K, V, KOut, VOut>>(supplier());
               },
               {node_}, std::move(options.stores))
        .changed_keys();
  }

  // Joins with a table (brook/stream_table_join.h): each record looks its key up in the
  // table (its latest value as of the record's time) and joiner(value, table value) is the
  // output value; only stream records trigger. join() drops records whose key is not in the
  // table, left_join() calls joiner(value, std::optional<VT>) with nullopt for them. A stream
  // keyed by std::optional<KT> joins a table keyed by KT: a null key matches no row (join()
  // drops the record and counts it in dropped-records; left_join() emits it with nullopt).
  template <class VT, class F,
            class VR = std::decay_t<std::invoke_result_t<F&, const V&, const VT&>>>
  KStream<K, VR> join(const KTable<internal::UnwrappedT<K>, VT>& table, F joiner,
                      Joined<K, V> joined = {}) const;
  template <class VT, class F,
            class VR = std::decay_t<std::invoke_result_t<F&, const V&, const std::optional<VT>&>>>
  KStream<K, VR> left_join(const KTable<internal::UnwrappedT<K>, VT>& table, F joiner,
                           Joined<K, V> joined = {}) const;

  // Joins with a global table (brook/global_ktable.h): each record looks up
  // key_mapper(key, value) (KG(const K&, const V&), or std::optional<KG> where nullopt means no
  // lookup key) in the table, replicated on every instance, and joiner(value, table value) is
  // the output value, under the record's key, timestamp and headers; only stream records
  // trigger. No co-partitioning and no repartitioning. join() drops records whose lookup key
  // is not in the table (a nullopt one is also counted in dropped-records); left_join() calls
  // joiner(value, std::optional<VG>) with nullopt for them.
  template <class KG, class VG, class KM, class F,
            class VR = std::decay_t<std::invoke_result_t<F&, const V&, const VG&>>>
  KStream<K, VR> join(const GlobalKTable<KG, VG>& table, KM key_mapper, F joiner,
                      Named named = {}) const;
  template <class KG, class VG, class KM, class F,
            class VR = std::decay_t<std::invoke_result_t<F&, const V&, const std::optional<VG>&>>>
  KStream<K, VR> left_join(const GlobalKTable<KG, VG>& table, KM key_mapper, F joiner,
                           Named named = {}) const;

  // Windowed joins with another stream (brook/stream_stream_join.h).
  // Each record of either stream is kept for the window and joined with every record of the
  // other stream with the same key whose time t2 is within the window of its time t1
  // (t1 - before <= t2 <= t1 + after, both inclusive): output key = the key, value =
  // joiner(this value, other value), timestamp max(t1, t2). A record whose window closed (its
  // end + grace is before stream time) is dropped and counted (dropped-records). left_join()
  // also emits joiner(value, nullopt) for each record of this stream that found no match, and
  // outer_join() joiner(nullopt, other value) for the other stream's too: only once no match
  // can come any more (stream time > t + before + after + grace), never a spurious one. Both
  // streams must be co-partitioned; a re-keyed one is repartitioned first. A stream may be
  // joined with itself (every record then also joins itself). Keys may be std::optional: a
  // null-keyed record matches nothing, so an outer side (the left of left_join(), both of
  // outer_join()) emits it unmatched at once, and an inner side drops it (dropped-records).
  template <class VO, class F,
            class VR = std::decay_t<std::invoke_result_t<F&, const V&, const VO&>>>
  KStream<K, VR> join(const KStream<K, VO>& other, F joiner, JoinWindows windows,
                      StreamJoined<K, V, VO> joined = {}) const;
  template <class VO, class F,
            class VR = std::decay_t<std::invoke_result_t<F&, const V&, const std::optional<VO>&>>>
  KStream<K, VR> left_join(const KStream<K, VO>& other, F joiner, JoinWindows windows,
                           StreamJoined<K, V, VO> joined = {}) const;
  template <class VO, class F,
            class VR = std::decay_t<
                std::invoke_result_t<F&, const std::optional<V>&, const std::optional<VO>&>>>
  KStream<K, VR> outer_join(const KStream<K, VO>& other, F joiner, JoinWindows windows,
                            StreamJoined<K, V, VO> joined = {}) const;

  // Writes every record to `topic`.
  void to(std::string topic, Produced<K, V> produced = {}) const {
    add_sink(std::move(produced), {std::move(topic)}, "", {});
  }

  // Writes each record to the topic `extractor(key, value)` names.
  template <TopicOf<K, V> F>
  void to(F extractor, Produced<K, V> produced = {}) const {
    auto dynamic = [extractor](const Record<K, V>& r) mutable {
      return std::string(extractor(r.key, r.value));
    };
    add_sink(std::move(produced), {}, "brook::TopicNameExtractor", std::move(dynamic));
  }

 private:
  template <class, class>
  friend class KStream;
  template <class, class>
  friend class BranchedKStream;

  template <class, class>
  friend class KGroupedStream;

  // join() and left_join() with a table (brook/stream_table_join.h).
  template <bool kLeft, class VT, class VR, class F>
  KStream<K, VR> table_join(const KTable<internal::UnwrappedT<K>, VT>& table, F joiner,
                            Joined<K, V> joined) const;
  // join() and left_join() with a global table (brook/global_ktable.h).
  template <bool kLeft, class KG, class VG, class VR, class KM, class F>
  KStream<K, VR> global_table_join(const GlobalKTable<KG, VG>& table, KM key_mapper, F joiner,
                                   Named named) const;

  // join(), left_join() and outer_join() with a stream (brook/stream_stream_join.h).
  template <internal::StreamJoinKind kKind, class VO, class VR, class F>
  KStream<K, VR> stream_join(const KStream<K, VO>& other, F joiner, JoinWindows windows,
                             StreamJoined<K, V, VO> joined) const;

  // The stream after a new processor node, the node `make(name)` returns; still re-keyed if
  // this one was.
  template <class KOut, class VOut, class MakeNode>
  KStream<KOut, VOut> add_node(std::string_view prefix, const Named& named, MakeNode make,
                               std::vector<std::string> parents = {},
                               std::vector<std::string> stores = {}) const {
    if (parents.empty()) parents.push_back(node_);
    return KStream<KOut, VOut>(graph_,
                               internal::add_node(*graph_, prefix, named.name, std::move(parents),
                                                  std::move(make), std::move(stores)),
                               rekeyed_);
  }
  // The stream after a new node running the processor `make()` returns; still re-keyed if this
  // one was.
  template <class KOut, class VOut, class MakeProcessor>
  KStream<KOut, VOut> add(std::string_view prefix, const Named& named, MakeProcessor make,
                          std::vector<std::string> parents = {},
                          std::vector<std::string> stores = {}) const {
    return add_node<KOut, VOut>(prefix, named,
                                internal::processor_node<K, V, KOut, VOut>(std::move(make)),
                                std::move(parents), std::move(stores));
  }
  KStream rekey() && {
    rekeyed_ = true;
    return std::move(*this);
  }
  // This stream, whose node may have changed the keys.
  KStream changed_keys() && {
    graph_->set_role(node_, internal::NodeRole::kKeyChanging);
    return std::move(*this).rekey();
  }
  // This stream, whose node passes some of its input records on unchanged.
  KStream preserving_records() && {
    graph_->set_role(node_, internal::NodeRole::kRecordPreserving);
    return std::move(*this);
  }
  // This stream, read through a repartition topic <topic_name> if it was re-keyed.
  KStream repartitioned_if_needed(const std::string& topic_name, std::int32_t partitions,
                                  SerdePtr<SerdeTargetT<K>> key_serde,
                                  SerdePtr<SerdeTargetT<V>> value_serde) const {
    if (!rekeyed_) return *this;
    return KStream(graph_, internal::add_repartition<K, V>(
                               *graph_, node_, topic_name, partitions, std::move(key_serde),
                               std::move(value_serde), internal::RepartitionShape::kStream,
                               internal::Repartitioning::kForKeyChange));
  }

  // A sink writing `topics`' one topic, or each record to the topic `topic_of` names if set.
  void add_sink(Produced<K, V> produced, std::vector<std::string> topics, std::string extractor,
                internal::TopicNameExtractor<K, V> topic_of) const {
    std::string topic = topic_of ? std::string() : topics.front();
    auto name = graph_->name_for(produced.name, "KSTREAM-SINK");
    auto key_serde =
        internal::serde_or_default<K>(*graph_, produced.key_serde, name, "sink", "key", "Produced");
    auto value_serde = internal::serde_or_default<V>(*graph_, produced.value_serde, name, "sink",
                                                     "value", "Produced");
    internal::add_sink_node(*graph_, name, {node_}, std::move(topics), false, std::move(extractor),
                            [topic, topic_of, key_serde, value_serde](
                                const std::string& node_name) -> std::unique_ptr<internal::Node> {
                              return std::make_unique<internal::SinkNode<K, V>>(
                                  node_name, topic, topic_of, key_serde, value_serde);
                            });
  }

  std::shared_ptr<internal::GraphBuilder> graph_;
  std::string node_;
  bool rekeyed_ = false;
};

// The branches of a KStream::split(). Each record goes to the first branch whose predicate
// matches; records matching none go to the default branch, or are dropped without one.
template <class K, class V>
class BranchedKStream {
 public:
  BranchedKStream(KStream<K, V> parent, std::string prefix)
      : parent_(std::move(parent)),
        prefix_(std::move(prefix)),
        list_(std::make_shared<internal::BranchList<K, V>>()) {
    parent_
        .template add_node<K, V>("KSTREAM-BRANCH", Named{prefix_},
                                 [list = std::shared_ptr<const internal::BranchList<K, V>>(list_)](
                                     const std::string& name) {
                                   return std::make_unique<internal::BranchNode<K, V>>(name, list);
                                 })
        .preserving_records();
  }

  template <std::predicate<const K&, const V&> Pred>
  BranchedKStream& branch(Pred pred, Branched branched = {}) {
    auto name = prefix_ + (branched.name.empty() ? std::to_string(list_->branches.size() + 1)
                                                 : branched.name);
    list_->branches.push_back({std::move(pred), name});
    add_child(std::move(name));
    return *this;
  }

  // Ends the split with a branch for records no predicate matched.
  std::map<std::string, KStream<K, V>> default_branch(Branched branched = {}) {
    list_->default_child = prefix_ + (branched.name.empty() ? "0" : branched.name);
    add_child(list_->default_child);
    return std::move(streams_);
  }
  // Ends the split; records no predicate matched are dropped.
  std::map<std::string, KStream<K, V>> no_default_branch() { return std::move(streams_); }

 private:
  void add_child(std::string name) {
    KStream<K, V> branch_node(parent_.graph_, prefix_);
    streams_.emplace(name, branch_node
                               .template add_node<K, V>(
                                   "KSTREAM-BRANCHCHILD", Named{name},
                                   [](const std::string& node) {
                                     return std::make_unique<internal::PassThroughNode<K, V>>(node);
                                   })
                               .preserving_records());
  }

  KStream<K, V> parent_;
  std::string prefix_;
  std::shared_ptr<internal::BranchList<K, V>> list_;
  std::map<std::string, KStream<K, V>> streams_;
};

template <class K, class V>
BranchedKStream<K, V> KStream<K, V>::split(Named named) const {
  return BranchedKStream<K, V>(*this, graph_->name_for(named.name, "KSTREAM-BRANCH"));
}

}  // namespace brook

#include "brook/foreign_key_join.h"
#include "brook/global_ktable.h"
#include "brook/kgrouped_stream.h"
#include "brook/ktable.h"
#include "brook/stream_stream_join.h"
#include "brook/stream_table_join.h"
#include "brook/table_table_join.h"
