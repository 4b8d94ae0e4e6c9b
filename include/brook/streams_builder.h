// StreamsBuilder: the entry point of the DSL. Describe streams, then build() the Topology.
//
//   brook::StreamsBuilder builder;
//   builder.stream<std::string, std::string>("logs").filter(...).to("errors");
//   auto topology = builder.build();
//   if (!topology) return brook::report(topology.error());
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "brook/kstream.h"
#include "brook/options.h"
#include "brook/topology.h"

namespace brook {

class StreamsBuilder {
 public:
  StreamsBuilder() : graph_(std::make_shared<internal::GraphBuilder>()) {}

  // A stream of the records of `topics`. A topic may be read by one source only.
  template <class K, class V>
  KStream<K, V> stream(std::vector<std::string> topics, Consumed<K, V> consumed = {}) {
    auto name = graph_->name_for(consumed.name, "KSTREAM-SOURCE");
    auto key_serde = consumed.key_serde ? consumed.key_serde : default_serde<K>();
    auto value_serde = consumed.value_serde ? consumed.value_serde : default_serde<V>();
    if (!key_serde)
      KStream<K, V>::template missing_serde<K>(*graph_, name, "source", "key", "Consumed");
    if (!value_serde) {
      KStream<K, V>::template missing_serde<V>(*graph_, name, "source", "value", "Consumed");
    }
    graph_->add({.name = name,
                 .kind = internal::NodeKind::kSource,
                 .topics = std::move(topics),
                 .factory = [name, key_serde, value_serde] -> std::unique_ptr<internal::Node> {
                   return std::make_unique<internal::SourceNode<K, V>>(name, key_serde,
                                                                       value_serde);
                 }});
    return KStream<K, V>(graph_, name);
  }

  template <class K, class V>
  KStream<K, V> stream(std::string topic, Consumed<K, V> consumed = {}) {
    return stream<K, V>(std::vector<std::string>{std::move(topic)}, std::move(consumed));
  }

  // The topology described so far, or one Status listing every mistake, each naming its
  // node. Call once; the builder is spent afterwards.
  Result<Topology> build() { return graph_->build(); }

 private:
  std::shared_ptr<internal::GraphBuilder> graph_;
};

}  // namespace brook
