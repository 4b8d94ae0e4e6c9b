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
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "brook/internal/coding.h"
#include "brook/internal/foreign_key_join_names.h"
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

// What the right side does with a subscription (Kafka Streams' values).
enum class SubscriptionInstruction : std::uint8_t {
  kDeleteKeyNoPropagate = 0,   // remove (FK, PK); no response
  kDeleteKeyAndPropagate = 1,  // remove (FK, PK); respond without a value: a tombstone
  // store (FK, PK) unless the FK is null; respond with the right row's value, or without one
  kPropagateNullIfNoValue = 2,
  kPropagateOnlyIfValue = 3,  // store (FK, PK); respond only if the right row exists
};

// A left row's subscription to a foreign key (the record's key).
template <class K>
struct Subscription {
  SubscriptionInstruction instruction = SubscriptionInstruction::kPropagateOnlyIfValue;
  std::optional<std::uint64_t> hash;  // of the row's new value; nullopt: the row was deleted
  K primary_key{};
  Partition primary_partition{0};  // the row's: where the responses go
};

// [1-byte version 1][1-byte instruction][1 byte: hash present][8-byte big-endian hash, if
// present][4-byte big-endian primary partition][primary key's bytes]
template <class K>
class SubscriptionSerde final : public Serde<Subscription<K>> {
 public:
  explicit SubscriptionSerde(SerdePtr<K> key) : key_(std::move(key)) {}
  std::string_view name() const override { return "subscription"; }
  Result<std::string> serialize(const Subscription<K>& s) const override {
    auto key = key_->serialize(s.primary_key);
    if (!key) return key;
    std::string out;
    out.push_back(kVersion);
    out.push_back(static_cast<char>(s.instruction));
    out.push_back(s.hash ? 1 : 0);
    if (s.hash) append_big_endian(out, *s.hash, 8);
    append_big_endian(out, static_cast<std::uint32_t>(s.primary_partition.value()), 4);
    return out.append(*key);
  }
  Result<Subscription<K>> deserialize(std::string_view bytes) const override {
    const bool hashed = bytes.size() > 2 && bytes[2] == 1;
    const std::size_t header = 3 + (hashed ? 8 : 0) + 4;
    if (bytes.size() < header || bytes[0] != kVersion || static_cast<unsigned char>(bytes[1]) > 3 ||
        static_cast<unsigned char>(bytes[2]) > 1) {
      return error(Status::corruption(
          "subscription: malformed header in " + std::to_string(bytes.size()) +
          " bytes (version 1 expected: an older Brook's internal topic needs a reset)"));
    }
    auto key = key_->deserialize(bytes.substr(header));
    if (!key) return error(std::move(key.error()));
    Subscription<K> s{
        static_cast<SubscriptionInstruction>(bytes[1]), std::nullopt, std::move(*key),
        Partition(static_cast<std::int32_t>(read_big_endian(bytes.substr(header - 4, 4))))};
    if (hashed) s.hash = read_big_endian(bytes.substr(3, 8));
    return s;
  }

 private:
  static constexpr char kVersion = 1;
  SerdePtr<K> key_;
};

// The right side's answer to a subscriber: the hash it subscribed with and the right row's
// value (nullopt: none). The subscriber's partition routes it and is not written.
template <class VO>
struct SubscriptionResponse {
  std::optional<std::uint64_t> hash;
  std::optional<VO> value;
  Partition primary_partition{0};
};

