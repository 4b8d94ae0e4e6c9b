// The names of a windowed stream-stream join's nodes and stores, as Kafka Streams names them
// for the same DSL (StreamJoined in options.h lists them). Not for users.
#pragma once

#include <string>

#include "brook/internal/graph_builder.h"

namespace brook::internal {

struct StreamJoinNames {
  std::string this_windowed;  // admits this stream's records into this_store
  std::string other_windowed;
  std::string this_join;  // joins this stream's records with other_store
  std::string other_join;
  std::string merge;  // the join's output
  std::string this_store;
  std::string other_store;
  std::string shared_store;  // unmatched records; empty for inner joins
};

// Takes the join's numbers from `graph`'s counter, in Kafka Streams' order. `name` and
// `store_name` are StreamJoined's (empty: generated); `outer_this` / `outer_other`: whether
// this / the other stream's unmatched records are emitted (outer join: both, left join: this).
StreamJoinNames stream_join_names(GraphBuilder& graph, const std::string& name,
                                  const std::string& store_name, bool outer_this, bool outer_other);

}  // namespace brook::internal
