// The node of each side of a table-table join on the key (brook/table_table_join.h builds
// joins from it and says how it runs). Not for users.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "brook/internal/change.h"
#include "brook/internal/dsl_support.h"
#include "brook/processor.h"

namespace brook::internal {

// One side of a join on the key: each change of this side (left if kThisIsLeft), joined with
// the other side's current value from the store `other_store`. f(optional left, optional
// right) -> the joined value, or nullopt where the join kind has no result.
template <class K, class VThis, class VOther, class VR, class F, bool kThisIsLeft>
class TableTableJoinProcessor final : public Processor<K, Change<VThis>, K, Change<VR>> {
 public:
  TableTableJoinProcessor(std::string other_store, F f)
      : other_store_(std::move(other_store)), f_(std::move(f)) {}

  void init(ProcessorContext<K, Change<VR>>& context) override {
    Processor<K, Change<VThis>, K, Change<VR>>::init(context);
    other_.emplace(context.template timestamped_key_value_store<K, VOther>(other_store_));
  }

  void process(Record<K, Change<VThis>> r) override {
    auto stored = other_->get(r.key);
    std::optional<VOther> other;
    Timestamp timestamp = r.timestamp;
    if (stored) {
      timestamp = std::max(timestamp, stored->timestamp);
      other.emplace(std::move(stored->value));
    }
    Change<VR> out{join(r.value.new_value, other), join(r.value.old_value, other)};
    if (!out.new_value && !out.old_value) return;
    this->context().forward(
        Record<K, Change<VR>>{std::move(r.key), std::move(out), timestamp, std::move(r.headers)});
  }

 private:
  std::optional<VR> join(const std::optional<VThis>& mine, const std::optional<VOther>& other) {
    if constexpr (kThisIsLeft) {
      return f_(mine, other);
    } else {
      return f_(other, mine);
    }
  }

  std::string other_store_;
  F f_;
  std::optional<TimestampedKeyValueStore<K, VOther>> other_;
};

}  // namespace brook::internal
