// The nodes behind the stateless DSL operators on streams and tables. Not for users.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "brook/internal/change.h"
#include "brook/internal/node.h"
#include "brook/record.h"

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

// The nodes of the stateless operators on streams and tables. Each runs its operator itself,
// without a Processor and its ProcessorContext: a record arrives by reference and goes on to the
// children by reference (moved only into a record of other types), one virtual call per
// operator. Each holds the user's callable by value (no std::function on the per-record path);
// an exception from it is reported against the node (run_in_node()).
template <class KIn, class VIn, class KOut, class VOut>
class StatelessNode : public InputNode<KIn, VIn> {
 public:
  using InputNode<KIn, VIn>::InputNode;
  bool add_child(Node& child) final { return children_.add(child); }

 protected:
  Children<KOut, VOut>& children() { return children_; }

 private:
  Children<KOut, VOut> children_;
};

template <class K, class V, class Pred>
class FilterNode final : public StatelessNode<K, V, K, V> {
 public:
  FilterNode(std::string name, Pred pred, bool keep_matches)
      : StatelessNode<K, V, K, V>(std::move(name)), pred_(std::move(pred)), keep_(keep_matches) {}
  void process(Record<K, V>&& r) override {
    if (run_in_node(this->name(), [&] { return static_cast<bool>(pred_(r.key, r.value)); }) ==
        keep_) {
      this->children().forward(std::move(r));
    }
  }

 private:
  Pred pred_;
  bool keep_;
};

template <class K, class V, class KOut, class VOut, class F>
class MapNode final : public StatelessNode<K, V, KOut, VOut> {
 public:
  MapNode(std::string name, F f)
      : StatelessNode<K, V, KOut, VOut>(std::move(name)), f_(std::move(f)) {}
  void process(Record<K, V>&& r) override {
    auto kv = run_in_node(this->name(), [&] { return f_(r.key, r.value); });
    using T = KeyValueTraits<decltype(kv)>;
    this->children().forward(
        {T::key(std::move(kv)), T::value(std::move(kv)), r.timestamp, std::move(r.headers)});
  }

 private:
  F f_;
};

template <class K, class V, class VOut, class F>
class MapValuesNode final : public StatelessNode<K, V, K, VOut> {
 public:
  MapValuesNode(std::string name, F f)
      : StatelessNode<K, V, K, VOut>(std::move(name)), f_(std::move(f)) {}
  void process(Record<K, V>&& r) override {
    VOut v = run_in_node(this->name(), [&]() -> VOut { return call_value_fn(f_, r.key, r.value); });
    if constexpr (std::is_same_v<V, VOut>) {  // the record itself goes on
      r.value = std::move(v);
      this->children().forward(std::move(r));
    } else {
      this->children().forward({std::move(r.key), std::move(v), r.timestamp, std::move(r.headers)});
    }
  }

 private:
  F f_;
};

template <class K, class V, class KOut, class VOut, class F>
class FlatMapNode final : public StatelessNode<K, V, KOut, VOut> {
 public:
  FlatMapNode(std::string name, F f)
      : StatelessNode<K, V, KOut, VOut>(std::move(name)), f_(std::move(f)) {}
  void process(Record<K, V>&& r) override {
    // The loop too: iterating a lazy range runs the user's code. (Errors of the children
    // pass through run_in_node() as they are.)
    run_in_node(this->name(), [&] {
      for (auto&& kv : f_(r.key, r.value)) {
        using T = KeyValueTraits<std::decay_t<decltype(kv)>>;
        auto item = std::move(kv);
        this->children().forward(
            {T::key(std::move(item)), T::value(std::move(item)), r.timestamp, r.headers});
      }
    });
  }

 private:
  F f_;
};

template <class K, class V, class VOut, class F>
class FlatMapValuesNode final : public StatelessNode<K, V, K, VOut> {
 public:
  FlatMapValuesNode(std::string name, F f)
      : StatelessNode<K, V, K, VOut>(std::move(name)), f_(std::move(f)) {}
  void process(Record<K, V>&& r) override {
    // The loop too: iterating a lazy range runs the user's code. (Errors of the children
    // pass through run_in_node() as they are.)
    run_in_node(this->name(), [&] {
      for (auto&& v : call_value_fn(f_, r.key, r.value)) {
        this->children().forward({r.key, VOut(std::move(v)), r.timestamp, r.headers});
      }
    });
  }

 private:
  F f_;
};

template <class K, class V, class KOut, class F>
class SelectKeyNode final : public StatelessNode<K, V, KOut, V> {
 public:
  SelectKeyNode(std::string name, F f)
      : StatelessNode<K, V, KOut, V>(std::move(name)), f_(std::move(f)) {}
  void process(Record<K, V>&& r) override {
    KOut key = run_in_node(this->name(), [&]() -> KOut { return f_(r.key, r.value); });
    if constexpr (std::is_same_v<K, KOut>) {
      r.key = std::move(key);
      this->children().forward(std::move(r));
    } else {
      this->children().forward(
          {std::move(key), std::move(r.value), r.timestamp, std::move(r.headers)});
    }
  }

 private:
  F f_;
};

