#include "state/rocksdb/restore_buffer.h"

#include <algorithm>
#include <iterator>

namespace brook::internal {

void RestoreBuffer::put(std::string_view key, std::optional<std::string_view> value) {
  auto it = writes_.find(key);
  if (it == writes_.end()) {
    it = writes_.try_emplace(std::string(key)).first;
    bytes_ += key.size() + kEntryOverhead;
  }
  Write& write = it->second;
  bytes_ -= write.value.size();
  write.deleted = !value.has_value();
  if (value) {
    write.value.assign(*value);
  } else {
    write.value.clear();
  }
  bytes_ += write.value.size();
}

void RestoreBuffer::delete_range(std::string from, std::string to) {
  if (from >= to) return;
  for (auto it = writes_.begin(); it != writes_.end();) {
    if (it->first >= from && it->first < to) {
      bytes_ -= it->first.size() + it->second.value.size() + kEntryOverhead;
      it = writes_.erase(it);
    } else {
      ++it;
    }
  }
  bytes_ += from.size() + to.size();
  ranges_.emplace_back(std::move(from), std::move(to));
}

std::vector<const RestoreBuffer::Entry*> RestoreBuffer::sorted_entries() const {
  std::vector<const Entry*> sorted;
  sorted.reserve(writes_.size());
  std::transform(writes_.begin(), writes_.end(), std::back_inserter(sorted),
                 [](const Entry& entry) { return &entry; });
  std::sort(sorted.begin(), sorted.end(),
            [](const Entry* a, const Entry* b) { return a->first < b->first; });
  return sorted;
}

void RestoreBuffer::clear() {
  writes_ = Map();  // gives the buckets back too
  ranges_.clear();
  bytes_ = 0;
}

}  // namespace brook::internal