// [1-byte version 1][1 byte: hash present][8-byte big-endian hash, if present][1 byte: value
// present][value's bytes]
template <class VO>
class SubscriptionResponseSerde final : public Serde<SubscriptionResponse<VO>> {
 public:
  explicit SubscriptionResponseSerde(SerdePtr<VO> value) : value_(std::move(value)) {}
  std::string_view name() const override { return "subscription-response"; }
  Result<std::string> serialize(const SubscriptionResponse<VO>& r) const override {
    std::string out;
    out.push_back(kVersion);
    out.push_back(r.hash ? 1 : 0);
    if (r.hash) append_big_endian(out, *r.hash, 8);
    out.push_back(r.value ? 1 : 0);
    if (r.value) {
      auto value = value_->serialize(*r.value);
      if (!value) return value;
      out.append(*value);
    }
    return out;
  }
  Result<SubscriptionResponse<VO>> deserialize(std::string_view bytes) const override {
    const bool hashed = bytes.size() > 1 && bytes[1] == 1;
    const std::size_t header = 2 + (hashed ? 8 : 0) + 1;
    if (bytes.size() < header || bytes[0] != kVersion || static_cast<unsigned char>(bytes[1]) > 1 ||
        static_cast<unsigned char>(bytes[header - 1]) > 1) {
      return error(Status::corruption(
          "subscription response: malformed header in " + std::to_string(bytes.size()) +
          " bytes (version 1 expected: an older Brook's internal topic needs a reset)"));
    }
    SubscriptionResponse<VO> r;
    if (hashed) r.hash = read_big_endian(bytes.substr(2, 8));
    if (bytes[header - 1] == 1) {
      auto value = value_->deserialize(bytes.substr(header));
      if (!value) return error(std::move(value.error()));
      r.value.emplace(std::move(*value));
    }
    return r;
  }

