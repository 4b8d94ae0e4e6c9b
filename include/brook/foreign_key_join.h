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

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "brook/internal/foreign_key_join_core.h"
#include "brook/internal/foreign_key_join_names.h"
#include "brook/kstream.h"
#include "brook/ktable.h"

namespace brook {
namespace internal {

// `value` serialised by `serde`; a failure throws, naming `node`.
template <class T>
std::string serialized(const Serde<T>& serde, const T& value, const std::string& node) {
  return value_or_throw(serde.serialize(value), node);
}

// What `serde` reads from `bytes`; a failure throws std::runtime_error saying what was read.
template <class T>
T deserialized(const Serde<T>& serde, std::string_view bytes, std::string_view what) {
  auto read = serde.deserialize(bytes);
  if (!read) throw std::runtime_error(std::string(what) + ": " + read.error().to_string());
  return std::move(*read);
}

// Left side (<name>-subscription-registration-processor): each change of a row sends the
// subscriptions Kafka Streams sends for it (subscriptions_for()), keyed by the serialised
// foreign key (none: null).
template <class K, class V, class KO, class FK, bool kLeft>
class SubscriptionSendProcessor final
    : public Processor<K, Change<V>, std::optional<std::string>, Subscription> {
 public:
  SubscriptionSendProcessor(FK foreign_key, SerdePtr<K> key_serde, SerdePtr<V> value_serde,
                            SerdePtr<KO> foreign_key_serde, std::string name)
      : foreign_key_(std::move(foreign_key)),
        key_serde_(std::move(key_serde)),
        value_serde_(std::move(value_serde)),
        foreign_key_serde_(std::move(foreign_key_serde)),
        name_(std::move(name)) {}

  void process(Record<K, Change<V>> r) override {
    const auto& [new_value, old_value] = r.value;
    if (!old_value && !new_value) return;
    const auto old_key = old_value ? foreign_key_bytes(*old_value) : std::nullopt;
    const auto new_key = new_value ? foreign_key_bytes(*new_value) : std::nullopt;
    const auto sends = subscriptions_for(old_key, new_key, kLeft);
    if (sends.drop) {
      this->context().drop_record("a row without a foreign key in an inner foreign-key join");
      return;
    }
    Subscription subscription{.primary_key = serialized(*key_serde_, r.key, name_),
                              .primary_partition = Partition(this->context().task_id().partition)};
    if (new_value) subscription.hash = row_hash(serialized(*value_serde_, *new_value, name_));
    for (std::size_t i = 0; i < sends.count; ++i) {
      subscription.instruction = sends.sends[i].instruction;
      this->context().forward(Record<std::optional<std::string>, Subscription>{
          sends.sends[i].to_old_key ? old_key : new_key, subscription, r.timestamp, r.headers});
    }
  }

 private:
  // The foreign key of `value`, serialised (nullopt: it has none).
  std::optional<std::string> foreign_key_bytes(const V& value) {
    auto key = foreign_key_(value);
    if constexpr (kIsOptional<decltype(key)>) {
      if (!key) return std::nullopt;
      return serialized<KO>(*foreign_key_serde_, *key, name_);
    } else {
      return serialized<KO>(*foreign_key_serde_, key, name_);
    }
  }

  FK foreign_key_;
  SerdePtr<K> key_serde_;
  SerdePtr<V> value_serde_;
  SerdePtr<KO> foreign_key_serde_;
  std::string name_;
};

// Right side (<name>-subscription-join-foreign): answers a subscription with the right row's
// current value from the store `table`, as its instruction asks (answer_for()).
template <class KO, class VO>
class SubscriptionJoinProcessor final : public Processor<std::optional<std::string>, Subscription,
                                                         std::string, SubscriptionResponse> {
 public:
  SubscriptionJoinProcessor(std::string table, SerdePtr<KO> foreign_key_serde,
                            SerdePtr<VO> value_serde)
      : table_name_(std::move(table)),
        foreign_key_serde_(std::move(foreign_key_serde)),
        value_serde_(std::move(value_serde)) {}

  void init(ProcessorContext<std::string, SubscriptionResponse>& context) override {
    Processor<std::optional<std::string>, Subscription, std::string, SubscriptionResponse>::init(
        context);
    table_.emplace(context.template timestamped_key_value_store<KO, VO>(table_name_));
  }

  void process(Record<std::optional<std::string>, Subscription> r) override {
    if (!answer_needs_row(r.value.instruction)) return;
    std::optional<ValueAndTimestamp<VO>> row;
    if (r.key)
      row = table_->get(deserialized(*foreign_key_serde_, *r.key, "a subscription's foreign key"));
    const auto answer = answer_for(r.value.instruction, row.has_value());
    if (!answer.respond) return;
    SubscriptionResponse response{r.value.hash, std::nullopt, r.value.primary_partition};
    Timestamp timestamp = r.timestamp;
    if (row) {
      timestamp = std::max(timestamp, row->timestamp);
      if (answer.with_value) response.value = serialized(*value_serde_, row->value, table_name_);
    }
    this->context().forward(Record<std::string, SubscriptionResponse>{
        std::move(r.value.primary_key), std::move(response), timestamp, std::move(r.headers)});
  }

 private:
  std::string table_name_;
  SerdePtr<KO> foreign_key_serde_;
  SerdePtr<VO> value_serde_;
  std::optional<TimestampedKeyValueStore<KO, VO>> table_;
};

// Right side (<name>-foreign-join-subscription): each change of a right row answers every
// subscriber of its key with the new value.
template <class KO, class VO>
class ForeignJoinSubscriptionProcessor final
    : public Processor<KO, Change<VO>, std::string, SubscriptionResponse> {
 public:
  ForeignJoinSubscriptionProcessor(std::string subscriptions, SerdePtr<KO> foreign_key_serde,
                                   SerdePtr<VO> value_serde)
      : subscriptions_name_(std::move(subscriptions)),
        foreign_key_serde_(std::move(foreign_key_serde)),
        value_serde_(std::move(value_serde)) {}

  void init(ProcessorContext<std::string, SubscriptionResponse>& context) override {
    Processor<KO, Change<VO>, std::string, SubscriptionResponse>::init(context);
    subscriptions_.emplace(context, subscriptions_name_);
  }

  void process(Record<KO, Change<VO>> r) override {
    const std::string& name = subscriptions_name_;
    std::optional<std::string> value;
    if (r.value.new_value) value = serialized(*value_serde_, *r.value.new_value, name);
    for (auto& s : subscriptions_->subscribers(serialized(*foreign_key_serde_, r.key, name))) {
      this->context().forward(Record<std::string, SubscriptionResponse>{
          std::move(s.primary_key), {s.hash, value, s.primary_partition}, r.timestamp, r.headers});
    }
  }

 private:
  std::string subscriptions_name_;
  SerdePtr<KO> foreign_key_serde_;
  SerdePtr<VO> value_serde_;
  std::optional<SubscriptionStore> subscriptions_;
};

// Left side (<name>-subscription-response-resolver): joins each response with the row's
// current value from the store `table` if the row still has the value the response answers
// (its hash; a deleted row: none), and drops it otherwise. No right value, or no row: a
// tombstone, except joiner(row, nullopt) in a left join.
template <class K, class V, class VO, class VR, class F, bool kLeft>
class ResponseJoinProcessor final
    : public Processor<std::string, SubscriptionResponse, K, Change<VR>> {
 public:
  struct Serdes {
    SerdePtr<K> key;
    SerdePtr<V> value;
    SerdePtr<VO> other_value;
  };
  ResponseJoinProcessor(std::string table, Serdes serdes, F joiner)
      : table_name_(std::move(table)), serdes_(std::move(serdes)), joiner_(std::move(joiner)) {}

  void init(ProcessorContext<K, Change<VR>>& context) override {
    Processor<std::string, SubscriptionResponse, K, Change<VR>>::init(context);
    table_.emplace(context.template timestamped_key_value_store<K, V>(table_name_));
  }

  void process(Record<std::string, SubscriptionResponse> r) override {
    K key = deserialized(*serdes_.key, r.key, "a subscription response's primary key");
    auto row = table_->get(key);
    std::optional<std::uint64_t> hash;
    if (row) hash = row_hash(serialized(*serdes_.value, row->value, table_name_));
    if (hash != r.value.hash) {
      // Counted as Kafka Streams counts it; a newer response, if any, is on its way.
      this->context().drop_record(row ? "a stale foreign-key join response: the row changed since"
                                      : "a stale foreign-key join response: the row was deleted");
      return;
    }
    Change<VR> out;
    if (row) {
      std::optional<VO> other;
      if (r.value.value) {
        other.emplace(deserialized(*serdes_.other_value, *r.value.value,
                                   "a subscription response's right value"));
      }
      if constexpr (kLeft) {
        out.new_value.emplace(joiner_(std::as_const(row->value), std::as_const(other)));
      } else if (other) {
        out.new_value.emplace(joiner_(std::as_const(row->value), std::as_const(*other)));
      }
    }
    this->context().forward(
        Record<K, Change<VR>>{std::move(key), std::move(out), r.timestamp, std::move(r.headers)});
  }

 private:
  std::string table_name_;
  Serdes serdes_;
  F joiner_;
  std::optional<TimestampedKeyValueStore<K, V>> table_;
};

}  // namespace internal

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
