// Strong types for the numbers a stream processor passes around, so that an offset is never
// mistaken for a partition or a timestamp.
#pragma once

#include <chrono>
#include <compare>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>

namespace brook {

// StrongInt<Tag, Rep>: an integer with its own type. Compare, read with value().
template <class Tag, class Rep>
class StrongInt {
 public:
  using rep = Rep;
  constexpr StrongInt() = default;
  constexpr explicit StrongInt(Rep v) : value_(v) {}
  constexpr Rep value() const { return value_; }
  friend constexpr auto operator<=>(StrongInt, StrongInt) = default;

 private:
  Rep value_{};
};

using Offset = StrongInt<struct OffsetTag, std::int64_t>;
using Partition = StrongInt<struct PartitionTag, std::int32_t>;

// Milliseconds since the Unix epoch, as Kafka record timestamps. Negative is invalid.
class Timestamp : public StrongInt<struct TimestampTag, std::int64_t> {
 public:
  using StrongInt::StrongInt;
  static constexpr Timestamp min() { return Timestamp(std::numeric_limits<std::int64_t>::min()); }
  constexpr Timestamp operator+(std::chrono::milliseconds d) const {
    return Timestamp(value() + d.count());
  }
  constexpr Timestamp operator-(std::chrono::milliseconds d) const {
    return Timestamp(value() - d.count());
  }
  constexpr std::chrono::milliseconds operator-(Timestamp other) const {
    return std::chrono::milliseconds(value() - other.value());
  }
};

// Task s_p: sub-topology s, partition p.
struct TaskId {
  int subtopology = 0;
  std::int32_t partition = 0;
  friend constexpr auto operator<=>(const TaskId&, const TaskId&) = default;
  std::string to_string() const {
    return std::to_string(subtopology) + "_" + std::to_string(partition);
  }
};

}  // namespace brook
