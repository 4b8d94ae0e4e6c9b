#include "state/window_memory_index.h"

#include <absl/container/inlined_vector.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "brook/internal/coding.h"

namespace brook::internal {

namespace {

bool in_range(std::string_view key, const KeyRange& range) {
  return (!range.from || key >= *range.from) && (!range.to || key <= *range.to);
}

}  // namespace

WindowMemoryIndex::Suffix WindowMemoryIndex::suffix_of(std::string_view bytes) const {
  return {.high = get_big_endian<std::uint64_t>(bytes.data()),
          .low = read_big_endian(bytes.substr(8)) << (8 * (16 - suffix_))};
}

void WindowMemoryIndex::write(char* out, Suffix suffix) const {
  char low[8];  // left-aligned: its first suffix_ - 8 bytes are the key's
  put_big_endian(out, suffix.high);
  put_big_endian(low, suffix.low);
  std::memcpy(out + 8, low, suffix_ - 8);
}

void WindowMemoryIndex::append(std::string& out, Suffix suffix) const {
  const std::size_t at = out.size();
  out.resize(at + suffix_);
  write(out.data() + at, suffix);
}

std::vector<WindowMemoryIndex::Entry>::const_iterator WindowMemoryIndex::lower_bound(
    const Group& group, Suffix suffix) {
  return std::partition_point(group.entries.begin(), group.entries.end(),
                              [&](const Entry& e) { return e.suffix < suffix; });
}

std::optional<std::string_view> WindowMemoryIndex::get(std::string_view key,
                                                       std::int64_t min_time) const {
  const std::size_t record = key.size() - suffix_;
  auto group = groups_.find(key.substr(0, record));
  if (group == groups_.end()) return std::nullopt;
  const Suffix suffix = suffix_of(key.substr(record));
  auto entry = lower_bound(group->second, suffix);
  if (entry == group->second.entries.end() || entry->suffix != suffix || entry->time() < min_time) {
    return std::nullopt;
  }
  return entry->value;
}

void WindowMemoryIndex::put(std::string_view key, std::optional<std::string_view> value,
                            std::int64_t keep_from) {
  const std::size_t record = key.size() - suffix_;
  const std::string_view record_key = key.substr(0, record);
  const Suffix suffix = suffix_of(key.substr(record));
  auto group = groups_.find(record_key);
  if (!value) {
    if (group == groups_.end()) return;
    auto& entries = group->second.entries;
    auto entry = lower_bound(group->second, suffix);
    if (entry == entries.end() || entry->suffix != suffix) return;
    entries.erase(entry);
    --size_;
    if (entries.empty()) remove_group(record_key);
    return;
  }
  if (group == groups_.end()) {
    group = groups_.try_emplace(record_key).first;
    add_group(group->first, group->second);
  }
  auto& entries = group->second.entries;
  const auto kept =
      std::ranges::find_if(entries, [&](const Entry& e) { return e.time() >= keep_from; });
  size_ -= static_cast<std::size_t>(kept - entries.begin());
  entries.erase(entries.begin(), kept);
  // Windows mostly arrive in time order: then the entry goes at the end.
  auto at = entries.empty() || entries.back().suffix < suffix
                ? entries.end()
                : entries.begin() + (lower_bound(group->second, suffix) - entries.cbegin());
  if (at != entries.end() && at->suffix == suffix) {
    at->value.assign(*value);
    return;
  }
  entries.insert(at, {.suffix = suffix, .value = std::string(*value)});
  ++size_;
}

void WindowMemoryIndex::drop_below(std::int64_t time) {
  std::vector<std::string> emptied;
  for (auto& [record_key, group] : groups_) {
    size_ -= std::erase_if(group.entries, [&](const Entry& e) { return e.time() < time; });
    if (group.entries.empty()) emptied.push_back(record_key);
  }
  for (const auto& record_key : emptied) remove_group(record_key);
}

template <class Index, class Visit>
bool WindowMemoryIndex::for_each_related(Index& index, std::string_view record_key, Visit visit) {
  for (auto longer = index.record_keys_.upper_bound(record_key);
       longer != index.record_keys_.end() && longer->starts_with(record_key); ++longer) {
    if (!visit(*longer, index.groups_.find(*longer)->second)) return false;
  }
  for (const auto& [length, groups] : index.key_lengths_) {
    if (length >= record_key.size()) break;
    const std::string_view prefix = record_key.substr(0, length);
    if (auto shorter = index.groups_.find(prefix);
        shorter != index.groups_.end() && !visit(prefix, shorter->second)) {
      return false;
    }
  }
  return true;
}

bool WindowMemoryIndex::has_related(std::string_view record_key) const {
  return !for_each_related(*this, record_key, [](std::string_view, const Group&) { return false; });
}

void WindowMemoryIndex::add_group(const std::string& record_key, Group& group) {
  for_each_related(*this, record_key, [&](std::string_view, Group& other) {
    ++other.related;
    ++group.related;
    return true;
  });
  record_keys_.insert(record_key);
  ++key_lengths_[record_key.size()];
}

void WindowMemoryIndex::remove_group(std::string_view record_key) {
  record_keys_.erase(record_key);
  if (auto count = key_lengths_.find(record_key.size()); --count->second == 0) {
    key_lengths_.erase(count);
  }
  for_each_related(*this, record_key, [](std::string_view, Group& other) {
    --other.related;
    return true;
  });
  groups_.erase(groups_.find(record_key));  // last: record_key may be the group's own key
}

void WindowMemoryIndex::scan(const KeyRange& range, std::int64_t min_time,
                             const ScanVisitor& visit) const {
  // One record key's range: both bounds are that key followed by a suffix.
  const bool one_record_key =
      range.from && range.to && range.from->size() >= suffix_ &&
      range.from->size() == range.to->size() &&
      std::string_view(*range.from).substr(0, range.from->size() - suffix_) ==
          std::string_view(*range.to).substr(0, range.to->size() - suffix_);
  if (!one_record_key) return scan_all(range, min_time, visit);
  const std::size_t record = range.from->size() - suffix_;
  const std::string_view record_key = std::string_view(*range.from).substr(0, record);
  auto group = groups_.find(record_key);
  if (group == groups_.end()) {
    if (has_related(record_key)) scan_related(record_key, range, min_time, visit);
    return;
  }
  if (group->second.related > 0) return scan_related(record_key, range, min_time, visit);
  const Suffix to = suffix_of(std::string_view(*range.to).substr(record));
  // The key each visit is given: the record key, then the entry's suffix (on the stack for
  // the usual key sizes: this runs for every record of a join).
  absl::InlinedVector<char, 64> key(record_key.begin(), record_key.end());
  key.resize(record + suffix_);
  const auto& entries = group->second.entries;
  for (auto entry =
           lower_bound(group->second, suffix_of(std::string_view(*range.from).substr(record)));
       entry != entries.end() && entry->suffix <= to; ++entry) {
    if (entry->time() < min_time) continue;
    write(key.data() + record, entry->suffix);
    if (!visit({key.data(), key.size()}, entry->value)) return;
  }
}

void WindowMemoryIndex::collect(std::string_view record_key, const Group& group,
                                const KeyRange& range, std::int64_t min_time,
                                std::vector<Found>& found) const {
  for (const auto& entry : group.entries) {
    if (entry.time() < min_time) continue;
    std::string key(record_key);
    append(key, entry.suffix);
    if (in_range(key, range)) found.emplace_back(std::move(key), entry.value);
  }
}

void WindowMemoryIndex::visit_sorted(std::vector<Found>& found, const ScanVisitor& visit) {
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [key, value] : found) {
    if (!visit(key, value)) return;
  }
}

