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
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "brook/internal/graph_builder.h"
#include "brook/internal/node.h"
#include "brook/internal/stateless.h"
#include "brook/internal/type_name.h"
#include "brook/options.h"
#include "brook/processor.h"

namespace brook {

template <class K, class V>
class BranchedKStream;

// A callable that names the topic of a record: std::string-like f(const K&, const V&).
template <class F, class K, class V>
concept TopicOf = std::convertible_to<std::invoke_result_t<F&, const K&, const V&>, std::string>;

template <class K, class V>
class KStream {
 public:
  using key_type = K;
  using value_type = V;

  KStream(std::shared_ptr<internal::GraphBuilder> graph, std::string node)
      : graph_(std::move(graph)), node_(std::move(node)) {}

  // The name of the node that produces this stream.
  const std::string& node_name() const { return node_; }

  // Keeps the records for which `pred` is true.
  template <std::predicate<const K&, const V&> Pred>
  KStream filter(Pred pred, Named named = {}) const {
    return add<K, V>("KSTREAM-FILTER", named, [pred] {
      return std::make_unique<internal::FilterProcessor<K, V, Pred>>(pred, true);
    });
  }

  // Drops the records for which `pred` is true.
  template <std::predicate<const K&, const V&> Pred>
  KStream filter_not(Pred pred, Named named = {}) const {
    return add<K, V>("KSTREAM-FILTER", named, [pred] {
      return std::make_unique<internal::FilterProcessor<K, V, Pred>>(pred, false);
    });
  }

  // Replaces key and value. Marks the stream as re-keyed.
  template <class F, class R = std::invoke_result_t<F&, const K&, const V&>,
            class KOut = typename internal::KeyValueTraits<R>::key_type,
            class VOut = typename internal::KeyValueTraits<R>::value_type>
  KStream<KOut, VOut> map(F f, Named named = {}) const {
    return add<KOut, VOut>("KSTREAM-MAP", named, [f] {
      return std::make_unique<internal::MapProcessor<K, V, KOut, VOut, F>>(f);
    });
  }

  // Replaces the value; the key stays.
  template <class F, class VOut = internal::ValueFnResult<F, K, V>>
  KStream<K, VOut> map_values(F f, Named named = {}) const {
    return add<K, VOut>("KSTREAM-MAPVALUES", named, [f] {
      return std::make_unique<internal::MapValuesProcessor<K, V, VOut, F>>(f);
    });
  }

  // Turns each record into zero or more records. Marks the stream as re-keyed.
  template <class F, class R = std::invoke_result_t<F&, const K&, const V&>,
            class KV = std::ranges::range_value_t<R>,
            class KOut = typename internal::KeyValueTraits<KV>::key_type,
            class VOut = typename internal::KeyValueTraits<KV>::value_type>
  KStream<KOut, VOut> flat_map(F f, Named named = {}) const {
    return add<KOut, VOut>("KSTREAM-FLATMAP", named, [f] {
      return std::make_unique<internal::FlatMapProcessor<K, V, KOut, VOut, F>>(f);
    });
  }

  // Turns each value into zero or more values, each with the record's key.
  template <class F, class VOut = std::ranges::range_value_t<internal::ValueFnResult<F, K, V>>>
  KStream<K, VOut> flat_map_values(F f, Named named = {}) const {
    return add<K, VOut>("KSTREAM-FLATMAPVALUES", named, [f] {
      return std::make_unique<internal::FlatMapValuesProcessor<K, V, VOut, F>>(f);
    });
  }

  // Sets a new key computed from key and value. Marks the stream as re-keyed.
  template <class F, class KOut = std::decay_t<std::invoke_result_t<F&, const K&, const V&>>>
  KStream<KOut, V> select_key(F f, Named named = {}) const {
    return add<KOut, V>("KSTREAM-KEY-SELECT", named, [f] {
      return std::make_unique<internal::SelectKeyProcessor<K, V, KOut, F>>(f);
    });
  }

  // Calls `f(key, value)` for each record and passes the record on unchanged.
  template <std::invocable<const K&, const V&> F>
  KStream peek(F f, Named named = {}) const {
    return add<K, V>("KSTREAM-PEEK", named,
                     [f] { return std::make_unique<internal::PeekProcessor<K, V, F>>(f); });
  }

  // Calls `f(key, value)` for each record. Terminal: nothing follows.
  template <std::invocable<const K&, const V&> F>
  void foreach (F f, Named named = {}) const {
    add<K, V>("KSTREAM-FOREACH", named,
              [f] { return std::make_unique<internal::PeekProcessor<K, V, F>>(f); });
  }

  // Splits the stream into named branches: see BranchedKStream.
  BranchedKStream<K, V> split(Named named = {}) const;

