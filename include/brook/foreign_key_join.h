// KTable::join / left_join on a foreign key (DESIGN.md pattern 5): each row of this (left)
// table refers to a row of the other (right) table by a key its value contains.
//
//   orders.join(customers, [](const Order& o) { return o.customer_id; },
//               [](const Order& o, const Customer& c) { return Enriched{o, c.name}; },
//               {.name = "orders-customers"});
//
// How it works (as Kafka Streams' KIP-213). The tables need not be co-partitioned:
// - Each left change sends a subscription, keyed by the foreign key, to the internal topic
//   <app>-<name>-subscription-registration-topic (as many partitions as the right table's
//   topic): the primary key, a hash of the left row's current value, and whether it
//   subscribes or unsubscribes. A changed foreign key unsubscribes from the old one.
// - The right side keeps the subscriptions in the store <name>-subscription-store under
//   (foreign key, primary key). It answers each subscription with the right row's current
//   value, and each right change with a response to every subscriber of that key, through
//   <app>-<name>-subscription-response-topic, keyed by the primary key (as many partitions as
//   the left table's topic).
// - The left side drops a response whose hash does not match its row's current value (the row
//   changed since; a newer response is on its way), counting it in dropped-records as Kafka
//   Streams does, and otherwise emits the joined result.
// A left row deleted, or without a foreign key (foreign_key returning std::nullopt), is
// answered on the left side at once: a tombstone (inner join; left join of a deleted row) or
// joiner(value, nullopt) (left join). An inner join emits a tombstone where a row has no
// match, conservatively (also where it had no result before).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "brook/internal/coding.h"
#include "brook/kstream.h"
#include "brook/ktable.h"

namespace brook {
namespace internal {

// 64-bit FNV-1a of a row's serialised value: what a subscription and its response carry to
// tell whether the row changed in between.
inline std::uint64_t row_hash(std::string_view bytes) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

// The hash of `value` serialised by `serde`.
template <class V>
std::uint64_t value_hash(const Serde<V>& serde, const V& value, const std::string& node) {
  return row_hash(value_or_throw(serde.serialize(value), node));
}

enum class SubscriptionInstruction : std::uint8_t {
  kSubscribe = 0,    // store (FK, PK) and respond with the right row's current value
  kUnsubscribe = 1,  // remove (FK, PK); no response
};

// A left row's subscription to a foreign key (the record's key).
template <class K>
struct Subscription {
  SubscriptionInstruction instruction = SubscriptionInstruction::kSubscribe;
  std::uint64_t hash = 0;
  K primary_key{};
};

// [1-byte version 0][1-byte instruction][8-byte big-endian hash][primary key's bytes]
template <class K>
class SubscriptionSerde final : public Serde<Subscription<K>> {
 public:
  explicit SubscriptionSerde(SerdePtr<K> key) : key_(std::move(key)) {}
  std::string_view name() const override { return "subscription"; }
  Result<std::string> serialize(const Subscription<K>& s) const override {
    auto key = key_->serialize(s.primary_key);
    if (!key) return key;
    std::string out;
    out.push_back(0);
    out.push_back(static_cast<char>(s.instruction));
    append_big_endian(out, s.hash, 8);
    return out.append(*key);
  }
  Result<Subscription<K>> deserialize(std::string_view bytes) const override {
    if (bytes.size() < 10 || bytes[0] != 0 || static_cast<unsigned char>(bytes[1]) > 1) {
      return error(Status::corruption("subscription: malformed header in " +
                                      std::to_string(bytes.size()) + " bytes"));
    }
    auto key = key_->deserialize(bytes.substr(10));
    if (!key) return error(std::move(key.error()));
    return Subscription<K>{static_cast<SubscriptionInstruction>(bytes[1]),
                           read_big_endian(bytes.substr(2, 8)), std::move(*key)};
  }

