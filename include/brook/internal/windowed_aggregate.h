// The processors behind windowed aggregations (time, sliding and session windows). Each
// keeps its windows in a window or session store and forwards every window's change as
// Change{new, old} under the key Windowed<K>: right away, or when the store's record cache
// flushes. A window closes when stream time passes its end by the grace period; a record
// whose windows are all closed is dropped (the task's dropped-records metric). Not for users.
//
// The aggregation function is f(key, value, current) -> the new aggregate, `current` null
// for a window's first record (as in stateful.h).
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "brook/internal/change.h"
#include "brook/internal/window_keys.h"
#include "brook/processor.h"
#include "brook/window_store.h"
#include "brook/windows.h"

namespace brook::internal {

// The close time of windows at stream time `now`: a window whose end is not after it is closed.
inline Timestamp close_time(Timestamp now, std::chrono::milliseconds close_delay) {
  return now == Timestamp::min() ? now : now - close_delay;
}

// "record at <t> is too late: its windows closed at <close> (stream time <now>)".
std::string too_late(Timestamp record, Timestamp close, Timestamp now);
// "record at <t> is too late for its window [<start>, <end>): windows ending by <close> are
// closed (stream time <now>)": a record dropped from one of its windows.
std::string too_late_for(Timestamp record, const Window& window, Timestamp close, Timestamp now);

// Turns a window or session store's key bytes into the windowed key.
template <class K>
using WindowedKeyDecoder = std::function<Windowed<K>(std::string_view)>;

// Forwards the changes of windows held in the store `store`: as they are written, or, if the
// store has a record cache, when it flushes (one change per window per flush), with the
// headers of the record that caused it (the last one). `decode` turns the store's key bytes
// into the windowed key.
template <class K, class V>
class WindowChanges {
 public:
  void init(ProcessorContext<Windowed<K>, Change<V>>& context, const std::string& store,
            WindowedKeyDecoder<K> decode) {
    context_ = &context;
    const StoreAccess access = store_access(context, store);
    value_serde_ =
        std::static_pointer_cast<const Serde<ValueAndTimestamp<V>>>(access.spec.value_serde);
    store_ = store;
    bytes_ = &access.store;
    decode_ = std::move(decode);
    cached_ = access.store.set_flush_listener([this](std::string_view key,
                                                     std::optional<std::string_view> new_value,
                                                     std::optional<std::string_view> old_value,
                                                     const Headers& headers) {
      auto now = this->decode(new_value);
      const Timestamp ts = now ? now->timestamp : context_->current_stream_time();
      send(decode_(key), value_of(std::move(now)), value_of(this->decode(old_value)), ts, headers);
    });
  }

  // Writes to the store in its scope are for a record with `headers`.
  RecordHeadersScope writing_for(const Headers& headers) { return {*bytes_, headers}; }

  // A window's change, written to the store just now for a record with `headers`.
  void written(Windowed<K> key, std::optional<V> new_value, std::optional<V> old_value,
               Timestamp timestamp, const Headers& headers) {
    if (!cached_) {
      send(std::move(key), std::move(new_value), std::move(old_value), timestamp, headers);
    }
  }

 private:
  void send(Windowed<K> key, std::optional<V> new_value, std::optional<V> old_value,
            Timestamp timestamp, const Headers& headers) {
    context_->forward(Record<Windowed<K>, Change<V>>{
        std::move(key), {std::move(new_value), std::move(old_value)}, timestamp, headers});
  }
  std::optional<ValueAndTimestamp<V>> decode(std::optional<std::string_view> bytes) {
    if (!bytes) return std::nullopt;
    return value_or_throw(value_serde_->deserialize(*bytes), store_);
  }
  static std::optional<V> value_of(std::optional<ValueAndTimestamp<V>> stored) {
    if (!stored) return std::nullopt;
    return std::move(stored->value);
  }

  ProcessorContext<Windowed<K>, Change<V>>* context_ = nullptr;
  SerdePtr<ValueAndTimestamp<V>> value_serde_;
  std::string store_;
  KeyValueBytesStore* bytes_ = nullptr;  // the store, for the records' headers
  WindowedKeyDecoder<K> decode_;
  bool cached_ = false;
};

// The windowed keys of a window store whose windows end `size` after they start.
template <class K>
WindowedKeyDecoder<K> window_key_decoder(const StoreAccess& access,
                                         std::chrono::milliseconds size) {
  auto serde = std::static_pointer_cast<const Serde<K>>(access.spec.key_serde);
  return [serde, size, store = access.spec.name](std::string_view bytes) {
    const Timestamp start = window_key_start(bytes);
    return Windowed<K>{value_or_throw(serde->deserialize(window_key_key(bytes)), store),
                       Window{start, start + size}};
  };
}

// Tumbling and hopping windows: each record updates every open window containing it, and is
// dropped (and counted) once for each closed one, as Kafka Streams counts it.
template <class K, class V, class VA, class F>
class TimeWindowAggregateProcessor final : public Processor<K, V, Windowed<K>, Change<VA>> {
 public:
  TimeWindowAggregateProcessor(std::string store, TimeWindows windows, F f)
      : store_name_(std::move(store)), windows_(windows), f_(std::move(f)) {}

