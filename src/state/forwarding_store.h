// The base of the decorators that leave keys as they are (change logging, metering): every call
// goes to the store below; a decorator overrides what it adds to. restore(), delete_range()
// and the global positions are not forwarded (restoration writes to the stack's bottom).
#pragma once

#include <memory>

#include "brook/internal/bytes_store.h"

namespace brook::internal {

class ForwardingStore : public KeyValueBytesStore {
 public:
  explicit ForwardingStore(std::unique_ptr<KeyValueBytesStore> inner) : inner_(std::move(inner)) {}

  const std::string& name() const override { return inner_->name(); }
  Result<std::optional<std::string>> get(std::string_view key) override { return inner_->get(key); }
  Result<bool> get_into(std::string_view key, std::string& value) override {
    return inner_->get_into(key, value);
  }
  Result<std::optional<std::string>> read(std::string_view key) override {
    return inner_->read(key);
  }
  Status put(std::string_view key, std::optional<std::string_view> value) override {
    return inner_->put(key, value);
  }
  void prefetch(std::string_view key, PrefetchStep step) const override {
    inner_->prefetch(key, step);
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
  void set_record_headers(const Headers* headers) override { inner_->set_record_headers(headers); }

 protected:
  KeyValueBytesStore& inner() { return *inner_; }

 private:
  std::unique_ptr<KeyValueBytesStore> inner_;
};

}  // namespace brook::internal