void WindowMemoryIndex::scan_all(const KeyRange& range, std::int64_t min_time,
                                 const ScanVisitor& visit) const {
  std::vector<Found> found;
  for (const auto& [record_key, group] : groups_)
    collect(record_key, group, range, min_time, found);
  visit_sorted(found, visit);
}

void WindowMemoryIndex::scan_related(std::string_view record_key, const KeyRange& range,
                                     std::int64_t min_time, const ScanVisitor& visit) const {
  std::vector<Found> found;
  if (auto own = groups_.find(record_key); own != groups_.end()) {
    collect(record_key, own->second, range, min_time, found);
  }
  // A longer record key's keys all begin with its bytes after `record_key`: when those sort
  // below the range's suffix from, or above its suffix to, none of its keys is in range.
  const std::string_view from = std::string_view(*range.from).substr(record_key.size());
  const std::string_view to = std::string_view(*range.to).substr(record_key.size());
  for_each_related(*this, record_key, [&](std::string_view related, const Group& group) {
    if (related.size() > record_key.size()) {
      const std::string_view tail = related.substr(record_key.size());
      const std::size_t n = std::min(tail.size(), from.size());
      if (tail.substr(0, n) < from.substr(0, n) || tail.substr(0, n) > to.substr(0, n)) {
        return true;
      }
    }
    collect(related, group, range, min_time, found);
    return true;
  });
  visit_sorted(found, visit);
}

}  // namespace brook::internal
