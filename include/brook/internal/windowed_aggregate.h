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
#include "brook/internal/window_close_buffer.h"
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

// Splits a window or session store's key bytes into the key's bytes and its window: for a
// window store whose windows end `size` after they start, or for a session store.
using WindowKeySplit = std::function<std::pair<std::string_view, Window>(std::string_view)>;
WindowKeySplit window_key_split(std::chrono::milliseconds size);
WindowKeySplit session_key_split();
// The value of a timestamped store's value `stored` ([8-byte timestamp][value]); StoreError
// (of `store`) if it is shorter than a timestamp.
std::optional<std::string_view> timestamped_value(std::optional<std::string_view> stored,
                                                  const std::string& store);

// Forwards the changes of windows held in the store `store`: as they are written, or, if the
// store has a record cache, when it flushes (one change per window per flush), with the
// headers of the record that caused it (the last one). With EmitOnClose, each window's change
// is held until the window closes instead (window_close_buffer.h), and forwarded once then.
template <class K, class V>
class WindowChanges {
 public:
  void init(ProcessorContext<Windowed<K>, Change<V>>& context, const std::string& store,
            WindowKeySplit split, std::optional<EmitOnClose> emit_on_close) {
    context_ = &context;
    const StoreAccess access = store_access(context, store);
    key_serde_ = std::static_pointer_cast<const Serde<K>>(access.spec.key_serde);
    value_serde_ =
        std::static_pointer_cast<const TimestampedSerde<V>>(
            std::static_pointer_cast<const Serde<ValueAndTimestamp<V>>>(access.spec.value_serde))
            ->inner();
    store_ = store;
    bytes_ = &access.store;
    split_ = std::move(split);
    if (emit_on_close) {
      KeyValueBytesStore& buffer = store_access(context, emit_on_close->store).store;
      held_.emplace(std::move(*emit_on_close),
                    [this](std::string_view key, const Window& window, ChangeBytes change,
                           Timestamp timestamp, Headers headers) {
                      send_bytes(key, window, change, timestamp, headers);
                    });
      held_->attach(buffer);
      // Fires whenever stream time moves, also when it moves without records (idle advance).
      context.schedule(std::chrono::milliseconds(1), PunctuationType::kStreamTime,
                       [this](Timestamp) { held_->emit_due(context_->current_stream_time()); });
    }
    cached_ = access.store.set_flush_listener(
        [this](std::string_view key, std::optional<std::string_view> new_value,
               std::optional<std::string_view> old_value, const Headers& headers) {
          const auto [key_bytes, window] = split_(key);
          const auto new_bytes = timestamped_value(new_value, store_);
          const auto old_bytes = timestamped_value(old_value, store_);
          const Timestamp ts = new_value ? get_time(*new_value) : context_->current_stream_time();
          if (held_) {
            held_->hold(key_bytes, window, new_bytes, old_bytes, ts, headers,
                        context_->current_stream_time());
          } else {
            send_bytes(key_bytes, window, {new_bytes, old_bytes}, ts, headers);
          }
        });
  }

  // Writes to the store in its scope are for a record with `headers`.
  RecordHeadersScope writing_for(const Headers& headers) { return {*bytes_, headers}; }

  // A window's change, written to the store just now for a record with `headers`.
  void written(Windowed<K> key, std::optional<V> new_value, std::optional<V> old_value,
               Timestamp timestamp, const Headers& headers) {
    if (cached_) return;
    if (!held_) {
      send(std::move(key), std::move(new_value), std::move(old_value), timestamp, headers);
      return;
    }
    key_bytes_.clear();
    new_bytes_.clear();
    old_bytes_.clear();
    ok_or_throw(key_serde_->serialize_into(key.key, key_bytes_), store_);
    if (new_value) ok_or_throw(value_serde_->serialize_into(*new_value, new_bytes_), store_);
    if (old_value) ok_or_throw(value_serde_->serialize_into(*old_value, old_bytes_), store_);
    held_->hold(key_bytes_, key.window,
                new_value ? std::optional<std::string_view>(new_bytes_) : std::nullopt,
                old_value ? std::optional<std::string_view>(old_bytes_) : std::nullopt, timestamp,
                headers, context_->current_stream_time());
  }

