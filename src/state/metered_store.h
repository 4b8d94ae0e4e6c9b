// The metering decorator (Kafka Streams' MeteredKeyValueStore), on top of a store's stack when
// metrics.recording.level is DEBUG: times every get() (get_into()) and put() of the stream thread
// into the store's "get" and "put" latency sensors. Everything else goes straight through.
#pragma once

#include <memory>

#include "brook/metrics.h"
#include "state/forwarding_store.h"

namespace brook::internal {

class MeteredStore final : public ForwardingStore {
 public:
  MeteredStore(std::unique_ptr<KeyValueBytesStore> inner, Sensor& get, Sensor& put)
      : ForwardingStore(std::move(inner)), get_(get), put_(put) {}

  Result<std::optional<std::string>> get(std::string_view key) override {
    const Stopwatch watch;
    auto value = inner().get(key);
    watch.record(get_);
    return value;
  }
  Result<bool> get_into(std::string_view key, std::string& value) override {
    const Stopwatch watch;
    auto found = inner().get_into(key, value);
    watch.record(get_);
    return found;
  }
  Status put(std::string_view key, std::optional<std::string_view> value) override {
    const Stopwatch watch;
    auto status = inner().put(key, value);
    watch.record(put_);
    return status;
  }

 private:
  Sensor& get_;
  Sensor& put_;
};

}  // namespace brook::internal
