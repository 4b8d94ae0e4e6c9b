#include "state/segmented_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "brook/internal/window_keys.h"

namespace brook::internal {

namespace {

constexpr std::size_t kMergeChunk = 256;  // entries read per seek when merging segments
// The key hashes a store keeps of its fresh segments' writes: 256 Ki, about 2.5 to 5 MiB.
constexpr std::size_t kMaxFreshKeys = std::size_t{1} << 18;

std::string segment_prefix(std::int64_t segment) {
  std::string out;
  out.reserve(kSegmentIdBytes);
  append_big_endian(out, static_cast<std::uint64_t>(segment), kSegmentIdBytes);
  return out;
}

std::string inner_key(std::int64_t segment, std::string_view key) {
  std::string out = segment_prefix(segment);
  out.append(key);
  return out;
}

std::int64_t segment_of_inner(std::string_view inner) {
  return static_cast<std::int64_t>(read_big_endian(inner.substr(0, kSegmentIdBytes)));
}

// The inner range of `range` within `segment`. No stored key is exactly 8 bytes long, so the
// next segment's bare prefix bounds this one inclusively.
KeyRange segment_range(std::int64_t segment, const KeyRange& range) {
  return {.from = range.from ? inner_key(segment, *range.from) : segment_prefix(segment),
          .to = range.to ? inner_key(segment, *range.to) : segment_prefix(segment + 1)};
}

}  // namespace

std::chrono::milliseconds segment_interval_for(std::chrono::milliseconds retention) {
  return std::max<std::chrono::milliseconds>(retention / 2, std::chrono::seconds(60));
}

SegmentedStore::SegmentedStore(std::unique_ptr<KeyValueBytesStore> inner, StoreKind kind,
                               std::chrono::milliseconds retention,
                               std::chrono::milliseconds segment_interval, bool memory_index)
    : inner_(std::move(inner)),
      kind_(kind),
      retention_(std::max<std::int64_t>(retention.count(), 0)),
      interval_(std::max<std::int64_t>(segment_interval.count(), 1)),
      fresh_(kMaxFreshKeys) {
  if (memory_index) {
    memory_.emplace(kind == StoreKind::kSession ? kSessionKeySuffix : kWindowKeySuffix);
  }
}

std::int64_t SegmentedStore::min_live_segment() const {
  if (observed_ < 0 || observed_ <= retention_) return 0;
  // Segment s spans [s * interval, (s + 1) * interval - 1]; it expired when that last time is
  // older than observed - retention, i.e. s < (observed - retention) / interval.
  return (observed_ - retention_) / interval_;
}

Result<std::int64_t> SegmentedStore::time_of(std::string_view key) const {
  const std::size_t suffix = kind_ == StoreKind::kSession ? kSessionKeySuffix : kWindowKeySuffix;
  if (key.size() < suffix) {
    return error(Status::invalid_argument(
        fmt::format("store {}: a {} store key has at least {} bytes, this one {}", name(),
                    kind_ == StoreKind::kSession ? "session" : "window", suffix, key.size())));
  }
  const Timestamp t = kind_ == StoreKind::kSession ? session_key_time(key) : window_key_time(key);
  if (t.value() < 0) {
    return error(Status::invalid_argument(
        fmt::format("store {}: a key's time does not fit a signed 64-bit timestamp", name())));
  }
  return t.value();
}

Status SegmentedStore::recover() {
  if (recovered_) return {};
  if (index_only()) {  // nothing below
    recovered_ = true;
    return {};
  }
  // The first key on disk gives the oldest segment; a binary search of "is there a key at or
  // after segment s" gives the newest.
  auto first_at_or_after = [&](std::int64_t segment) -> Result<std::optional<std::int64_t>> {
    std::optional<std::int64_t> found;
    auto s =
        inner_->scan({.from = segment_prefix(segment)}, [&](std::string_view k, std::string_view) {
          found = segment_of_inner(k);
          return false;
        });
    if (!s.ok()) return error(std::move(s));
    return found;
  };
  auto oldest = first_at_or_after(0);
  if (!oldest) return oldest.error();
  std::int64_t first_empty = 0;  // segments from here on hold no key
  if (*oldest) {
    std::int64_t lo = **oldest;  // a key exists at or after lo
    std::int64_t hi = std::numeric_limits<std::int64_t>::max() / interval_ + 1;  // none after
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      auto found = first_at_or_after(mid);
      if (!found) return found.error();
      (*found ? lo : hi) = mid;
    }
    dropped_below_ = **oldest;
    observed_ = std::max(observed_, lo * interval_);
    first_empty = lo + 1;
  }
  if (!memory_ && inner_->persistent()) fresh_.start_at(first_empty);
  if (memory_) {  // what the inner store held at open, once
    auto s = inner_->scan({}, [&](std::string_view k, std::string_view v) {
      memory_->put(k.substr(kSegmentIdBytes), v, retained_from());
      return true;
    });
    if (!s.ok()) return s;
  }
  recovered_ = true;
  return {};
}

Status SegmentedStore::observe(std::int64_t time) {
  observed_ = std::max(observed_, time);
  const std::int64_t live = min_live_segment();
  if (live <= dropped_below_) return {};
  if (!index_only()) {
    if (auto s = inner_->delete_range(
            {.from = segment_prefix(dropped_below_), .to = segment_prefix(live)});
        !s.ok()) {
      return s;
    }
  }
  dropped_below_ = live;
  fresh_.drop_below(live);
  if (memory_) memory_->drop_below(min_live_time());
  return {};
}

