// The metering decorator (Kafka Streams' MeteredKeyValueStore), on top of a store's stack when
// metrics.recording.level is DEBUG: times every get() and put() of the stream thread into the
// store's "get" and "put" latency sensors. Everything else goes straight through.
#pragma once

#include <memory>

#include "brook/internal/bytes_store.h"
#include "brook/metrics.h"

namespace brook::internal {

class MeteredStore final : public KeyValueBytesStore {
 public:
  MeteredStore(std::unique_ptr<KeyValueBytesStore> inner, Sensor& get, Sensor& put)
      : inner_(std::move(inner)), get_(get), put_(put) {}

  const std::string& name() const override { return inner_->name(); }
  Result<std::optional<std::string>> get(std::string_view key) override {
    const Stopwatch watch;
    auto value = inner_->get(key);
    watch.record(get_);
    return value;
  }
  Result<std::optional<std::string>> read(std::string_view key) override {
    return inner_->read(key);
  }
  Status put(std::string_view key, std::optional<std::string_view> value) override {
    const Stopwatch watch;
    auto status = inner_->put(key, value);
    watch.record(put_);
    return status;
  }
  void prefetch(std::string_view key) const override { inner_->prefetch(key); }
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

 private:
  std::unique_ptr<KeyValueBytesStore> inner_;
  Sensor& get_;
  Sensor& put_;
};

}  // namespace brook::internal