 private:
  SerdePtr<K> key_;
};

// The right side's answer to a subscriber: the hash it subscribed with and the right row's
// value (nullopt: no row).
template <class VO>
struct SubscriptionResponse {
  std::uint64_t hash = 0;
  std::optional<VO> value;
};

// [1-byte version 0][8-byte big-endian hash][1 byte: value present][value's bytes]
template <class VO>
class SubscriptionResponseSerde final : public Serde<SubscriptionResponse<VO>> {
 public:
  explicit SubscriptionResponseSerde(SerdePtr<VO> value) : value_(std::move(value)) {}
  std::string_view name() const override { return "subscription-response"; }
  Result<std::string> serialize(const SubscriptionResponse<VO>& r) const override {
    std::string out;
    out.push_back(0);
    append_big_endian(out, r.hash, 8);
    out.push_back(r.value ? 1 : 0);
    if (r.value) {
      auto value = value_->serialize(*r.value);
      if (!value) return value;
      out.append(*value);
    }
    return out;
  }
  Result<SubscriptionResponse<VO>> deserialize(std::string_view bytes) const override {
    if (bytes.size() < 10 || bytes[0] != 0 || static_cast<unsigned char>(bytes[9]) > 1) {
      return error(Status::corruption("subscription response: malformed header in " +
                                      std::to_string(bytes.size()) + " bytes"));
    }
    SubscriptionResponse<VO> r{read_big_endian(bytes.substr(1, 8)), std::nullopt};
    if (bytes[9] == 1) {
      auto value = value_->deserialize(bytes.substr(10));
      if (!value) return error(std::move(value.error()));
      r.value.emplace(std::move(*value));
    }
    return r;
  }

 private:
  SerdePtr<VO> value_;
};

// The key of the subscription store: (foreign key, primary key).
template <class KO, class K>
struct CombinedKey {
  KO foreign_key{};
  K primary_key{};
};

// [4-byte big-endian length of the foreign key's bytes][foreign key's bytes][primary key's
// bytes]: the subscribers of one foreign key are the keys starting with prefix(fk).
template <class KO, class K>
class CombinedKeySerde final : public Serde<CombinedKey<KO, K>> {
 public:
  CombinedKeySerde(SerdePtr<KO> foreign, SerdePtr<K> primary)
      : foreign_(std::move(foreign)), primary_(std::move(primary)) {}
  std::string_view name() const override { return "combined-key"; }

  Result<std::string> prefix(const KO& foreign_key) const {
    auto fk = foreign_->serialize(foreign_key);
    if (!fk) return fk;
    std::string out(4, '\0');
    internal::put_big_endian(out.data(), static_cast<std::uint32_t>(fk->size()));
    return out.append(*fk);
  }
  Result<std::string> serialize(const CombinedKey<KO, K>& key) const override {
    auto out = prefix(key.foreign_key);
    if (!out) return out;
    auto pk = primary_->serialize(key.primary_key);
    if (!pk) return pk;
    return out->append(*pk);
  }
  Result<CombinedKey<KO, K>> deserialize(std::string_view bytes) const override {
    const std::uint32_t n =
        bytes.size() >= 4 ? internal::get_big_endian<std::uint32_t>(bytes.data()) : 0;
    if (bytes.size() < 4 || n > bytes.size() - 4) {
      return error(Status::corruption("combined key: malformed length in " +
                                      std::to_string(bytes.size()) + " bytes"));
    }
    auto fk = foreign_->deserialize(bytes.substr(4, n));
    if (!fk) return error(std::move(fk.error()));
    auto pk = primary_->deserialize(bytes.substr(4 + n));
    if (!pk) return error(std::move(pk.error()));
    return CombinedKey<KO, K>{std::move(*fk), std::move(*pk)};
  }

 private:
  SerdePtr<KO> foreign_;
  SerdePtr<K> primary_;
};

// foreign_key(value) as std::optional<KO> (the function may return KO or std::optional<KO>).
template <class KO, class FK, class V>
std::optional<KO> foreign_key_of(FK& foreign_key, const V& value) {
  auto fk = foreign_key(value);
  if constexpr (kIsOptional<decltype(fk)>) {
    return std::optional<KO>(std::move(fk));
  } else {
    return std::optional<KO>(KO(std::move(fk)));
  }
}

// Left side: each change of a row (un)subscribes it to its foreign keys.
template <class K, class V, class KO, class FK>
class SubscriptionSendProcessor final : public Processor<K, Change<V>, KO, Subscription<K>> {
 public:
  SubscriptionSendProcessor(FK foreign_key, SerdePtr<V> value_serde, std::string name)
      : foreign_key_(std::move(foreign_key)),
        value_serde_(std::move(value_serde)),
        name_(std::move(name)) {}