 private:
  void send(Windowed<K> key, std::optional<V> new_value, std::optional<V> old_value,
            Timestamp timestamp, const Headers& headers) {
    context_->forward(Record<Windowed<K>, Change<V>>{
        std::move(key), {std::move(new_value), std::move(old_value)}, timestamp, headers});
  }
  // send() of a window's change in the bytes of the key and the aggregate.
  void send_bytes(std::string_view key, const Window& window, const ChangeBytes& change,
                  Timestamp timestamp, const Headers& headers) {
    send({deserialize(key_serde_, key), window}, deserialize(change.new_value),
         deserialize(change.old_value), timestamp, headers);
  }
  template <class T>
  T deserialize(const SerdePtr<T>& serde, std::string_view bytes) {
    return value_or_throw(serde->deserialize(bytes), store_);
  }
  std::optional<V> deserialize(std::optional<std::string_view> bytes) {
    if (!bytes) return std::nullopt;
    return deserialize(value_serde_, *bytes);
  }

  ProcessorContext<Windowed<K>, Change<V>>* context_ = nullptr;
  SerdePtr<K> key_serde_;
  SerdePtr<V> value_serde_;  // of the aggregate, inside the store's TimestampedSerde
  std::string store_;
  KeyValueBytesStore* bytes_ = nullptr;  // the store, for the records' headers
  WindowKeySplit split_;
  bool cached_ = false;
  std::optional<WindowCloseBuffer> held_;          // with EmitOnClose
  std::string key_bytes_, new_bytes_, old_bytes_;  // a change being held, reused
};

// Tumbling and hopping windows: each record updates every open window containing it, and is
// dropped (and counted) once for each closed one, as Kafka Streams counts it.
template <class K, class V, class VA, class F>
class TimeWindowAggregateProcessor final : public Processor<K, V, Windowed<K>, Change<VA>> {
 public:
  TimeWindowAggregateProcessor(std::string store, TimeWindows windows, F f,
                               std::optional<EmitOnClose> emit_on_close)
      : store_name_(std::move(store)),
        windows_(windows),
        f_(std::move(f)),
        emit_on_close_(std::move(emit_on_close)) {}

  void init(ProcessorContext<Windowed<K>, Change<VA>>& context) override {
    Processor<K, V, Windowed<K>, Change<VA>>::init(context);
    store_.emplace(context.template timestamped_window_store<K, VA>(store_name_));
    changes_.init(context, store_name_, window_key_split(windows_.size()), emit_on_close_);
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
  std::optional<EmitOnClose> emit_on_close_;
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
                                  F f, std::optional<EmitOnClose> emit_on_close)
      : store_name_(std::move(store)),
        records_name_(std::move(records)),
        windows_(windows),
        f_(std::move(f)),
        emit_on_close_(std::move(emit_on_close)) {}

  void init(ProcessorContext<Windowed<K>, Change<VA>>& context) override {
    Processor<K, V, Windowed<K>, Change<VA>>::init(context);
    store_.emplace(context.template timestamped_window_store<K, VA>(store_name_));
    records_.emplace(context.template window_store<K, V>(records_name_));
    changes_.init(context, store_name_, window_key_split(difference()), emit_on_close_);
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
  std::optional<EmitOnClose> emit_on_close_;
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
  SessionWindowAggregateProcessor(std::string store, SessionWindows windows, F f, Merger merger,
                                  std::optional<EmitOnClose> emit_on_close)
      : store_name_(std::move(store)),
        windows_(windows),
        f_(std::move(f)),
        merger_(std::move(merger)),
        emit_on_close_(std::move(emit_on_close)) {}

  void init(ProcessorContext<Windowed<K>, Change<VA>>& context) override {
    Processor<K, V, Windowed<K>, Change<VA>>::init(context);
    store_.emplace(context.template session_store<K, ValueAndTimestamp<VA>>(store_name_));
    changes_.init(context, store_name_, session_key_split(), emit_on_close_);
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
  std::optional<EmitOnClose> emit_on_close_;
  std::optional<SessionStore<K, ValueAndTimestamp<VA>>> store_;
  WindowChanges<K, VA> changes_;
  Timestamp observed_ = Timestamp::min();
};

}  // namespace brook::internal
