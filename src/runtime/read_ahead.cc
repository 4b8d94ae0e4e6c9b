#include "runtime/read_ahead.h"

#include <algorithm>

#include "brook/internal/window_keys.h"

namespace brook::internal {

void ReadAhead::add(const StoreSpec& spec, const KeyValueBytesStore& store) {
  if (spec.read_by == StoreSpec::ReadBy::kUnknown) return;
  if (spec.read_by == StoreSpec::ReadBy::kTimeWindows &&
      (spec.window_advance.count() <= 0 || spec.window_size < spec.window_advance)) {
    return;
  }
  stores_.push_back({&store, spec.read_by, spec.window_size.count(), spec.window_advance.count()});
}

void ReadAhead::hint(const ConsumedRecord& record, KeyValueBytesStore::PrefetchStep step) {
  if (!record.key) return;
  const std::string_view key = *record.key;
  for (const Store& s : stores_) {
    if (s.read_by == StoreSpec::ReadBy::kRecordKey) {
      s.store->prefetch(key, step);
      continue;
    }
    // The windows holding the timestamp, as TimeWindows::windows_for() finds them.
    const std::int64_t t = record.timestamp.value();
    if (t < 0) continue;
    const std::int64_t first = std::max<std::int64_t>(0, t - s.window_size + s.window_advance);
    for (std::int64_t start = first - first % s.window_advance; start <= t;
         start += s.window_advance) {
      window_key_.assign(key);
      append_window_key_suffix(window_key_, Timestamp(start), 0);
      s.store->prefetch(window_key_, step);
    }
  }
}

}  // namespace brook::internal