  void process(Record<K, Change<V>> r) override {
    std::optional<KO> old_fk, new_fk;
    if (r.value.old_value) old_fk = foreign_key_of<KO>(foreign_key_, *r.value.old_value);
    if (r.value.new_value) new_fk = foreign_key_of<KO>(foreign_key_, *r.value.new_value);
    if (old_fk && !(new_fk && *new_fk == *old_fk)) {
      send(std::move(*old_fk), {SubscriptionInstruction::kUnsubscribe, 0, r.key}, r);
    }
    if (new_fk) {
      const auto hash = value_hash(*value_serde_, *r.value.new_value, name_);
      send(std::move(*new_fk), {SubscriptionInstruction::kSubscribe, hash, r.key}, r);
    }
  }

 private:
  void send(KO key, Subscription<K> subscription, const Record<K, Change<V>>& from) {
    this->context().forward(Record<KO, Subscription<K>>{std::move(key), std::move(subscription),
                                                        from.timestamp, from.headers});
  }

  FK foreign_key_;
  SerdePtr<V> value_serde_;
  std::string name_;
};

// Left side: the results that need no answer from the right side. A deleted row: a tombstone.
// A row without a foreign key: joiner(value, nullopt) (kLeft), else a tombstone.
template <class K, class V, class KO, class VO, class VR, class FK, class F, bool kLeft>
class ForeignKeyLocalProcessor final : public Processor<K, Change<V>, K, Change<VR>> {
 public:
  ForeignKeyLocalProcessor(FK foreign_key, F joiner)
      : foreign_key_(std::move(foreign_key)), joiner_(std::move(joiner)) {}

  void process(Record<K, Change<V>> r) override {
    Change<VR> out;
    if (r.value.new_value) {
      if (foreign_key_of<KO>(foreign_key_, *r.value.new_value)) return;  // the right side answers
      if constexpr (kLeft) {
        out.new_value.emplace(joiner_(std::as_const(*r.value.new_value), std::optional<VO>()));
      }
    } else if (!r.value.old_value) {
      return;
    }
    this->context().forward(
        Record<K, Change<VR>>{std::move(r.key), std::move(out), r.timestamp, std::move(r.headers)});
  }

