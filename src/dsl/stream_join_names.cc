#include "brook/internal/stream_join_names.h"

namespace brook::internal {

StreamJoinNames stream_join_names(GraphBuilder& graph, const std::string& name,
                                  const std::string& store_name, bool outer_this,
                                  bool outer_other) {
  // Kafka Streams' KStreamImplJoin: a named join still takes each number it would generate.
  auto named_or_generated = [&](const char* suffix, const char* prefix) {
    return graph.name_for(name.empty() ? name : name + suffix, prefix);
  };
  StreamJoinNames names;
  names.this_windowed = named_or_generated("-this-windowed", "KSTREAM-WINDOWED");
  names.other_windowed = named_or_generated("-other-windowed", "KSTREAM-WINDOWED");
  // Generated whether or not the join is named: unnamed stores take these names.
  const std::string this_generated =
      graph.given_or_generated("", outer_this ? "KSTREAM-OUTERTHIS" : "KSTREAM-JOINTHIS");
  const std::string other_generated =
      graph.given_or_generated("", outer_other ? "KSTREAM-OUTEROTHER" : "KSTREAM-JOINOTHER");
  const std::string this_suffix = outer_this ? "-outer-this-join" : "-this-join";
  const std::string other_suffix = outer_other ? "-outer-other-join" : "-other-join";
  names.this_join = name.empty() ? this_generated : name + this_suffix;
  names.other_join = name.empty() ? other_generated : name + other_suffix;
  names.merge = named_or_generated("-merge", "KSTREAM-MERGE");
  names.this_store = (store_name.empty() ? this_generated : store_name + this_suffix) + "-store";
  names.other_store = (store_name.empty() ? other_generated : store_name + other_suffix) + "-store";
  if (outer_other) {  // a left or an outer join
    const std::string number = this_generated.substr(this_generated.size() - 10);
    names.shared_store = (store_name.empty() ? "KSTREAM-OUTERSHARED-" + number
                                             : store_name + (outer_this ? "-outer-shared-join"
                                                                        : "-left-shared-join")) +
                         "-store";
  }
  return names;
}

}  // namespace brook::internal