  // One stream with the records of both, in the order they are processed.
  KStream merge(const KStream& other, Named named = {}) const {
    return add<K, V>("KSTREAM-MERGE", named,
                     [] { return std::make_unique<internal::PassThroughProcessor<K, V>>(); },
                     {node_, other.node_});
  }

  // Runs a hand-written Processor. `supplier` returns a new std::unique_ptr to a Processor
  // on each call; the output types are the processor's KeyOut and ValueOut.
  template <class Supplier, class P = typename std::invoke_result_t<Supplier&>::element_type>
  KStream<typename P::KeyOut, typename P::ValueOut> process(Supplier supplier,
                                                            Processed options = {}) const {
    using KOut = typename P::KeyOut;
    using VOut = typename P::ValueOut;
    static_assert(std::is_base_of_v<Processor<K, V, KOut, VOut>, P>,
                  "process(): the supplier must return a std::unique_ptr to a "
                  "brook::Processor whose input types are this stream's key and value types");
    return add<KOut, VOut>(
        "KSTREAM-PROCESSOR", Named{options.name},
        [supplier]() mutable { return std::unique_ptr<Processor<K, V, KOut, VOut>>(supplier()); },
        {node_}, std::move(options.stores));
  }

  // Writes every record to `topic`.
  void to(std::string topic, Produced<K, V> produced = {}) const {
    auto fixed = [topic](const Record<K, V>&) { return topic; };
    add_sink(std::move(produced), {std::move(topic)}, "", std::move(fixed));
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

  template <class KOut, class VOut, class MakeProcessor>
  KStream<KOut, VOut> add(std::string_view prefix, const Named& named, MakeProcessor make,
                          std::vector<std::string> parents = {},
                          std::vector<std::string> stores = {}) const {
    auto name = graph_->name_for(named.name, prefix);
    if (parents.empty()) parents.push_back(node_);
    graph_->add({.name = name,
                 .kind = internal::NodeKind::kProcessor,
                 .parents = std::move(parents),
                 .stores = std::move(stores),
                 .factory = [name, make]() mutable -> std::unique_ptr<internal::Node> {
                   return std::make_unique<internal::ProcessorNode<K, V, KOut, VOut>>(name, make());
                 }});
    return KStream<KOut, VOut>(graph_, std::move(name));
  }

  void add_sink(Produced<K, V> produced, std::vector<std::string> topics, std::string extractor,
                internal::TopicNameExtractor<K, V> topic_of) const {
    auto name = graph_->name_for(produced.name, "KSTREAM-SINK");
    auto key_serde = produced.key_serde ? produced.key_serde : default_serde<K>();
    auto value_serde = produced.value_serde ? produced.value_serde : default_serde<V>();
    if (!key_serde) missing_serde<K>(name, "sink", "key", "Produced");
    if (!value_serde) missing_serde<V>(name, "sink", "value", "Produced");
    graph_->add(
        {.name = name,
         .kind = internal::NodeKind::kSink,
         .parents = {node_},
         .topics = std::move(topics),
         .topic_extractor = std::move(extractor),
         .factory = [name, topic_of, key_serde, value_serde] -> std::unique_ptr<internal::Node> {
           return std::make_unique<internal::SinkNode<K, V>>(name, topic_of, key_serde,
                                                             value_serde);
         }});
  }

 public:
  // Records the absence of a serde for T at node `name` (also used by StreamsBuilder).
  template <class T>
  static void missing_serde(internal::GraphBuilder& graph, const std::string& name,
                            std::string_view kind, std::string_view what,
                            std::string_view options) {
    graph.add_error(Status::invalid_argument(
        std::string(kind) + " " + name + ": no " + std::string(what) + " serde for type " +
        internal::type_name<SerdeTargetT<T>>() + "; give one in " + std::string(options) + "{." +
        std::string(what) + "_serde = ...} or specialise brook::DefaultSerde"));
  }

 private:
  template <class T>
  void missing_serde(const std::string& name, std::string_view kind, std::string_view what,
                     std::string_view options) const {
    missing_serde<T>(*graph_, name, kind, what, options);
  }

  std::shared_ptr<internal::GraphBuilder> graph_;
  std::string node_;
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
    parent_.template add<K, V>("KSTREAM-BRANCH", Named{prefix_},
                               [list = std::shared_ptr<const internal::BranchList<K, V>>(list_)] {
                                 return std::make_unique<internal::BranchProcessor<K, V>>(list);
                               });
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
    streams_.emplace(name, branch_node.template add<K, V>("KSTREAM-BRANCHCHILD", Named{name}, [] {
      return std::make_unique<internal::PassThroughProcessor<K, V>>();
    }));
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