 private:
  FK foreign_key_;
  F joiner_;
};

// Right side: stores or removes each subscription and answers a new one with the right row's
// current value.
template <class KO, class K, class VO>
class SubscriptionReceiveProcessor final
    : public Processor<KO, Subscription<K>, K, SubscriptionResponse<VO>> {
 public:
  SubscriptionReceiveProcessor(std::string subscriptions, std::string table)
      : subscriptions_name_(std::move(subscriptions)), table_name_(std::move(table)) {}

  void init(ProcessorContext<K, SubscriptionResponse<VO>>& context) override {
    Processor<KO, Subscription<K>, K, SubscriptionResponse<VO>>::init(context);
    subscriptions_.emplace(
        context.template key_value_store<CombinedKey<KO, K>, std::int64_t>(subscriptions_name_));
    table_.emplace(context.template timestamped_key_value_store<KO, VO>(table_name_));
  }

  void process(Record<KO, Subscription<K>> r) override {
    CombinedKey<KO, K> key{r.key, r.value.primary_key};
    if (r.value.instruction == SubscriptionInstruction::kUnsubscribe) {
      subscriptions_->remove(key);
      return;
    }
    subscriptions_->put(key, std::bit_cast<std::int64_t>(r.value.hash));
    auto found = table_->get(r.key);
    SubscriptionResponse<VO> response{r.value.hash, std::nullopt};
    Timestamp timestamp = r.timestamp;
    if (found) {
      timestamp = std::max(timestamp, found->timestamp);
      response.value.emplace(std::move(found->value));
    }
    this->context().forward(Record<K, SubscriptionResponse<VO>>{
        std::move(r.value.primary_key), std::move(response), timestamp, std::move(r.headers)});
  }

 private:
  std::string subscriptions_name_;
  std::string table_name_;
  std::optional<KeyValueStore<CombinedKey<KO, K>, std::int64_t>> subscriptions_;
  std::optional<TimestampedKeyValueStore<KO, VO>> table_;
};

// Right side: each change of a right row answers every subscriber of its key with the new
// value.
template <class KO, class K, class VO>
class ForeignTableChangeProcessor final
    : public Processor<KO, Change<VO>, K, SubscriptionResponse<VO>> {
 public:
  ForeignTableChangeProcessor(std::string subscriptions,
                              std::shared_ptr<const CombinedKeySerde<KO, K>> key_serde)
      : subscriptions_name_(std::move(subscriptions)), key_serde_(std::move(key_serde)) {}

  void init(ProcessorContext<K, SubscriptionResponse<VO>>& context) override {
    Processor<KO, Change<VO>, K, SubscriptionResponse<VO>>::init(context);
    subscriptions_.emplace(
        context.template key_value_store<CombinedKey<KO, K>, std::int64_t>(subscriptions_name_));
    bytes_ = &store_access(context, subscriptions_name_).store;
  }

  void process(Record<KO, Change<VO>> r) override {
    const auto& name = subscriptions_->name();
    const std::string prefix = value_or_throw(key_serde_->prefix(r.key), name);
    std::vector<KeyValue<K, std::uint64_t>> subscribers;
    ok_or_throw(bytes_->scan({.from = prefix},
                             [&](std::string_view key, std::string_view value) {
                               if (!key.starts_with(prefix)) return false;
                               auto combined = value_or_throw(
                                   subscriptions_->key_serde().deserialize(key), name);
                               auto hash = value_or_throw(
                                   subscriptions_->value_serde().deserialize(value), name);
                               subscribers.push_back({std::move(combined.primary_key),
                                                      std::bit_cast<std::uint64_t>(hash)});
                               return true;
                             }),
                name);
    for (auto& [primary_key, hash] : subscribers) {
      this->context().forward(Record<K, SubscriptionResponse<VO>>{
          std::move(primary_key), {hash, r.value.new_value}, r.timestamp, r.headers});
    }
  }

 private:
  std::string subscriptions_name_;
  std::shared_ptr<const CombinedKeySerde<KO, K>> key_serde_;
  std::optional<KeyValueStore<CombinedKey<KO, K>, std::int64_t>> subscriptions_;
  KeyValueBytesStore* bytes_ = nullptr;
};

// Left side: joins each response with the row's current value from the store `table`, if the
// row still has the value the response answers (its hash); drops it otherwise.
template <class K, class V, class VO, class VR, class F, bool kLeft>
class ResponseJoinProcessor final : public Processor<K, SubscriptionResponse<VO>, K, Change<VR>> {
 public:
  ResponseJoinProcessor(std::string table, SerdePtr<V> value_serde, F joiner)
      : table_name_(std::move(table)),
        value_serde_(std::move(value_serde)),
        joiner_(std::move(joiner)) {}

  void init(ProcessorContext<K, Change<VR>>& context) override {
    Processor<K, SubscriptionResponse<VO>, K, Change<VR>>::init(context);
    table_.emplace(context.template timestamped_key_value_store<K, V>(table_name_));
  }

  void process(Record<K, SubscriptionResponse<VO>> r) override {
    auto row = table_->get(r.key);
    if (!row || value_hash(*value_serde_, row->value, table_name_) != r.value.hash) {
      // Counted as Kafka Streams counts it; a newer response, if any, is on its way.
      this->context().drop_record(row ? "a stale foreign-key join response: the row changed since"
                                      : "a stale foreign-key join response: the row was deleted");
      return;
    }
    Change<VR> out;
    if constexpr (kLeft) {
      out.new_value.emplace(joiner_(std::as_const(row->value), std::as_const(r.value.value)));
    } else {
      if (r.value.value) {
        out.new_value.emplace(joiner_(std::as_const(row->value), std::as_const(*r.value.value)));
      }
    }
    this->context().forward(Record<K, Change<VR>>{std::move(r.key), std::move(out),
                                                  std::max(r.timestamp, row->timestamp),
                                                  std::move(r.headers)});
  }

