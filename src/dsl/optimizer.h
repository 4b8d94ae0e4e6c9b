// Optimisation passes over the DSL's logical graph, run by GraphBuilder::build() before it
// lowers the graph into the topology. A pass changes the topology's shape, never what it
// computes: each record reaches the same operators with the same key and value.
#pragma once

#include "brook/internal/graph_builder.h"

namespace brook::internal {

// merge.repartition.topics, as Kafka Streams: the repartition topics downstream of one
// key-changing node become one, the first of them, written right after that node; the nodes
// between the key change and each former repartition (filters, peeks, splits) move behind it.
// A merge of re-keyed streams counts as a key change. A repartition reached from its key change
// through any other node (map_values, ...) stays as it is, and so do all of a key change's
// repartitions if their partition counts differ.
void merge_repartition_topics(LogicalGraph& graph);

// reuse.ktable.source.topics, as Kafka Streams: the store of a table read from a topic
// (StreamsBuilder::table()) restores from that topic, up to the application's committed
// offset, instead of from a changelog of its own, which is neither created nor written. A
// store without logging stays as it is, and so does a table whose source extracts its
// timestamps (the topic does not hold them).
void reuse_table_source_topics(LogicalGraph& graph);

}  // namespace brook::internal