Result<std::int64_t> SegmentedStore::approximate_count() {
  if (index_only()) return static_cast<std::int64_t>(memory_->size());
  return inner_->approximate_count();
}

Result<std::optional<std::string>> SegmentedStore::get(std::string_view key) {
  if (auto s = recover(); !s.ok()) return error(std::move(s));
  auto time = time_of(key);
  if (!time) return error(std::move(time.error()));
  const std::int64_t segment = segment_of(*time);
  if (segment < min_live_segment()) return std::optional<std::string>();
  if (memory_) {
    auto value = memory_->get(key, min_live_time());
    return value ? std::optional<std::string>(*value) : std::nullopt;
  }
  if (fresh_.never_written(segment, key)) return std::optional<std::string>();
  return inner_->get(inner_key(segment, key));
}

template <class Write>
Status SegmentedStore::write(std::string_view key, std::optional<std::string_view> value,
                             Write inner_write) {
  if (auto s = recover(); !s.ok()) return s;
  auto time = time_of(key);
  if (!time) return time.error();
  if (auto s = observe(*time); !s.ok()) return s;
  const std::int64_t segment = segment_of(*time);
  if (segment < min_live_segment()) return {};  // expired: ignored
  fresh_.written(segment, key);
  if (!index_only()) {
    if (auto s = inner_write(inner_key(segment, key), value); !s.ok()) return s;
  }
  if (memory_) memory_->put(key, value, retained_from());
  return {};
}

Status SegmentedStore::put(std::string_view key, std::optional<std::string_view> value) {
  return write(key, value, [&](std::string_view k, std::optional<std::string_view> v) {
    return inner_->put(k, v);
  });
}

void SegmentedStore::prefetch(std::string_view key, PrefetchStep step) const {
  if (step != PrefetchStep::kSlot) return;
  if (auto time = time_of(key)) fresh_.prefetch(segment_of(*time), key);
}

Status SegmentedStore::restore(std::string_view key, std::optional<std::string_view> value) {
  return write(key, value, [&](std::string_view k, std::optional<std::string_view> v) {
    return inner_->restore(k, v);
  });
}

Status SegmentedStore::scan(const KeyRange& range, const ScanVisitor& visit) {
  if (auto s = recover(); !s.ok()) return s;
  if (observed_ < 0) return {};
  if (range.from && range.to && *range.from > *range.to) return {};
  if (memory_) {
    memory_->scan(range, min_live_time(), visit);
    return {};
  }
  // The live segments holding keys: one seek each, skipping empty ones.
  const std::int64_t newest = segment_of(observed_);
  std::vector<std::int64_t> segments;
  for (std::int64_t next = min_live_segment(); next <= newest;) {
    std::optional<std::int64_t> found;
    auto s =
        inner_->scan({.from = segment_prefix(next)}, [&](std::string_view k, std::string_view) {
          found = segment_of_inner(k);
          return false;
        });
    if (!s.ok()) return s;
    if (!found || *found > newest) break;
    segments.push_back(*found);
    next = *found + 1;
  }
  if (segments.size() == 1) {
    return inner_->scan(segment_range(segments[0], range),
                        [&](std::string_view k, std::string_view v) {
                          return visit(k.substr(kSegmentIdBytes), v);
                        });
  }

  // Several segments: merge them, reading each in chunks of kMergeChunk entries.
  struct Cursor {
    KeyRange range;  // what is left to read of the segment (inner keys)
    std::vector<std::pair<std::string, std::string>> entries;
    std::size_t pos = 0;
    bool exhausted = false;
  };
  std::vector<Cursor> cursors;
  for (auto segment : segments) cursors.push_back({.range = segment_range(segment, range)});
  auto fill = [&](Cursor& c) -> Status {
    c.entries.clear();
    c.pos = 0;
    auto s = inner_->scan(c.range, [&](std::string_view k, std::string_view v) {
      c.entries.emplace_back(k, v);
      return c.entries.size() < kMergeChunk;
    });
    if (!s.ok()) return s;
    if (c.entries.size() < kMergeChunk) {
      c.exhausted = true;
    } else {
      c.range.from = c.entries.back().first + '\0';  // the smallest key after the last one
    }
    return {};
  };
  for (auto& c : cursors) {
    if (auto s = fill(c); !s.ok()) return s;
  }
  while (true) {
    Cursor* next = nullptr;
    for (auto& c : cursors) {
      if (c.pos == c.entries.size()) continue;
      if (next == nullptr ||
          std::string_view(c.entries[c.pos].first).substr(kSegmentIdBytes) <
              std::string_view(next->entries[next->pos].first).substr(kSegmentIdBytes)) {
        next = &c;
      }
    }
    if (next == nullptr) return {};
    const auto& [k, v] = next->entries[next->pos];
    if (!visit(std::string_view(k).substr(kSegmentIdBytes), v)) return {};
    if (++next->pos == next->entries.size() && !next->exhausted) {
      if (auto s = fill(*next); !s.ok()) return s;
    }
  }
}

}  // namespace brook::internal
