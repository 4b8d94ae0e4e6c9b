#include "brook/internal/foreign_key_join_core.h"

#include <utility>

#include "brook/internal/coding.h"

namespace brook::internal {
namespace {

constexpr char kFormatVersion = 1;
constexpr std::size_t kHashBytes = 8;
constexpr std::size_t kPartitionBytes = 4;
constexpr std::size_t kLengthBytes = 4;

Status malformed(std::string_view what, std::size_t size) {
  return Status::corruption(std::string(what) + ": malformed header in " + std::to_string(size) +
                            " bytes (version 1 expected: an older Brook's internal topic needs "
                            "a reset)");
}

class SubscriptionSerde final : public Serde<Subscription> {
 public:
  std::string_view name() const override { return "subscription"; }
  Result<std::string> serialize(const Subscription& s) const override {
    std::string out;
    out.reserve(3 + kHashBytes + kPartitionBytes + s.primary_key.size());
    out.push_back(kFormatVersion);
    out.push_back(static_cast<char>(s.instruction));
    out.push_back(s.hash ? 1 : 0);
    if (s.hash) append_big_endian(out, *s.hash, kHashBytes);
    append_big_endian(out, static_cast<std::uint32_t>(s.primary_partition.value()),
                      kPartitionBytes);
    return out.append(s.primary_key);
  }
  Result<Subscription> deserialize(std::string_view bytes) const override {
    const bool hashed = bytes.size() > 2 && bytes[2] == 1;
    const std::size_t header = 3 + (hashed ? kHashBytes : 0) + kPartitionBytes;
    if (bytes.size() < header || bytes[0] != kFormatVersion ||
        static_cast<unsigned char>(bytes[1]) > 3 || static_cast<unsigned char>(bytes[2]) > 1) {
      return error(malformed("subscription", bytes.size()));
    }
    Subscription s{.instruction = static_cast<SubscriptionInstruction>(bytes[1]),
                   .primary_key = std::string(bytes.substr(header)),
                   .primary_partition = Partition(static_cast<std::int32_t>(
                       get_big_endian<std::uint32_t>(bytes.data() + header - kPartitionBytes)))};
    if (hashed) s.hash = get_big_endian<std::uint64_t>(bytes.data() + 3);
    return s;
  }
};

class SubscriptionResponseSerde final : public Serde<SubscriptionResponse> {
 public:
  std::string_view name() const override { return "subscription-response"; }
  Result<std::string> serialize(const SubscriptionResponse& r) const override {
    std::string out;
    out.reserve(3 + kHashBytes + (r.value ? r.value->size() : 0));
    out.push_back(kFormatVersion);
    out.push_back(r.hash ? 1 : 0);
    if (r.hash) append_big_endian(out, *r.hash, kHashBytes);
    out.push_back(r.value ? 1 : 0);
    if (r.value) out.append(*r.value);
    return out;
  }
  Result<SubscriptionResponse> deserialize(std::string_view bytes) const override {
    const bool hashed = bytes.size() > 1 && bytes[1] == 1;
    const std::size_t header = 2 + (hashed ? kHashBytes : 0) + 1;
    if (bytes.size() < header || bytes[0] != kFormatVersion ||
        static_cast<unsigned char>(bytes[1]) > 1 ||
        static_cast<unsigned char>(bytes[header - 1]) > 1) {
      return error(malformed("subscription response", bytes.size()));
    }
    SubscriptionResponse r;
    if (hashed) r.hash = get_big_endian<std::uint64_t>(bytes.data() + 2);
    if (bytes[header - 1] == 1) r.value.emplace(bytes.substr(header));
    return r;
  }
};

class SubscriptionReceive final : public SubscriptionProcessor {
 public:
  explicit SubscriptionReceive(std::string subscriptions)
      : subscriptions_name_(std::move(subscriptions)) {}

  void init(ProcessorContext<std::optional<std::string>, Subscription>& context) override {
    SubscriptionProcessor::init(context);
    subscriptions_.emplace(context, subscriptions_name_);
  }

