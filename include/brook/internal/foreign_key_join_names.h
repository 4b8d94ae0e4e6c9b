// The names of a foreign-key join's nodes, internal topics and stores, as Kafka Streams names
// them for the same DSL (KTable::join in ktable.h lists them). Not for users.
#pragma once

#include <string>

#include "brook/internal/graph_builder.h"

namespace brook::internal {

struct ForeignKeyJoinNames {
  // Left side: each change of a row sends its subscriptions to the registration topic.
  std::string registration_topic;
  std::string registration_processor;
  std::string registration_sink;
  // Right side: subscriptions stored and answered, right rows' changes answered.
  std::string registration_source;
  std::string subscription_store;
  std::string subscription_receive;
  std::string subscription_join_foreign;
  std::string foreign_join_subscription;
  std::string response_topic;
  std::string response_sink;
  // Left side: responses resolved against the row's current value, the result table.
  std::string response_source;
  std::string response_resolver;
  std::string result;
  std::string result_store;  // Materialized's name, else generated (used only if named)
};

// Takes the join's numbers from `graph`'s counter, in Kafka Streams' order: each name takes one,
// named or not, but for a result store named in Materialized. `name` is TableJoined's, `store`
// Materialized's (empty: generated).
ForeignKeyJoinNames foreign_key_join_names(GraphBuilder& graph, const std::string& name,
                                           const std::string& store);

}  // namespace brook::internal
