// The node of a stream-table join (brook/stream_table_join.h builds joins from it and says
// how it runs; global-table joins use it too). Not for users.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "brook/internal/change.h"
#include "brook/internal/dsl_support.h"
#include "brook/processor.h"

namespace brook::internal {

// Looks each record up in the table store `store` under key_of(key, value) (the record's key
// for a table, a key mapper's result for a global table); kLeft: also without a match. A
// lookup key of type std::optional may be null: it matches no row, so the inner join drops
// the record (counted in dropped-records) and the left join emits it unmatched.
template <class K, class V, class KT, class VT, class VR, class KeyOf, class F, bool kLeft>
class TableLookupJoinProcessor final : public Processor<K, V, K, VR> {
 public:
  TableLookupJoinProcessor(std::string store, KeyOf key_of, F joiner)
      : store_name_(std::move(store)), key_of_(std::move(key_of)), joiner_(std::move(joiner)) {}

  void init(ProcessorContext<K, VR>& context) override {
    Processor<K, V, K, VR>::init(context);
    table_.emplace(context.template timestamped_key_value_store<KT, VT>(store_name_));
  }

  void process(Record<K, V> r) override {
    const auto& key = key_of_(std::as_const(r.key), std::as_const(r.value));
    if constexpr (kIsOptional<std::remove_cvref_t<decltype(key)>>) {
      if (key) {
        emit(std::move(r), table_->get(*key));
      } else if constexpr (kLeft) {
        emit(std::move(r), std::nullopt);
      } else {
        this->context().drop_record("its join key is null, which matches no table row");
      }
    } else {
      emit(std::move(r), table_->get(key));
    }
  }

 private:
  // Forwards the join of `r` with the table row `found`, where the join kind has a result.
  void emit(Record<K, V>&& r, std::optional<ValueAndTimestamp<VT>> found) {
    std::optional<VR> out;
    if constexpr (kLeft) {
      std::optional<VT> value;
      if (found) value = std::move(found->value);
      out.emplace(joiner_(std::as_const(r.value), std::as_const(value)));
    } else {
      if (!found) return;
      out.emplace(joiner_(std::as_const(r.value), std::as_const(found->value)));
    }
    this->context().forward(
        Record<K, VR>{std::move(r.key), std::move(*out), r.timestamp, std::move(r.headers)});
  }

  std::string store_name_;
  KeyOf key_of_;
  F joiner_;
  std::optional<TimestampedKeyValueStore<KT, VT>> table_;
};

}  // namespace brook::internal