// peek (forwards) and foreach (terminal: has no children, forwards nothing).
template <class K, class V, class F>
class PeekNode final : public StatelessNode<K, V, K, V> {
 public:
  PeekNode(std::string name, F f) : StatelessNode<K, V, K, V>(std::move(name)), f_(std::move(f)) {}
  void process(Record<K, V>&& r) override {
    run_in_node(this->name(), [&] { f_(r.key, r.value); });
    this->children().forward(std::move(r));
  }

 private:
  F f_;
};

// merge and branch children: records pass through unchanged.
template <class K, class V>
class PassThroughNode final : public StatelessNode<K, V, K, V> {
 public:
  using StatelessNode<K, V, K, V>::StatelessNode;
  void process(Record<K, V>&& r) override { this->children().forward(std::move(r)); }
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
class BranchNode final : public StatelessNode<K, V, K, V> {
 public:
  BranchNode(std::string name, std::shared_ptr<const BranchList<K, V>> list)
      : StatelessNode<K, V, K, V>(std::move(name)), list_(std::move(list)) {}
  void process(Record<K, V>&& r) override {
    for (const auto& branch : list_->branches) {
      if (run_in_node(this->name(), [&] { return branch.predicate(r.key, r.value); })) {
        return this->children().forward(std::move(r), branch.child);
      }
    }
    if (!list_->default_child.empty()) this->children().forward(std::move(r), list_->default_child);
  }

 private:
  std::shared_ptr<const BranchList<K, V>> list_;
};

// Table filter: a value the predicate rejects becomes a tombstone; nothing is forwarded when
// both sides end up absent.
template <class K, class V, class Pred>
class TableFilterNode final : public StatelessNode<K, Change<V>, K, Change<V>> {
 public:
  TableFilterNode(std::string name, Pred pred, bool keep_matches)
      : StatelessNode<K, Change<V>, K, Change<V>>(std::move(name)),
        pred_(std::move(pred)),
        keep_(keep_matches) {}
  void process(Record<K, Change<V>>&& r) override {
    keep(r.key, r.value.new_value);
    keep(r.key, r.value.old_value);
    if (!r.value.new_value && !r.value.old_value) return;
    this->children().forward(std::move(r));
  }

 private:
  void keep(const K& key, std::optional<V>& value) {
    if (value &&
        run_in_node(this->name(), [&] { return static_cast<bool>(pred_(key, *value)); }) != keep_) {
      value.reset();
    }
  }
  Pred pred_;
  bool keep_;
};

template <class K, class V, class VOut, class F>
class TableMapValuesNode final : public StatelessNode<K, Change<V>, K, Change<VOut>> {
 public:
  TableMapValuesNode(std::string name, F f)
      : StatelessNode<K, Change<V>, K, Change<VOut>>(std::move(name)), f_(std::move(f)) {}
  void process(Record<K, Change<V>>&& r) override {
    Change<VOut> out;
    run_in_node(this->name(), [&] {
      if (r.value.new_value) out.new_value = call_value_fn(f_, r.key, *r.value.new_value);
      if (r.value.old_value) out.old_value = call_value_fn(f_, r.key, *r.value.old_value);
    });
    this->children().forward({std::move(r.key), std::move(out), r.timestamp, std::move(r.headers)});
  }

 private:
  F f_;
};

// KTable::to_stream(): the new values; nullopt where the key was deleted.
template <class K, class V>
class TableToStreamNode final : public StatelessNode<K, Change<V>, K, std::optional<V>> {
 public:
  using StatelessNode<K, Change<V>, K, std::optional<V>>::StatelessNode;
  void process(Record<K, Change<V>>&& r) override {
    this->children().forward(
        {std::move(r.key), std::move(r.value.new_value), r.timestamp, std::move(r.headers)});
  }
};

// KTable::group_by(): re-keys each change. When old and new map to different keys, the
// retraction goes to the old key first, then the addition to the new key.
template <class K, class V, class KOut, class VOut, class F>
class TableRekeyNode final : public StatelessNode<K, Change<V>, KOut, Change<VOut>> {
 public:
  TableRekeyNode(std::string name, F f)
      : StatelessNode<K, Change<V>, KOut, Change<VOut>>(std::move(name)), f_(std::move(f)) {}
  void process(Record<K, Change<V>>&& r) override {
    std::optional<KeyValue<KOut, VOut>> old_kv, new_kv;
    run_in_node(this->name(), [&] {
      if (r.value.old_value) old_kv = map(r.key, *r.value.old_value);
      if (r.value.new_value) new_kv = map(r.key, *r.value.new_value);
    });
    if (old_kv && new_kv && old_kv->key == new_kv->key) {
      send(std::move(new_kv->key), {std::move(new_kv->value), std::move(old_kv->value)}, r);
      return;
    }
    if (old_kv) send(std::move(old_kv->key), {std::nullopt, std::move(old_kv->value)}, r);
    if (new_kv) send(std::move(new_kv->key), {std::move(new_kv->value), std::nullopt}, r);
  }

 private:
  KeyValue<KOut, VOut> map(const K& key, const V& value) {
    auto kv = f_(key, value);
    using T = KeyValueTraits<decltype(kv)>;
    return {T::key(std::move(kv)), T::value(std::move(kv))};
  }
  void send(KOut key, Change<VOut> change, const Record<K, Change<V>>& from) {
    this->children().forward({std::move(key), std::move(change), from.timestamp, from.headers});
  }
  F f_;
};

}  // namespace brook::internal