 private:
  static constexpr char kVersion = 1;
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

// Left side (<name>-subscription-registration-processor): each change of a row sends the
// subscriptions Kafka Streams sends for it, keyed by foreign key (none: null).
template <class K, class V, class KO, class FK, bool kLeft>
class SubscriptionSendProcessor final
    : public Processor<K, Change<V>, std::optional<KO>, Subscription<K>> {
 public:
  SubscriptionSendProcessor(FK foreign_key, SerdePtr<V> value_serde, std::string name)
      : foreign_key_(std::move(foreign_key)),
        value_serde_(std::move(value_serde)),
        name_(std::move(name)) {}

  void process(Record<K, Change<V>> r) override {
    using enum SubscriptionInstruction;
    const auto& [new_value, old_value] = r.value;
    if (!old_value && !new_value) return;
    std::optional<KO> old_fk, new_fk;
    if (old_value) old_fk = foreign_key_of<KO>(foreign_key_, *old_value);
    if (new_value) new_fk = foreign_key_of<KO>(foreign_key_, *new_value);
    std::optional<std::uint64_t> hash;  // of the new value, once for every subscription sent
    if (new_value) hash = value_hash(*value_serde_, *new_value, name_);
    auto send = [&](const std::optional<KO>& key, SubscriptionInstruction instruction) {
      this->context().forward(Record<std::optional<KO>, Subscription<K>>{
          key,
          {instruction, hash, r.key, Partition(this->context().task_id().partition)},
          r.timestamp,
          r.headers});
    };
    if constexpr (kLeft) {
      if (old_fk && old_fk != new_fk) send(old_fk, kDeleteKeyNoPropagate);
      send(new_fk, kPropagateNullIfNoValue);
    } else if (!old_fk && !new_fk) {
      this->context().drop_record("a row without a foreign key in an inner foreign-key join");
    } else if (!old_fk) {
      send(new_fk, kPropagateOnlyIfValue);
    } else if (!new_fk) {
      send(old_fk, kDeleteKeyAndPropagate);
    } else if (*old_fk != *new_fk) {
      // The old result must go even if the new key has no row yet.
      send(old_fk, kDeleteKeyNoPropagate);
      send(new_fk, kPropagateNullIfNoValue);
    } else {
      send(new_fk, kPropagateOnlyIfValue);
    }
  }

 private:
  FK foreign_key_;
  SerdePtr<V> value_serde_;
  std::string name_;
};

// Right side (<name>-subscription-receive): stores or removes each subscription as its
// instruction says and passes it on.
template <class KO, class K>
class SubscriptionReceiveProcessor final
    : public Processor<std::optional<KO>, Subscription<K>, std::optional<KO>, Subscription<K>> {
 public:
  explicit SubscriptionReceiveProcessor(std::string subscriptions)
      : subscriptions_name_(std::move(subscriptions)) {}

  void init(ProcessorContext<std::optional<KO>, Subscription<K>>& context) override {
    Processor<std::optional<KO>, Subscription<K>, std::optional<KO>, Subscription<K>>::init(
        context);
    subscriptions_.emplace(
        context.template key_value_store<CombinedKey<KO, K>, Subscription<K>>(subscriptions_name_));
  }

  void process(Record<std::optional<KO>, Subscription<K>> r) override {
    using enum SubscriptionInstruction;
    const auto instruction = r.value.instruction;
    if (!r.key) {
      if (instruction != kPropagateNullIfNoValue) {
        this->context().drop_record("a subscription without a foreign key");
        return;
      }
    } else if (instruction == kDeleteKeyNoPropagate || instruction == kDeleteKeyAndPropagate) {
      subscriptions_->remove({*r.key, r.value.primary_key});
    } else {
      subscriptions_->put({*r.key, r.value.primary_key}, r.value);
    }
    this->context().forward(std::move(r));
  }

 private:
  std::string subscriptions_name_;
  std::optional<KeyValueStore<CombinedKey<KO, K>, Subscription<K>>> subscriptions_;
};

// Right side (<name>-subscription-join-foreign): answers a subscription with the right row's
// current value, as its instruction asks.
template <class KO, class K, class VO>
class SubscriptionJoinProcessor final
    : public Processor<std::optional<KO>, Subscription<K>, K, SubscriptionResponse<VO>> {
 public:
  explicit SubscriptionJoinProcessor(std::string table) : table_name_(std::move(table)) {}

  void init(ProcessorContext<K, SubscriptionResponse<VO>>& context) override {
    Processor<std::optional<KO>, Subscription<K>, K, SubscriptionResponse<VO>>::init(context);
    table_.emplace(context.template timestamped_key_value_store<KO, VO>(table_name_));
  }

  void process(Record<std::optional<KO>, Subscription<K>> r) override {
    using enum SubscriptionInstruction;
    const auto instruction = r.value.instruction;
    if (instruction == kDeleteKeyNoPropagate) return;  // nothing to answer: no lookup
    auto found = r.key ? table_->get(*r.key) : std::nullopt;
    if (instruction == kPropagateOnlyIfValue && !found) return;
    SubscriptionResponse<VO> response{r.value.hash, std::nullopt, r.value.primary_partition};
    Timestamp timestamp = r.timestamp;
    if (found) {
      timestamp = std::max(timestamp, found->timestamp);
      if (instruction != kDeleteKeyAndPropagate) response.value = std::move(found->value);
    }
    this->context().forward(Record<K, SubscriptionResponse<VO>>{
        std::move(r.value.primary_key), std::move(response), timestamp, std::move(r.headers)});
  }

 private:
  std::string table_name_;
  std::optional<TimestampedKeyValueStore<KO, VO>> table_;
};

// Right side (<name>-foreign-join-subscription): each change of a right row answers every
// subscriber of its key with the new value.
template <class KO, class K, class VO>
class ForeignJoinSubscriptionProcessor final
    : public Processor<KO, Change<VO>, K, SubscriptionResponse<VO>> {
 public:
  ForeignJoinSubscriptionProcessor(std::string subscriptions,
                                   std::shared_ptr<const CombinedKeySerde<KO, K>> key_serde)
      : subscriptions_name_(std::move(subscriptions)), key_serde_(std::move(key_serde)) {}

  void init(ProcessorContext<K, SubscriptionResponse<VO>>& context) override {
    Processor<KO, Change<VO>, K, SubscriptionResponse<VO>>::init(context);
    subscriptions_.emplace(
        context.template key_value_store<CombinedKey<KO, K>, Subscription<K>>(subscriptions_name_));
    bytes_ = &store_access(context, subscriptions_name_).store;
  }

  void process(Record<KO, Change<VO>> r) override {
    const auto& name = subscriptions_->name();
    const std::string prefix = value_or_throw(key_serde_->prefix(r.key), name);
    std::vector<Subscription<K>> subscribers;
    ok_or_throw(bytes_->scan({.from = prefix},
                             [&](std::string_view key, std::string_view value) {
                               if (!key.starts_with(prefix)) return false;
                               subscribers.push_back(value_or_throw(
                                   subscriptions_->value_serde().deserialize(value), name));
                               return true;
                             }),
                name);
    for (auto& s : subscribers) {
      this->context().forward(
          Record<K, SubscriptionResponse<VO>>{std::move(s.primary_key),
                                              {s.hash, r.value.new_value, s.primary_partition},
                                              r.timestamp,
                                              r.headers});
    }
  }

 private:
  std::string subscriptions_name_;
  std::shared_ptr<const CombinedKeySerde<KO, K>> key_serde_;
  std::optional<KeyValueStore<CombinedKey<KO, K>, Subscription<K>>> subscriptions_;
  KeyValueBytesStore* bytes_ = nullptr;
};

// Left side (<name>-subscription-response-resolver): joins each response with the row's
// current value from the store `table` if the row still has the value the response answers
// (its hash; a deleted row: none), and drops it otherwise. No right value, or no row: a
// tombstone, except joiner(row, nullopt) in a left join.
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
    std::optional<std::uint64_t> hash;
    if (row) hash = value_hash(*value_serde_, row->value, table_name_);
    if (hash != r.value.hash) {
      // Counted as Kafka Streams counts it; a newer response, if any, is on its way.
      this->context().drop_record(row ? "a stale foreign-key join response: the row changed since"
                                      : "a stale foreign-key join response: the row was deleted");
      return;
    }
    Change<VR> out;
    if (row) {
      if constexpr (kLeft) {
        out.new_value.emplace(joiner_(std::as_const(row->value), std::as_const(r.value.value)));
      } else if (r.value.value) {
        out.new_value.emplace(joiner_(std::as_const(row->value), std::as_const(*r.value.value)));
      }
    }
    this->context().forward(
        Record<K, Change<VR>>{std::move(r.key), std::move(out), r.timestamp, std::move(r.headers)});
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
  auto combined = std::make_shared<const internal::CombinedKeySerde<KO, K>>(fk_serde, key_serde);
  auto subscription_serde = std::make_shared<const internal::SubscriptionSerde<K>>(key_serde);
  const std::string& subscriptions = names.subscription_store;

