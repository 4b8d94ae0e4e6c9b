// KTable::join / left_join on a foreign key (DESIGN.md pattern 5): each row of this (left)
// table refers to a row of the other (right) table by a key its value contains.
//
//   orders.join(customers, [](const Order& o) { return o.customer_id; },
//               [](const Order& o, const Customer& c) { return Enriched{o, c.name}; },
//               {.name = "orders-customers"});
//
// How it works, as Kafka Streams' (KIP-213), node for node. The tables need not be
// co-partitioned:
// - Each left change sends subscriptions, keyed by the foreign key, to the internal topic
//   <app>-<name>-subscription-registration-topic (as many partitions as the right table's
//   topic): the primary key, a hash of the left row's new value (none for a deleted row), the
//   row's partition, and an instruction (SubscriptionInstruction): a changed foreign key
//   unsubscribes from the old one; a deleted row, or one whose foreign key went away, asks for
//   a tombstone; a left join's row without a foreign key goes with no key and asks for
//   joiner(value, nullopt). An inner join drops (and counts) a row that has no foreign key and
//   had none.
// - The right side keeps the subscriptions in the store <name>-subscription-store under
//   (foreign key, primary key). It answers each subscription with the right row's current
//   value as its instruction asks, and each right change with a response to every subscriber
//   of that key, through <app>-<name>-subscription-response-topic, to the subscriber's
//   partition.
// - The left side drops a response whose hash does not match its row's current value (the row
//   changed since; a newer response is on its way), counting it in dropped-records as Kafka
//   Streams does, and otherwise emits the result: joiner(row, right value), or a tombstone
//   where the response has no right value (inner join) or the row is gone. A result carries
//   the response's timestamp: the larger of the left and the right row's for an answered
//   subscription, the right row's for a right change.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "brook/internal/dsl_support.h"
#include "brook/internal/foreign_key_join_impl.h"
#include "brook/internal/foreign_key_join_names.h"
#include "brook/kstream.h"
#include "brook/ktable.h"

