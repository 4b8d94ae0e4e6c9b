// The typed nodes of a foreign-key join around its untyped core (foreign_key_join_core.h;
// brook/foreign_key_join.h builds joins from them and says how they run). Not for users.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "brook/internal/change.h"
#include "brook/internal/dsl_support.h"
#include "brook/internal/foreign_key_join_core.h"
#include "brook/processor.h"

namespace brook::internal {

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
    auto old_key = old_value ? foreign_key_bytes(*old_value) : std::nullopt;
    auto new_key = new_value ? foreign_key_bytes(*new_value) : std::nullopt;
    const auto sends = subscriptions_for(old_key, new_key, kLeft);
    if (sends.drop) {
      this->context().drop_record("a row without a foreign key in an inner foreign-key join");
      return;
    }
    Subscription subscription{.primary_key = value_or_throw(key_serde_->serialize(r.key), name_),
                              .primary_partition = Partition(this->context().task_id().partition)};
    if (new_value)
      subscription.hash = row_hash(value_or_throw(value_serde_->serialize(*new_value), name_));
    for (std::size_t i = 0; i < sends.count; ++i) {
      subscription.instruction = sends.sends[i].instruction;
      this->context().forward(Record<std::optional<std::string>, Subscription>{
          // Each key gets one subscription at most: moved into it.
          std::move(sends.sends[i].to_old_key ? old_key : new_key), subscription, r.timestamp,
          r.headers});
    }
  }

 private:
  // The foreign key of `value`, serialised (nullopt: it has none).
  std::optional<std::string> foreign_key_bytes(const V& value) {
    auto key = foreign_key_(value);
    if constexpr (kIsOptional<decltype(key)>) {
      if (!key) return std::nullopt;
      return value_or_throw(foreign_key_serde_->serialize(*key), name_);
    } else {
      return value_or_throw(foreign_key_serde_->serialize(key), name_);
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
      if (answer.with_value)
        response.value = value_or_throw(value_serde_->serialize(row->value), table_name_);
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
    if (r.value.new_value)
      value = value_or_throw(value_serde_->serialize(*r.value.new_value), name);
    for (auto& s :
         subscriptions_->subscribers(value_or_throw(foreign_key_serde_->serialize(r.key), name))) {
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
    if (row) hash = row_hash(value_or_throw(serdes_.value->serialize(row->value), table_name_));
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

}  // namespace brook::internal
