#include "brook/internal/graph_builder.h"

#include <fmt/format.h>

#include <algorithm>

#include "brook/internal/dsl_support.h"
#include "brook/topology.h"
#include "dsl/optimizer.h"

namespace brook::internal {

namespace {

// Whether `name` is a generated name: "KSTREAM...-<10 digits>".
bool is_generated_stream_name(std::string_view name) {
  constexpr std::size_t kDigits = 10;
  if (!name.starts_with("KSTREAM") || name.size() < kDigits + 1) return false;
  const auto number = name.substr(name.size() - kDigits);
  return name[name.size() - kDigits - 1] == '-' &&
         std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

GraphBuilder::~GraphBuilder() = default;

std::string GraphBuilder::name_for(const std::string& user_name, std::string_view prefix) {
  if (prefix.empty()) return user_name;
  auto generated = given_or_generated("", prefix);
  return user_name.empty() ? generated : user_name;
}

std::string GraphBuilder::given_or_generated(const std::string& user_name,
                                             std::string_view prefix) {
  if (!user_name.empty()) return user_name;
  return fmt::format("{}-{:010d}", prefix, counter_++);
}

void GraphBuilder::add(NodeSpec spec) { graph_.nodes.push_back(std::move(spec)); }

void GraphBuilder::set_role(const std::string& node, NodeRole role) { graph_.roles[node] = role; }

void GraphBuilder::add_store(StoreSpec spec) { graph_.stores.push_back(std::move(spec)); }

void GraphBuilder::uncache_store(std::string_view name) {
  for (auto& store : graph_.stores) {
    if (store.name == name) store.caching = false;
  }
}

void GraphBuilder::add_repartition_topic(RepartitionTopic topic) {
  graph_.repartition_topics.push_back(std::move(topic));
}

void GraphBuilder::add_mergeable_repartition(MergeableRepartition repartition) {
  graph_.mergeable_repartitions.push_back(std::move(repartition));
}

void GraphBuilder::add_table_source(TableSource source) {
  graph_.table_sources.push_back(std::move(source));
}

void GraphBuilder::add_copartition_group(CopartitionGroup group) {
  graph_.copartition_groups.push_back(std::move(group));
}

void GraphBuilder::add_error(Status status) { errors_.push_back(std::move(status)); }

std::string add_node(GraphBuilder& graph, std::string_view prefix, const std::string& user_name,
                     std::vector<std::string> parents, NodeFactory make,
                     std::vector<std::string> stores) {
  auto name = graph.name_for(user_name, prefix);
  graph.add({.name = name,
             .kind = NodeKind::kProcessor,
             .parents = std::move(parents),
             .stores = std::move(stores),
             .factory = std::move(make)});
  return name;
}

void add_source_node(GraphBuilder& graph, const std::string& name, std::vector<std::string> topics,
                     bool internal, NodeFactory make) {
  graph.add({.name = name,
             .kind = NodeKind::kSource,
             .topics = std::move(topics),
             .internal_topics = internal,
             .factory = std::move(make)});
}

void add_sink_node(GraphBuilder& graph, const std::string& name, std::vector<std::string> parents,
                   std::vector<std::string> topics, bool internal, std::string topic_extractor,
                   NodeFactory make) {
  graph.add({.name = name,
             .kind = NodeKind::kSink,
             .parents = std::move(parents),
             .topics = std::move(topics),
             .internal_topics = internal,
             .topic_extractor = std::move(topic_extractor),
             .factory = std::move(make)});
}

void add_shaped_store(GraphBuilder& graph, StoreSpec spec, const StoreShape& shape) {
  spec.kind = shape.kind;
  spec.retention = shape.retention;
  spec.window_size = shape.window_size;
  spec.window_advance = shape.window_advance;
  if (shape.kind == StoreKind::kKeyValue) {
    spec.read_by = StoreSpec::ReadBy::kRecordKey;
  } else if (shape.window_advance.count() > 0) {
    spec.read_by = StoreSpec::ReadBy::kTimeWindows;
  }
  graph.add_store(std::move(spec));
}

MergeableRepartition name_repartition(GraphBuilder& graph, const std::string& topic,
                                      RepartitionShape shape) {
  MergeableRepartition nodes{.topic = topic};
  if (shape == RepartitionShape::kStream) {
    constexpr std::string_view kSuffix = "-repartition";
    const auto prefix = std::string_view(topic).substr(
        0, topic.ends_with(kSuffix) ? topic.size() - kSuffix.size() : topic.size());
    const bool generated = is_generated_stream_name(prefix);
    nodes.sink = graph.name_for(generated ? "" : topic + "-sink", "KSTREAM-SINK");
    nodes.filter = graph.name_for(generated ? "" : topic + "-filter", "KSTREAM-FILTER");
    nodes.source = graph.name_for(generated ? "" : topic + "-source", "KSTREAM-SOURCE");
  } else {
    nodes.sink = graph.name_for("", "KSTREAM-SINK");
    nodes.source = graph.name_for("", "KSTREAM-SOURCE");
  }
  return nodes;
}

void missing_serde(GraphBuilder& graph, const std::string& name, std::string_view kind,
                   std::string_view what, std::string_view options, std::string_view type) {
  graph.add_error(Status::invalid_argument(
      fmt::format("{} {}: no {} serde for type {}; give one in {}{{.{}_serde = ...}} or specialise "
                  "brook::DefaultSerde (a type with to_json/from_json: include brook/json_serde.h)",
                  kind, name, what, type, options, what)));
}

Result<Topology> GraphBuilder::build(const std::map<std::string, std::string>& config) {
  if (built_) {
    return error(Status::failed_precondition("StreamsBuilder::build() may be called only once"));
  }
  built_ = true;
  Optimizations optimizations;
  if (auto it = config.find("topology.optimization"); it != config.end()) {
    auto parsed = parse_optimizations(it->second);
    if (parsed) {
      optimizations = *parsed;
    } else {
      errors_.push_back(std::move(parsed.error()));
    }
  }
  if (optimizations.reuse_table_source_topics) reuse_table_source_topics(graph_);
  if (optimizations.merge_repartition_topics) merge_repartition_topics(graph_);
  auto data = make_topology_data(std::move(graph_.nodes), std::move(graph_.stores),
                                 std::move(graph_.repartition_topics), std::move(errors_),
                                 std::move(graph_.copartition_groups), optimizations);
  if (!data) return error(std::move(data.error()));
  return Topology(std::move(*data));
}

}  // namespace brook::internal