namespace brook {

template <class K, class V>
template <bool kLeft, class KO, class VO, class VR, class FK, class F>
KTable<K, VR> KTable<K, V>::foreign_key_join(const KTable<KO, VO>& other, FK foreign_key, F joiner,
                                             TableJoined table_joined,
                                             Materialized<K, VR> materialized) const {
  using internal::Change;
  using internal::Subscription;
  using internal::SubscriptionResponse;
  using ForeignKeyBytes = std::optional<std::string>;  // serialised, or null
  const auto left = materialize();
  const auto right = other.materialize();
  const auto names =
      internal::foreign_key_join_names(*graph_, table_joined.name, materialized.name);
  // A subscription is answered with the right row's current value, so every later change of
  // that row must reach its subscribers: with a record cache, a row created and deleted before
  // a commit would forward nothing, and a subscriber answered in between would keep the row.
  graph_->uncache_store(right.store_name());
  constexpr std::string_view kind = "foreign-key join";
  const std::string& name = names.registration_processor;
  auto key_serde = internal::serde_or_default<K>(*graph_, left.traits_.key_serde, name, kind, "key",
                                                 "Materialized");
  auto value_serde = internal::serde_or_default<V>(*graph_, left.traits_.value_serde, name, kind,
                                                   "value", "Materialized");
  auto fk_serde = internal::serde_or_default<KO>(*graph_, right.traits_.key_serde, name, kind,
                                                 "key", "Materialized");
  auto other_value_serde = internal::serde_or_default<VO>(*graph_, right.traits_.value_serde, name,
                                                          kind, "value", "Materialized");
  const auto bytes = default_serde<std::string>();
  const std::string& subscriptions = names.subscription_store;

  // Left side: subscriptions out. The nodes are added in Kafka Streams' order.
  auto send = internal::add_processor<K, Change<V>, ForeignKeyBytes, Subscription>(
      *graph_, "", names.registration_processor, {left.node_name()},
      [foreign_key, key_serde, value_serde, fk_serde, name] {
        return std::make_unique<internal::SubscriptionSendProcessor<K, V, KO, FK, kLeft>>(
            foreign_key, key_serde, value_serde, fk_serde, name);
      });
  auto registrations = internal::add_internal_topic<ForeignKeyBytes, Subscription>(
      *graph_, {send}, names.registration_topic, 0, names.registration_sink,
      names.registration_source, bytes, internal::subscription_serde());

  // Right side: subscriptions in, responses out, to the subscriber's partition.
  graph_->add_store(internal::StoreSpec::make<std::string, Subscription>(
      subscriptions, materialized.type, materialized.logging, false, bytes,
      internal::subscription_serde()));
  auto receive =
      internal::add_processor<ForeignKeyBytes, Subscription, ForeignKeyBytes, Subscription>(
          *graph_, "", names.subscription_receive, {registrations},
          [subscriptions] { return internal::make_subscription_receive(subscriptions); },
          {subscriptions});
  auto join_foreign =
      internal::add_processor<ForeignKeyBytes, Subscription, std::string, SubscriptionResponse>(
          *graph_, "", names.subscription_join_foreign, {receive},
          [table = right.store_name(), fk_serde, other_value_serde] {
            return std::make_unique<internal::SubscriptionJoinProcessor<KO, VO>>(table, fk_serde,
                                                                                 other_value_serde);
          },
          {right.store_name()});
  auto changes = internal::add_processor<KO, Change<VO>, std::string, SubscriptionResponse>(
      *graph_, "", names.foreign_join_subscription, {right.node_name()},
      [subscriptions, fk_serde, other_value_serde] {
        return std::make_unique<internal::ForeignJoinSubscriptionProcessor<KO, VO>>(
            subscriptions, fk_serde, other_value_serde);
      },
      {subscriptions});
  auto responses = internal::add_internal_topic<std::string, SubscriptionResponse>(
      *graph_, {join_foreign, changes}, names.response_topic, 0, names.response_sink,
      names.response_source, bytes, internal::subscription_response_serde(),
      [](const Record<std::string, SubscriptionResponse>& r) { return r.value.primary_partition; });

  // Left side: responses in, results out.
  using Resolver = internal::ResponseJoinProcessor<K, V, VO, VR, F, kLeft>;
  auto resolve = internal::add_processor<std::string, SubscriptionResponse, K, Change<VR>>(
      *graph_, "", names.response_resolver, {responses},
      [table = left.store_name(),
       serdes = typename Resolver::Serdes{key_serde, value_serde, other_value_serde},
       joiner] { return std::make_unique<Resolver>(table, serdes, joiner); },
      {left.store_name()});
  // The subscriptions meet the right table's keys, the responses the left table's.
  graph_->add_copartition_group({.join = name, .inputs = {registrations, right.node_name()}});
  graph_->add_copartition_group({.join = name, .inputs = {responses, left.node_name()}});

  if (materialized.name.empty()) {  // the result's changes carry no old value
    return KTable<K, VR>(
        graph_, internal::add_pass_through<K, Change<VR>>(*graph_, "", names.result, {resolve}), "",
        {.key_serde = left.traits_.key_serde,
         .value_serde = materialized.value_serde,
         .close_delay = std::nullopt});
  }
  materialized.name = names.result_store;
  if (!materialized.key_serde) materialized.key_serde = key_serde;
  auto store = internal::add_table_store<K, VR>(*graph_, materialized, "");
  auto result = internal::add_processor<K, Change<VR>, K, Change<VR>>(
      *graph_, "", names.result, {resolve},
      [store = store.name] {
        return std::make_unique<internal::TableMaterializeProcessor<K, VR>>(store);
      },
      {store.name});
  return KTable<K, VR>(graph_, std::move(result), store.name,
                       {.key_serde = left.traits_.key_serde,
                        .value_serde = store.value_serde,
                        .close_delay = std::nullopt});
}

template <class K, class V>
template <class KO, class VO, class FK, class F, class VR, class>
KTable<K, VR> KTable<K, V>::join(const KTable<KO, VO>& other, FK foreign_key, F joiner,
                                 TableJoined table_joined, Materialized<K, VR> materialized) const {
  return foreign_key_join<false, KO, VO, VR>(other, std::move(foreign_key), std::move(joiner),
                                             std::move(table_joined), std::move(materialized));
}

template <class K, class V>
template <class KO, class VO, class FK, class F, class VR, class>
KTable<K, VR> KTable<K, V>::left_join(const KTable<KO, VO>& other, FK foreign_key, F joiner,
                                      TableJoined table_joined,
                                      Materialized<K, VR> materialized) const {
  return foreign_key_join<true, KO, VO, VR>(other, std::move(foreign_key), std::move(joiner),
                                            std::move(table_joined), std::move(materialized));
}

}  // namespace brook
