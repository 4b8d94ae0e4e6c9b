// The change-logging decorator: every write to the store is also sent to the store's
// changelog partition, so the store can be rebuilt from it. Key and value bytes are the
// store's own (the log function sends a timestamped store's value without its timestamp,
// StoreSpec::timestamped); a delete is a tombstone.
#pragma once

#include <functional>
#include <memory>

#include "state/forwarding_store.h"

namespace brook::internal {

class ChangeLoggingStore final : public ForwardingStore {
 public:
  // Sends one changelog record; nullopt value: a tombstone.
  using Log = std::function<void(std::string_view key, std::optional<std::string_view> value)>;

  ChangeLoggingStore(std::unique_ptr<KeyValueBytesStore> inner, Log log)
      : ForwardingStore(std::move(inner)), log_(std::move(log)) {}

  Status put(std::string_view key, std::optional<std::string_view> value) override {
    if (auto s = inner().put(key, value); !s.ok()) return s;
    log_(key, value);
    return {};
  }

 private:
  Log log_;
};

}  // namespace brook::internal
