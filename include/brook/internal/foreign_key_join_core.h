// The untyped core of the foreign-key join (brook/foreign_key_join.h says how the join works):
// its wire formats, its subscription store and the right side's receiving processor, on
// serialised keys and values, compiled in the library. The typed nodes around it are in
// foreign_key_join_impl.h. Not for users.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "brook/processor.h"
#include "brook/serde.h"
#include "brook/types.h"

namespace brook::internal {

// 64-bit FNV-1a of a row's serialised value: what a subscription and its response carry to
// tell whether the row changed in between.
std::uint64_t row_hash(std::string_view bytes);

// What the right side does with a subscription (Kafka Streams' values).
enum class SubscriptionInstruction : std::uint8_t {
  kDeleteKeyNoPropagate = 0,   // remove (FK, PK); no response
  kDeleteKeyAndPropagate = 1,  // remove (FK, PK); respond without a value: a tombstone
  // store (FK, PK) unless the FK is null; respond with the right row's value, or without one
  kPropagateNullIfNoValue = 2,
  kPropagateOnlyIfValue = 3,  // store (FK, PK); respond only if the right row exists
};

// A left row's subscription to a foreign key (the record's key, serialised; none: null).
struct Subscription {
  SubscriptionInstruction instruction = SubscriptionInstruction::kPropagateOnlyIfValue;
  std::optional<std::uint64_t> hash;  // of the row's new value; nullopt: the row was deleted
  std::string primary_key;            // the row's key, serialised
  Partition primary_partition{0};     // the row's: where the responses go
};

// [1-byte version 1][1-byte instruction][1 byte: hash present][8-byte big-endian hash, if
// present][4-byte big-endian primary partition][primary key's bytes]. Another version reads as
// a corruption that names the reset the application needs.
SerdePtr<Subscription> subscription_serde();

// The right side's answer to a subscriber: the hash it subscribed with and the right row's
// value, serialised (nullopt: none). The subscriber's partition routes it and is not written.
struct SubscriptionResponse {
  std::optional<std::uint64_t> hash;
  std::optional<std::string> value;
  Partition primary_partition{0};
};

// [1-byte version 1][1 byte: hash present][8-byte big-endian hash, if present][1 byte: value
// present][value's bytes]
SerdePtr<SubscriptionResponse> subscription_response_serde();

// The subscription store's keys: [4-byte big-endian length of the foreign key][foreign key]
// [primary key], so that the subscribers of one foreign key are the keys starting with
// combined_key_prefix(it).
std::string combined_key_prefix(std::string_view foreign_key);
std::string combined_key(std::string_view foreign_key, std::string_view primary_key);

// The subscriptions Kafka Streams sends for a change of a left row whose old and new values
// have the foreign keys `old_key` and `new_key` (serialised; nullopt: none, or no value), in
// order, each to the old or the new foreign key. `drop`: an inner join's row that has no
// foreign key and had none, to be dropped and counted.
struct SubscriptionSends {
  struct Send {
    bool to_old_key = false;
    SubscriptionInstruction instruction{};
  };
  std::array<Send, 2> sends{};
  std::size_t count = 0;
  bool drop = false;
};
SubscriptionSends subscriptions_for(const std::optional<std::string>& old_key,
                                    const std::optional<std::string>& new_key, bool left_join);

// How the right side answers a subscription: `respond` false: not at all; else with the
// right row's value if `with_value` (and the row exists), without one otherwise.
struct SubscriptionAnswer {
  bool respond = false;
  bool with_value = false;
};
// Whether answering needs the right row at all (a removal that responds nothing does not).
bool answer_needs_row(SubscriptionInstruction instruction);
SubscriptionAnswer answer_for(SubscriptionInstruction instruction, bool row_exists);

// A join's subscription store, as its processors use it: (foreign key, primary key) ->
// subscription, keys serialised.
class SubscriptionStore {
 public:
  // The store `name` of the node whose context this is (throws std::invalid_argument if the
  // node has none).
  SubscriptionStore(ProcessorContextBase& context, std::string name);

  // Keeps or removes `subscription` of `foreign_key` as its instruction says.
  void apply(std::string_view foreign_key, const Subscription& subscription);
  // The subscriptions of `foreign_key`, in primary-key order.
  std::vector<Subscription> subscribers(std::string_view foreign_key);

 private:
  KeyValueBytesStore& store_;
  std::string name_;
  SerdePtr<Subscription> serde_;
};

using SubscriptionProcessor =
    Processor<std::optional<std::string>, Subscription, std::optional<std::string>, Subscription>;

// <name>-subscription-receive: keeps or removes each subscription in the store
// `subscriptions` as its instruction says and passes it on; drops (and counts) one without a
// foreign key that asks for more than a null answer.
std::unique_ptr<SubscriptionProcessor> make_subscription_receive(std::string subscriptions);

}  // namespace brook::internal
