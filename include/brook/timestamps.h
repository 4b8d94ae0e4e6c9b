// Event time at the sources: which timestamp a record read from a topic carries.
//
// By default a record carries the timestamp the log stored with it. A source can take it
// from the record instead (Consumed::timestamp_extractor, e.g. a field of the value) or use
// the wall clock when the record is processed (Consumed::wall_clock_time). The timestamp a
// source settles on is the typed record's timestamp downstream (sinks write it) and advances
// the task's stream time before the record is forwarded. See docs/event_time.md.
#pragma once

#include <functional>

#include "brook/record.h"
#include "brook/types.h"

namespace brook {

// The event time of `record` (which carries the log's timestamp). `partition_time` is the
// largest valid timestamp extracted so far from the record's input partition, or
// Timestamp::min() before the first. Called on the task's thread, once per record, in the
// order the records are processed; an exception goes to the processing-error handler.
template <class K, class V>
using TimestampExtractor =
    std::function<Timestamp(const Record<K, V>& record, Timestamp partition_time)>;

// What a source does with a record whose timestamp (as extracted) is negative.
enum class InvalidTimestamp {
  kFail,              // the task stops with an error naming the record and its timestamp
  kSkip,              // the record is dropped, logged and counted in dropped-records-total
  kUsePartitionTime,  // the partition time instead; fails as kFail if there is none yet
};

}  // namespace brook
