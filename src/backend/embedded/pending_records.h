// PendingRecords: the records a producer holds for one partition until they are appended (a
// batch, or a transaction's records). Their keys and values are copied into an arena, one
// allocation per block rather than per record; headers, rare on the hot path, into a list whose
// elements never move.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "backend/embedded/partition_log.h"
#include "backend/embedded/record_format.h"
#include "core/record_arena.h"

namespace brook::internal {

class PendingRecords {
 public:
  // Copies the record's bytes; `headers` may be null (none).
  void add(Timestamp timestamp, std::optional<std::string_view> key,
           std::optional<std::string_view> value, const Headers* headers) {
    const Headers* kept = nullptr;
    if (headers != nullptr && !headers->empty()) kept = &headers_.emplace_back(*headers);
    records_.push_back({.timestamp = timestamp,
                        .key = key ? std::optional(arena_.copy(*key)) : std::nullopt,
                        .value = value ? std::optional(arena_.copy(*value)) : std::nullopt,
                        .headers = kept});
    bytes_ += encoded_size(records_.back());
  }
  void add(const StoredRecord& record) {
    const RecordToAppend view = to_append(record);
    add(view.timestamp, view.key, view.value, view.headers);
  }

  std::span<const RecordToAppend> records() const { return records_; }
  std::size_t size() const { return records_.size(); }
  std::size_t bytes() const { return bytes_; }  // encoded, as the log will hold them

 private:
  static constexpr std::size_t kFirstBlockBytes = 16 << 10;

  RecordArena arena_{kFirstBlockBytes};
  std::deque<Headers> headers_;
  std::vector<RecordToAppend> records_;
  std::size_t bytes_ = 0;
};

}  // namespace brook::internal