 private:
  std::string table_name_;
  SerdePtr<V> value_serde_;
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
  using Response = internal::SubscriptionResponse<VO>;
  const auto name = graph_->name_for(table_joined.name, "KTABLE-FK-JOIN");
  const auto left = materialize();
  const auto right = other.materialize();
  // A subscription is answered with the right row's current value, so every later change of
  // that row must reach its subscribers: with a record cache, a row created and deleted before
  // a commit would forward nothing, and a subscriber answered in between would keep the row.
  graph_->uncache_store(right.store_name());
  constexpr std::string_view kind = "foreign-key join";
  auto key_serde = internal::serde_or_default<K>(*graph_, left.traits_.key_serde, name, kind, "key",
                                                 "Materialized");
  auto value_serde = internal::serde_or_default<V>(*graph_, left.traits_.value_serde, name, kind,
                                                   "value", "Materialized");
  auto fk_serde = internal::serde_or_default<KO>(*graph_, right.traits_.key_serde, name, kind,
                                                 "key", "Materialized");
  auto other_value_serde = internal::serde_or_default<VO>(*graph_, right.traits_.value_serde, name,
                                                          kind, "value", "Materialized");
  auto combined = std::make_shared<const internal::CombinedKeySerde<KO, K>>(fk_serde, key_serde);
  const std::string subscriptions = name + "-subscription-store";
  graph_->add_store(internal::StoreSpec::make<internal::CombinedKey<KO, K>, std::int64_t>(
      subscriptions, materialized.type, materialized.logging, false, combined,
      default_serde<std::int64_t>()));

  // Left side: subscriptions out.
  auto send = internal::add_processor<K, Change<V>, KO, Subscription<K>>(
      *graph_, "KTABLE-FK-JOIN", name + "-subscription-send", {left.node_name()},
      [foreign_key, value_serde, name] {
        return std::make_unique<internal::SubscriptionSendProcessor<K, V, KO, FK>>(
            foreign_key, value_serde, name);
      });
  auto registrations = internal::add_repartition<KO, Subscription<K>>(
      *graph_, send, name + "-subscription-registration-topic", 0, fk_serde,
      std::make_shared<const internal::SubscriptionSerde<K>>(key_serde),
      internal::RepartitionShape::kFixed);

  // Right side: subscriptions in, responses out.
  auto receive = internal::add_processor<KO, Subscription<K>, K, Response>(
      *graph_, "KTABLE-FK-JOIN", name + "-subscription-receive", {registrations},
      [subscriptions, table = right.store_name()] {
        return std::make_unique<internal::SubscriptionReceiveProcessor<KO, K, VO>>(subscriptions,
                                                                                   table);
      },
      {subscriptions, right.store_name()});
  auto changes = internal::add_processor<KO, Change<VO>, K, Response>(
      *graph_, "KTABLE-FK-JOIN", name + "-foreign-table-changes", {right.node_name()},
      [subscriptions, combined] {
        return std::make_unique<internal::ForeignTableChangeProcessor<KO, K, VO>>(subscriptions,
                                                                                  combined);
      },
      {subscriptions});
  auto responses = internal::add_pass_through<K, Response>(*graph_, "KTABLE-FK-JOIN",
                                                           name + "-responses", {receive, changes});
  auto answers = internal::add_repartition<K, Response>(
      *graph_, responses, name + "-subscription-response-topic", 0, key_serde,
      std::make_shared<const internal::SubscriptionResponseSerde<VO>>(other_value_serde),
      internal::RepartitionShape::kFixed);

  // Left side: responses in, results out.
  auto resolve = internal::add_processor<K, Response, K, Change<VR>>(
      *graph_, "KTABLE-FK-JOIN", name + "-resolve", {answers},
      [table = left.store_name(), value_serde, joiner] {
        return std::make_unique<internal::ResponseJoinProcessor<K, V, VO, VR, F, kLeft>>(
            table, value_serde, joiner);
      },
      {left.store_name()});
  auto local = internal::add_processor<K, Change<V>, K, Change<VR>>(
      *graph_, "KTABLE-FK-JOIN", name + "-local", {left.node_name()}, [foreign_key, joiner] {
        return std::make_unique<internal::ForeignKeyLocalProcessor<K, V, KO, VO, VR, FK, F, kLeft>>(
            foreign_key, joiner);
      });
  auto output =
      internal::add_pass_through<K, Change<VR>>(*graph_, "KTABLE-FK-JOIN", name, {local, resolve});

  // The subscriptions meet the right table's keys, the responses the left table's.
  graph_->add_copartition_group({.join = name, .inputs = {registrations, right.node_name()}});
  graph_->add_copartition_group({.join = name, .inputs = {answers, left.node_name()}});

  KTable<K, VR> result(graph_, std::move(output), "",
                       {.key_serde = left.traits_.key_serde,
                        .value_serde = materialized.value_serde,
                        .close_delay = std::nullopt});
  if (materialized.name.empty()) return result;
  if (!materialized.key_serde) materialized.key_serde = key_serde;
  return result.materialize(std::move(materialized));
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
