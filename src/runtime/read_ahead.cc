#include "runtime/read_ahead.h"

#include "brook/internal/window_keys.h"

namespace brook::internal {

void ReadAhead::add(const StoreSpec& spec, const KeyValueBytesStore& store) {
  if (spec.read_by == StoreSpec::ReadBy::kUnknown) return;
  if (spec.read_by == StoreSpec::ReadBy::kTimeWindows &&
      (spec.window_advance.count() <= 0 || spec.window_size < spec.window_advance)) {
    return;
  }
  stores_.push_back(
      {&store, spec.read_by,
       TimeWindows::of_size_with_no_grace(spec.window_size).advance_by(spec.window_advance)});
}

void ReadAhead::hint(const ConsumedRecord& record, KeyValueBytesStore::PrefetchStep step) {
  if (!record.key) return;
  const std::string_view key = *record.key;
  for (const Store& s : stores_) {
    if (s.read_by == StoreSpec::ReadBy::kRecordKey) {
      s.store->prefetch(key, step);
      continue;
    }
    if (record.timestamp.value() < 0) continue;
    s.windows.for_each_window(record.timestamp, [&](const Window& window) {
      window_key_.assign(key);
      append_window_key_suffix(window_key_, window.start, 0);
      s.store->prefetch(window_key_, step);
    });
  }
}

}  // namespace brook::internal
