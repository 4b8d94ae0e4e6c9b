// Window definitions for windowed aggregations (KGroupedStream::windowed_by) and for
// stream-stream joins (JoinWindows).
//
// Every window kind has a grace period: how long after a window ends it still accepts late
// records. A window closes once the stream time (the largest event time its task has
// processed) passes its end by the grace; a record for a closed window is dropped, counted in
// the task's dropped-records metric and logged. A late record within the grace updates its
// window, and the window's new result is emitted again (compacted result topics keep the
// newest). Windows are aligned to the epoch and event times are never negative.
#pragma once

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "brook/status.h"
#include "brook/windowed.h"

namespace brook {

// Tumbling (advance == size) and hopping (advance < size) windows: [start, end), with
// start a multiple of the advance. A record at t belongs to every window containing t.
class TimeWindows {
 public:
  static TimeWindows of_size_and_grace(std::chrono::milliseconds size,
                                       std::chrono::milliseconds grace) {
    return TimeWindows(size, size, grace);
  }
  static TimeWindows of_size_with_no_grace(std::chrono::milliseconds size) {
    return of_size_and_grace(size, std::chrono::milliseconds(0));
  }
  // Hopping windows: a new window starts every `advance` (0 < advance <= size).
  TimeWindows advance_by(std::chrono::milliseconds advance) const {
    return TimeWindows(size_, advance, grace_);
  }

  std::chrono::milliseconds size() const { return size_; }
  std::chrono::milliseconds advance() const { return advance_; }
  std::chrono::milliseconds grace() const { return grace_; }

  // The windows containing `t` (t >= 0), earliest first.
  std::vector<Window> windows_for(Timestamp t) const {
    std::vector<Window> out;
    for_each_window(t, [&](const Window& w) { out.push_back(w); });
    return out;
  }
  // Calls `f(window)` for each of windows_for(t), without building the vector.
  template <class F>
  void for_each_window(Timestamp t, F&& f) const {
    const std::int64_t size = size_.count();
    const std::int64_t advance = advance_.count();
    const std::int64_t first = std::max<std::int64_t>(0, t.value() - size + advance);
    for (std::int64_t start = first - first % advance; start <= t.value(); start += advance) {
      f(Window{Timestamp(start), Timestamp(start + size)});
    }
  }

  // A non-ok Status naming what is wrong: size, advance or grace out of range.
  Status validate() const;

 private:
  TimeWindows(std::chrono::milliseconds size, std::chrono::milliseconds advance,
              std::chrono::milliseconds grace)
      : size_(size), advance_(advance), grace_(grace) {}
  static Status invalid(const std::string& what, std::chrono::milliseconds got);

  std::chrono::milliseconds size_;
  std::chrono::milliseconds advance_;
  std::chrono::milliseconds grace_;
};

// Sliding windows: [start, end] with end - start = the time difference, both bounds inclusive,
// aligned to the records rather than to the epoch. For each record at t there is a window
// ending at t ([t - difference, t]) and, when later records fall within the difference, one
// starting just after it ([t + 1, t + 1 + difference]): every distinct set of records that
// lie within the difference of each other gets one result, as in Kafka Streams.
class SlidingWindows {
 public:
  static SlidingWindows of_time_difference_and_grace(std::chrono::milliseconds difference,
                                                     std::chrono::milliseconds grace) {
    return SlidingWindows(difference, grace);
  }
  static SlidingWindows of_time_difference_with_no_grace(std::chrono::milliseconds difference) {
    return SlidingWindows(difference, std::chrono::milliseconds(0));
  }
  std::chrono::milliseconds time_difference() const { return difference_; }
  std::chrono::milliseconds grace() const { return grace_; }

  Status validate() const;

 private:
  SlidingWindows(std::chrono::milliseconds difference, std::chrono::milliseconds grace)
      : difference_(difference), grace_(grace) {}
  std::chrono::milliseconds difference_;
  std::chrono::milliseconds grace_;
};

// Session windows: a key's records no more than the inactivity gap apart form one session
// [first, last], both inclusive. A record that bridges two sessions merges them.
class SessionWindows {
 public:
  static SessionWindows of_inactivity_gap_and_grace(std::chrono::milliseconds gap,
                                                    std::chrono::milliseconds grace) {
    return SessionWindows(gap, grace);
  }
  static SessionWindows of_inactivity_gap_with_no_grace(std::chrono::milliseconds gap) {
    return SessionWindows(gap, std::chrono::milliseconds(0));
  }
  std::chrono::milliseconds gap() const { return gap_; }
  std::chrono::milliseconds grace() const { return grace_; }

  Status validate() const;

 private:
  SessionWindows(std::chrono::milliseconds gap, std::chrono::milliseconds grace)
      : gap_(gap), grace_(grace) {}
  std::chrono::milliseconds gap_;
  std::chrono::milliseconds grace_;
};

// The window of a stream-stream join (KStream::join, brook/stream_stream_join.h): a record of
// the other stream at t2 joins a record of this stream at t1 if
// t1 - before <= t2 <= t1 + after, both bounds inclusive. of_time_difference_*(d) sets
// before = after = d (|t1 - t2| <= d); before() and after() then make it asymmetric, and
// either may be negative as long as before + after is not. The grace period is how long after
// a record's window ends (by stream time) records that fall into it are still accepted.
class JoinWindows {
 public:
  static JoinWindows of_time_difference_and_grace(std::chrono::milliseconds difference,
                                                  std::chrono::milliseconds grace) {
    return JoinWindows(difference, difference, grace);
  }
  static JoinWindows of_time_difference_with_no_grace(std::chrono::milliseconds difference) {
    return of_time_difference_and_grace(difference, std::chrono::milliseconds(0));
  }
  // The same windows with another `before` (how far the other record may precede) or `after`
  // (how far it may follow).
  JoinWindows before(std::chrono::milliseconds before) const {
    return JoinWindows(before, after_, grace_);
  }
  JoinWindows after(std::chrono::milliseconds after) const {
    return JoinWindows(before_, after, grace_);
  }

  std::chrono::milliseconds before() const { return before_; }
  std::chrono::milliseconds after() const { return after_; }
  std::chrono::milliseconds grace() const { return grace_; }
  // before + after: how far apart two joined records may be at most.
  std::chrono::milliseconds size() const { return before_ + after_; }

  // A non-ok Status naming what is wrong: a negative window size or grace period.
  Status validate() const;

 private:
  JoinWindows(std::chrono::milliseconds before, std::chrono::milliseconds after,
              std::chrono::milliseconds grace)
      : before_(before), after_(after), grace_(grace) {}
  std::chrono::milliseconds before_;
  std::chrono::milliseconds after_;
  std::chrono::milliseconds grace_;
};

// When a windowed aggregation emits: on every update (Kafka Streams' default), or once per
// window when it closes (the final result only, after the grace period).
enum class EmitStrategy { kOnWindowUpdate, kOnWindowClose };

}  // namespace brook
