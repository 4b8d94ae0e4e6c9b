// The change-logging decorator: every write to the store is also sent to the store's
// changelog partition, so the store can be rebuilt from it. Key and value bytes are the
// store's own (a timestamped store logs its [timestamp][value] bytes); a delete is a
// tombstone.
#pragma once

#include <functional>
#include <memory>

#include "brook/internal/bytes_store.h"

namespace brook::internal {

class ChangeLoggingStore final : public KeyValueBytesStore {
 public:
  // Sends one changelog record; nullopt value: a tombstone.
  using Log = std::function<void(std::string_view key, std::optional<std::string_view> value)>;

  ChangeLoggingStore(std::unique_ptr<KeyValueBytesStore> inner, Log log)
      : inner_(std::move(inner)), log_(std::move(log)) {}

  const std::string& name() const override { return inner_->name(); }
  Result<std::optional<std::string>> get(std::string_view key) override { return inner_->get(key); }
  void prefetch(std::string_view key) const override { inner_->prefetch(key); }
  Status put(std::string_view key, std::optional<std::string_view> value) override {
    if (auto s = inner_->put(key, value); !s.ok()) return s;
    log_(key, value);
    return {};
  }
  Status scan(const KeyRange& range, const ScanVisitor& visit) override {
    return inner_->scan(range, visit);
  }
  Result<std::int64_t> approximate_count() override { return inner_->approximate_count(); }
  Status flush() override { return inner_->flush(); }
  Status commit(std::optional<Offset> changelog_next) override {
    return inner_->commit(changelog_next);
  }
  std::optional<Offset> committed_offset() const override { return inner_->committed_offset(); }
  bool persistent() const override { return inner_->persistent(); }
  bool set_flush_listener(CacheFlushListener listener) override {
    return inner_->set_flush_listener(std::move(listener));
  }

 private:
  std::unique_ptr<KeyValueBytesStore> inner_;
  Log log_;
};

}  // namespace brook::internal