  void process(Record<std::optional<std::string>, Subscription> r) override {
    if (r.key) {
      subscriptions_->apply(*r.key, r.value);
    } else if (r.value.instruction != SubscriptionInstruction::kPropagateNullIfNoValue) {
      context().drop_record("a subscription without a foreign key");
      return;
    }
    context().forward(std::move(r));
  }

 private:
  std::string subscriptions_name_;
  std::optional<SubscriptionStore> subscriptions_;
};

}  // namespace

std::uint64_t row_hash(std::string_view bytes) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

SerdePtr<Subscription> subscription_serde() {
  static const auto serde = std::make_shared<const SubscriptionSerde>();
  return serde;
}

SerdePtr<SubscriptionResponse> subscription_response_serde() {
  static const auto serde = std::make_shared<const SubscriptionResponseSerde>();
  return serde;
}

std::string combined_key_prefix(std::string_view foreign_key) {
  std::string out(kLengthBytes, '\0');
  put_big_endian(out.data(), static_cast<std::uint32_t>(foreign_key.size()));
  return out.append(foreign_key);
}

std::string combined_key(std::string_view foreign_key, std::string_view primary_key) {
  return combined_key_prefix(foreign_key).append(primary_key);
}

SubscriptionSends subscriptions_for(const std::optional<std::string>& old_key,
                                    const std::optional<std::string>& new_key, bool left_join) {
  using enum SubscriptionInstruction;
  SubscriptionSends out;
  auto send = [&](bool to_old_key, SubscriptionInstruction instruction) {
    out.sends[out.count++] = {to_old_key, instruction};
  };
  if (left_join) {
    if (old_key && old_key != new_key) send(true, kDeleteKeyNoPropagate);
    send(false, kPropagateNullIfNoValue);
  } else if (!old_key && !new_key) {
    out.drop = true;
  } else if (!old_key) {
    send(false, kPropagateOnlyIfValue);
  } else if (!new_key) {
    send(true, kDeleteKeyAndPropagate);
  } else if (*old_key != *new_key) {
    // The old result must go even if the new key has no row yet.
    send(true, kDeleteKeyNoPropagate);
    send(false, kPropagateNullIfNoValue);
  } else {
    send(false, kPropagateOnlyIfValue);
  }
  return out;
}

bool answer_needs_row(SubscriptionInstruction instruction) {
  return answer_for(instruction, true).respond;
}

SubscriptionAnswer answer_for(SubscriptionInstruction instruction, bool row_exists) {
  using enum SubscriptionInstruction;
  switch (instruction) {
    case kDeleteKeyNoPropagate: return {};
    case kDeleteKeyAndPropagate: return {.respond = true, .with_value = false};
    case kPropagateNullIfNoValue: return {.respond = true, .with_value = true};
    case kPropagateOnlyIfValue: return {.respond = row_exists, .with_value = true};
  }
  return {};
}

SubscriptionStore::SubscriptionStore(ProcessorContextBase& context, std::string name)
    : store_(store_access(context, name).store),
      name_(std::move(name)),
      serde_(subscription_serde()) {}

void SubscriptionStore::apply(std::string_view foreign_key, const Subscription& subscription) {
  using enum SubscriptionInstruction;
  const std::string key = combined_key(foreign_key, subscription.primary_key);
  const auto instruction = subscription.instruction;
  if (instruction == kDeleteKeyNoPropagate || instruction == kDeleteKeyAndPropagate) {
    ok_or_throw(store_.put(key, std::nullopt), name_);
  } else {
    ok_or_throw(store_.put(key, value_or_throw(serde_->serialize(subscription), name_)), name_);
  }
}

std::vector<Subscription> SubscriptionStore::subscribers(std::string_view foreign_key) {
  const std::string prefix = combined_key_prefix(foreign_key);
  std::vector<Subscription> out;
  ok_or_throw(store_.scan({.from = prefix},
                          [&](std::string_view key, std::string_view value) {
                            if (!key.starts_with(prefix)) return false;
                            out.push_back(value_or_throw(serde_->deserialize(value), name_));
                            return true;
                          }),
              name_);
  return out;
}

std::unique_ptr<SubscriptionProcessor> make_subscription_receive(std::string subscriptions) {
  return std::make_unique<SubscriptionReceive>(std::move(subscriptions));
}

}  // namespace brook::internal
