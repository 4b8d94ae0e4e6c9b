#include "brook/internal/foreign_key_join_names.h"

namespace brook::internal {

ForeignKeyJoinNames foreign_key_join_names(GraphBuilder& graph, const std::string& name,
                                           const std::string& store) {
  // Kafka Streams' KTableImpl.doJoinOnForeignKey, in its order.
  auto named_or_generated = [&](const char* suffix, const char* prefix) {
    return graph.name_for(name.empty() ? name : name + suffix, prefix);
  };
  ForeignKeyJoinNames names;
  names.registration_topic =
      named_or_generated("-subscription-registration", "KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION") +
      "-topic";
  names.registration_processor = named_or_generated("-subscription-registration-processor",
                                                    "KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION");
  names.registration_sink = named_or_generated("-subscription-registration-sink", "KTABLE-SINK");
  names.registration_source =
      named_or_generated("-subscription-registration-source", "KTABLE-SOURCE");
  names.subscription_store =
      named_or_generated("-subscription-store", "KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE");
  names.subscription_receive =
      named_or_generated("-subscription-receive", "KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR");
  names.subscription_join_foreign =
      named_or_generated("-subscription-join-foreign", "KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR");
  names.foreign_join_subscription =
      named_or_generated("-foreign-join-subscription", "KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR");
  names.response_topic =
      named_or_generated("-subscription-response", "KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE") +
      "-topic";
  names.response_sink = named_or_generated("-subscription-response-sink", "KTABLE-SINK");
  names.response_source = named_or_generated("-subscription-response-source", "KTABLE-SOURCE");
  names.response_resolver = named_or_generated(
      "-subscription-response-resolver", "KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR");
  names.result = named_or_generated("-result", "KTABLE-FK-JOIN-OUTPUT");
  names.result_store = graph.given_or_generated(store, "KTABLE-FK-JOIN-OUTPUT-STATE-STORE");
  return names;
}

}  // namespace brook::internal
