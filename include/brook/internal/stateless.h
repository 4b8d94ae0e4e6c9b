// The processors behind the stateless DSL operators. Each holds the user's callable by value
// (no std::function on the per-record path). Not for users.
#pragma once

#include <functional>
#include <memory>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "brook/processor.h"

namespace brook::internal {

// KeyValue<K, V> or std::pair<K, V>: what map and flat_map lambdas may return.
template <class T>
struct KeyValueTraits;
template <class K, class V>
struct KeyValueTraits<KeyValue<K, V>> {
  using key_type = K;
  using value_type = V;
  static K&& key(KeyValue<K, V>&& kv) { return std::move(kv.key); }
  static V&& value(KeyValue<K, V>&& kv) { return std::move(kv.value); }
};
template <class K, class V>
struct KeyValueTraits<std::pair<K, V>> {
  using key_type = K;
  using value_type = V;
  static K&& key(std::pair<K, V>&& kv) { return std::move(kv.first); }
  static V&& value(std::pair<K, V>&& kv) { return std::move(kv.second); }
};

// Calls a value mapper written as f(value) or f(key, value).
template <class F, class K, class V>
decltype(auto) call_value_fn(F& f, const K& key, const V& value) {
  if constexpr (std::is_invocable_v<F&, const K&, const V&>) {
    return f(key, value);
  } else {
    return f(value);
  }
}
template <class F, class K, class V>
using ValueFnResult = std::decay_t<decltype(call_value_fn(
    std::declval<F&>(), std::declval<const K&>(), std::declval<const V&>()))>;

template <class K, class V, class KOut, class VOut>
class StatelessProcessor : public Processor<K, V, KOut, VOut> {
 protected:
  using Processor<K, V, KOut, VOut>::context;
};

template <class K, class V, class Pred>
class FilterProcessor final : public StatelessProcessor<K, V, K, V> {
 public:
  FilterProcessor(Pred pred, bool keep_matches) : pred_(std::move(pred)), keep_(keep_matches) {}
  void process(Record<K, V> r) override {
    if (static_cast<bool>(pred_(r.key, r.value)) == keep_) this->context().forward(std::move(r));
  }

 private:
  Pred pred_;
  bool keep_;
};

template <class K, class V, class KOut, class VOut, class F>
class MapProcessor final : public StatelessProcessor<K, V, KOut, VOut> {
 public:
  explicit MapProcessor(F f) : f_(std::move(f)) {}
  void process(Record<K, V> r) override {
    auto kv = f_(r.key, r.value);
    using T = KeyValueTraits<decltype(kv)>;
    this->context().forward(
        {T::key(std::move(kv)), T::value(std::move(kv)), r.timestamp, std::move(r.headers)});
  }

 private:
  F f_;
};

template <class K, class V, class VOut, class F>
class MapValuesProcessor final : public StatelessProcessor<K, V, K, VOut> {
 public:
  explicit MapValuesProcessor(F f) : f_(std::move(f)) {}
  void process(Record<K, V> r) override {
    VOut v = call_value_fn(f_, r.key, r.value);
    this->context().forward({std::move(r.key), std::move(v), r.timestamp, std::move(r.headers)});
  }

 private:
  F f_;
};

template <class K, class V, class KOut, class VOut, class F>
class FlatMapProcessor final : public StatelessProcessor<K, V, KOut, VOut> {
 public:
  explicit FlatMapProcessor(F f) : f_(std::move(f)) {}
  void process(Record<K, V> r) override {
    for (auto&& kv : f_(r.key, r.value)) {
      using T = KeyValueTraits<std::decay_t<decltype(kv)>>;
      auto item = std::move(kv);
      this->context().forward(
          {T::key(std::move(item)), T::value(std::move(item)), r.timestamp, r.headers});
    }
  }

 private:
  F f_;
};

template <class K, class V, class VOut, class F>
class FlatMapValuesProcessor final : public StatelessProcessor<K, V, K, VOut> {
 public:
  explicit FlatMapValuesProcessor(F f) : f_(std::move(f)) {}
  void process(Record<K, V> r) override {
    for (auto&& v : call_value_fn(f_, r.key, r.value)) {
      this->context().forward({r.key, VOut(std::move(v)), r.timestamp, r.headers});
    }
  }

 private:
  F f_;
};

template <class K, class V, class KOut, class F>
class SelectKeyProcessor final : public StatelessProcessor<K, V, KOut, V> {
 public:
  explicit SelectKeyProcessor(F f) : f_(std::move(f)) {}
  void process(Record<K, V> r) override {
    KOut key = f_(r.key, r.value);
    this->context().forward(
        {std::move(key), std::move(r.value), r.timestamp, std::move(r.headers)});
  }

 private:
  F f_;
};

// peek (forwards) and foreach (terminal: has no children, forwards nothing).
template <class K, class V, class F>
class PeekProcessor final : public StatelessProcessor<K, V, K, V> {
 public:
  explicit PeekProcessor(F f) : f_(std::move(f)) {}
  void process(Record<K, V> r) override {
    f_(r.key, r.value);
    this->context().forward(std::move(r));
  }

 private:
  F f_;
};

// merge and branch children: records pass through unchanged.
template <class K, class V>
class PassThroughProcessor final : public StatelessProcessor<K, V, K, V> {
 public:
  void process(Record<K, V> r) override { this->context().forward(std::move(r)); }
};

// split(): each record goes to the first branch whose predicate matches, else to the default
// branch if there is one, else nowhere. Branches are appended while the DSL is written, so
// the list is shared with the builder and read only once the task runs.
template <class K, class V>
struct BranchList {
  struct Branch {
    std::function<bool(const K&, const V&)> predicate;
    std::string child;
  };
  std::vector<Branch> branches;
  std::string default_child;  // empty: none
};

template <class K, class V>
class BranchProcessor final : public StatelessProcessor<K, V, K, V> {
 public:
  explicit BranchProcessor(std::shared_ptr<const BranchList<K, V>> list) : list_(std::move(list)) {}
  void process(Record<K, V> r) override {
    for (const auto& branch : list_->branches) {
      if (branch.predicate(r.key, r.value))
        return this->context().forward(std::move(r), branch.child);
    }
    if (!list_->default_child.empty()) this->context().forward(std::move(r), list_->default_child);
  }

 private:
  std::shared_ptr<const BranchList<K, V>> list_;
};

}  // namespace brook::internal
