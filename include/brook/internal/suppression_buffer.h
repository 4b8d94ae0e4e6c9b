// The untyped core of KTable::suppress() (brook/suppressed.h says what it does): the buffer of
// held changes on serialised keys and changes, compiled in the library. The typed node around
// it is SuppressProcessor (suppress.h). Not for users.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "brook/headers.h"
#include "brook/internal/bytes_store.h"
#include "brook/internal/coding.h"
#include "brook/suppressed.h"
#include "brook/types.h"

namespace brook::internal {

// A row of the buffer's store, whose value serde is BufferedChangeSerde:
// [8-byte due][8-byte timestamp][4-byte headers length][headers][change (ChangeBytes)], the
// headers as brook/internal/headers_codec.h writes them.
struct BufferedRow {
  Timestamp due;
  Timestamp timestamp;
  std::string_view headers;
  std::string_view change;
};
// The parts of `bytes`; nullopt if its header or headers' length do not fit (the change and the
// headers are not checked).
std::optional<BufferedRow> split_buffered_row(std::string_view bytes);
// Appends a row's parts before its change to `out`.
void append_buffered_row_head(std::string& out, Timestamp due, Timestamp timestamp,
                              const Headers& headers);

// Holds each key's latest change until stream time reaches its due time (that of the key's
// first held update), then emits it; a change that ends where it began (inserted and deleted
// while held) is dropped. Changes are ChangeBytes as ChangeSerde lays them out. Each held
// change is a BufferedRow of the buffer's store; every
// write goes to the store (which logs it), and the index of due times is rebuilt from the
// store before the first use after a (re)start. Errors of the store throw StoreError.
class SuppressionBuffer {
 public:
  // A change leaving the buffer: its key, the change (old: the value from before the first
  // update held), and the timestamp and headers of its latest update.
  using Emit = std::function<void(std::string_view key, std::string_view change,
                                  Timestamp timestamp, Headers headers)>;
  // What leaves: every change, or final results only (until_window_closes, emit on close),
  // which never include a deletion. A deletion due there is a session merged away after it
  // closed, whose result went out when it closed (Kafka Streams' final results drop such
  // tombstones too).
  enum class Leaves { kEveryChange, kFinalResults };

  SuppressionBuffer(std::string store_name, BufferConfig bounds, Leaves leaves, Emit emit);
  ~SuppressionBuffer();
  SuppressionBuffer(const SuppressionBuffer&) = delete;
  SuppressionBuffer& operator=(const SuppressionBuffer&) = delete;

  const std::string& store_name() const { return store_name_; }
  // The store the buffer keeps its changes in; before anything else.
  void attach(KeyValueBytesStore& store);
  // Holds `change` for `key` (merged into the change held for it, if any), then emits what is
  // due at `stream_time`, then the earliest due while the buffer exceeds its bounds (or throws
  // StoreError if its bounds say to shut down).
  void hold(std::string_view key, std::string_view change, Timestamp due, Timestamp timestamp,
            const Headers& headers, Timestamp stream_time);
  // Emits every change due at `stream_time`, earliest first (equal due times by key bytes).
  void emit_due(Timestamp stream_time);

 private:
  struct Index;
  void load_index();
  void emit_first();
  bool full() const;

  std::string store_name_;
  BufferConfig bounds_;
  Leaves leaves_;
  Emit emit_;
  KeyValueBytesStore* store_ = nullptr;
  std::unique_ptr<Index> index_;
  std::string held_;  // the row being merged or emitted, reused
  std::string row_;   // the row being written, reused
};

}  // namespace brook::internal