  void init(ProcessorContext<Windowed<K>, Change<VA>>& context) override {
    Processor<K, V, Windowed<K>, Change<VA>>::init(context);
    store_.emplace(context.template timestamped_window_store<K, VA>(store_name_));
    changes_.init(context, store_name_,
                  window_key_decoder<K>(store_access(context, store_name_), windows_.size()));
  }

  void process(Record<K, V> r) override {
    observed_ = std::max(observed_, this->context().current_stream_time());
    const Timestamp close = close_time(observed_, windows_.grace());
    const auto record = changes_.writing_for(r.headers);
    windows_.for_each_window(r.timestamp, [&](const Window& window) {
      if (window.end <= close) {  // too late for this window: dropped from it, and counted
        this->context().drop_record(too_late_for(r.timestamp, window, close, observed_));
        return;
      }
      auto old = store_->fetch(r.key, window.start);
      VA next = f_(r.key, r.value, old ? &old->value : nullptr);
      const Timestamp ts = old ? std::max(old->timestamp, r.timestamp) : r.timestamp;
      store_->put(r.key, {next, ts}, window.start);
      std::optional<VA> old_value;
      if (old) old_value = std::move(old->value);
      changes_.written({r.key, window}, std::move(next), std::move(old_value), ts, r.headers);
    });
  }

 private:
  std::string store_name_;
  TimeWindows windows_;
  F f_;
  std::optional<WindowStore<K, ValueAndTimestamp<VA>>> store_;
  WindowChanges<K, VA> changes_;
  Timestamp observed_ = Timestamp::min();
};

// Sliding windows. The records themselves are kept (store `records`, duplicates retained) for
// as long as an open window may need them: a window that appears for the first time is
// folded from them; an existing window containing the record is updated in place.
template <class K, class V, class VA, class F>
class SlidingWindowAggregateProcessor final : public Processor<K, V, Windowed<K>, Change<VA>> {
 public:
  SlidingWindowAggregateProcessor(std::string store, std::string records, SlidingWindows windows,
                                  F f)
      : store_name_(std::move(store)),
        records_name_(std::move(records)),
        windows_(windows),
        f_(std::move(f)) {}

  void init(ProcessorContext<Windowed<K>, Change<VA>>& context) override {
    Processor<K, V, Windowed<K>, Change<VA>>::init(context);
    store_.emplace(context.template timestamped_window_store<K, VA>(store_name_));
    records_.emplace(context.template window_store<K, V>(records_name_));
    changes_.init(context, store_name_,
                  window_key_decoder<K>(store_access(context, store_name_), difference()));
  }

  void process(Record<K, V> r) override {
    observed_ = std::max(observed_, this->context().current_stream_time());
    const Timestamp close = close_time(observed_, windows_.grace());
    const Timestamp t = r.timestamp;
    if (t + difference() <= close) {  // every window containing t is closed
      this->context().drop_record(too_late(t, close, observed_));
      return;
    }
    records_->put(r.key, r.value, t);
    // Every record a window affected by t may hold: [t - difference - 1, t + difference + 1].
    const auto nearby =
        records_->fetch(r.key, at_least_zero(t - difference() - one_ms), t + difference() + one_ms);
    // The windows that contain t or appear because of it, by start: the window ending at t,
    // the one starting after t, those starting after records within the difference before t,
    // and those ending at records within the difference after t. A window would start before
    // 0 is [0, difference] instead, as in Kafka Streams.
    std::vector<Timestamp> starts{at_least_zero(t - difference()), t + one_ms};
    for (const auto& [at, value] : nearby) {
      if (at < t && at >= t - difference() - one_ms) starts.push_back(at + one_ms);
      if (at > t && at <= t + difference()) starts.push_back(at_least_zero(at - difference()));
    }
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    for (const Timestamp start : starts) {
      const Window window{start, start + difference()};
      if (window.end > close) update(r, window, nearby);
    }
  }