  // Left side: subscriptions out. The nodes are added in Kafka Streams' order.
  auto send = internal::add_processor<K, Change<V>, std::optional<KO>, Subscription<K>>(
      *graph_, "", names.registration_processor, {left.node_name()},
      [foreign_key, value_serde, name] {
        return std::make_unique<internal::SubscriptionSendProcessor<K, V, KO, FK, kLeft>>(
            foreign_key, value_serde, name);
      });
  auto registrations = internal::add_internal_topic<std::optional<KO>, Subscription<K>>(
      *graph_, {send}, names.registration_topic, 0, names.registration_sink,
      names.registration_source, fk_serde, subscription_serde);

  // Right side: subscriptions in, responses out, to the subscriber's partition.
  graph_->add_store(internal::StoreSpec::make<internal::CombinedKey<KO, K>, Subscription<K>>(
      subscriptions, materialized.type, materialized.logging, false, combined, subscription_serde));
  auto receive = internal::add_processor<std::optional<KO>, Subscription<K>, std::optional<KO>,
                                         Subscription<K>>(
      *graph_, "", names.subscription_receive, {registrations},
      [subscriptions] {
        return std::make_unique<internal::SubscriptionReceiveProcessor<KO, K>>(subscriptions);
      },
      {subscriptions});
  auto join_foreign = internal::add_processor<std::optional<KO>, Subscription<K>, K, Response>(
      *graph_, "", names.subscription_join_foreign, {receive},
      [table = right.store_name()] {
        return std::make_unique<internal::SubscriptionJoinProcessor<KO, K, VO>>(table);
      },
      {right.store_name()});
  auto changes = internal::add_processor<KO, Change<VO>, K, Response>(
      *graph_, "", names.foreign_join_subscription, {right.node_name()},
      [subscriptions, combined] {
        return std::make_unique<internal::ForeignJoinSubscriptionProcessor<KO, K, VO>>(
            subscriptions, combined);
      },
      {subscriptions});
  auto responses = internal::add_internal_topic<K, Response>(
      *graph_, {join_foreign, changes}, names.response_topic, 0, names.response_sink,
      names.response_source, key_serde,
      std::make_shared<const internal::SubscriptionResponseSerde<VO>>(other_value_serde),
      [](const Record<K, Response>& r) { return r.value.primary_partition; });

  // Left side: responses in, results out.
  auto resolve = internal::add_processor<K, Response, K, Change<VR>>(
      *graph_, "", names.response_resolver, {responses},
      [table = left.store_name(), value_serde, joiner] {
        return std::make_unique<internal::ResponseJoinProcessor<K, V, VO, VR, F, kLeft>>(
            table, value_serde, joiner);
      },
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