 private:
  static constexpr std::chrono::milliseconds one_ms{1};
  static Timestamp at_least_zero(Timestamp t) { return std::max(t, Timestamp(0)); }
  std::chrono::milliseconds difference() const { return windows_.time_difference(); }

  void update(const Record<K, V>& r, const Window& window,
              const std::vector<std::pair<Timestamp, V>>& nearby) {
    auto old = store_->fetch(r.key, window.start);
    std::optional<VA> next;
    Timestamp ts = r.timestamp;
    if (old) {
      if (r.timestamp < window.start || r.timestamp > window.end) return;  // not in it
      next = f_(r.key, r.value, &old->value);
      ts = std::max(old->timestamp, r.timestamp);
    } else {
      for (const auto& [at, value] : nearby) {  // t itself is among them
        if (at < window.start || at > window.end) continue;
        next = f_(r.key, value, next ? &*next : nullptr);
        ts = std::max(ts, at);
      }
      if (!next) return;  // an empty window does not exist
    }
    {
      const auto record = changes_.writing_for(r.headers);
      store_->put(r.key, {*next, ts}, window.start);
    }
    std::optional<VA> old_value;
    if (old) old_value = std::move(old->value);
    changes_.written({r.key, window}, std::move(next), std::move(old_value), ts, r.headers);
  }

  std::string store_name_;
  std::string records_name_;
  SlidingWindows windows_;
  F f_;
  std::optional<WindowStore<K, ValueAndTimestamp<VA>>> store_;
  std::optional<WindowStore<K, V>> records_;
  WindowChanges<K, VA> changes_;
  Timestamp observed_ = Timestamp::min();
};

// Session windows: a record joins every session of its key within the gap of it, merging them
// into one; each merged-away session is deleted (a tombstone downstream) before the merged
// session is written. merger(key, a, b) combines two sessions' aggregates.
template <class K, class V, class VA, class F, class Merger>
class SessionWindowAggregateProcessor final : public Processor<K, V, Windowed<K>, Change<VA>> {
 public:
  SessionWindowAggregateProcessor(std::string store, SessionWindows windows, F f, Merger merger)
      : store_name_(std::move(store)),
        windows_(windows),
        f_(std::move(f)),
        merger_(std::move(merger)) {}

  void init(ProcessorContext<Windowed<K>, Change<VA>>& context) override {
    Processor<K, V, Windowed<K>, Change<VA>>::init(context);
    store_.emplace(context.template session_store<K, ValueAndTimestamp<VA>>(store_name_));
    auto serde =
        std::static_pointer_cast<const Serde<K>>(store_access(context, store_name_).spec.key_serde);
    changes_.init(context, store_name_, [serde, store = store_name_](std::string_view bytes) {
      return Windowed<K>{value_or_throw(serde->deserialize(session_key_key(bytes)), store),
                         session_key_window(bytes)};
    });
  }

  void process(Record<K, V> r) override {
    observed_ = std::max(observed_, this->context().current_stream_time());
    const Timestamp close = close_time(observed_, windows_.gap() + windows_.grace());
    const Timestamp t = r.timestamp;
    auto sessions = store_->find_sessions(r.key, std::max(t - windows_.gap(), Timestamp(0)),
                                          t + windows_.gap());
    Window merged{t, t};
    std::optional<VA> aggregate;
    Timestamp ts = t;
    for (const auto& session : sessions) {
      merged.start = std::min(merged.start, session.key.window.start);
      merged.end = std::max(merged.end, session.key.window.end);
      const VA& value = session.value.value;
      aggregate = aggregate ? VA(merger_(r.key, *aggregate, value)) : value;
      ts = std::max(ts, session.value.timestamp);
    }
    if (merged.end <= close) {
      this->context().drop_record(too_late(t, close, observed_));
      return;
    }
    VA next = f_(r.key, r.value, aggregate ? &*aggregate : nullptr);
    std::optional<VA> old_value;
    const auto record = changes_.writing_for(r.headers);
    for (auto& session : sessions) {
      if (session.key.window == merged) {
        old_value = std::move(session.value.value);
        continue;
      }
      store_->remove(session.key);
      changes_.written(session.key, std::nullopt, std::move(session.value.value), ts, r.headers);
    }
    Windowed<K> key{r.key, merged};
    store_->put(key, {next, ts});
    changes_.written(std::move(key), std::move(next), std::move(old_value), ts, r.headers);
  }

 private:
  std::string store_name_;
  SessionWindows windows_;
  F f_;
  Merger merger_;
  std::optional<SessionStore<K, ValueAndTimestamp<VA>>> store_;
  WindowChanges<K, VA> changes_;
  Timestamp observed_ = Timestamp::min();
};

}  // namespace brook::internal
