// The in-memory key-value store: an ordered map. Nothing survives the process, so it has
// no committed offset and is restored from its whole changelog whenever its task starts.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "brook/internal/bytes_store.h"

namespace brook::internal {

class InMemoryStore final : public KeyValueBytesStore {
 public:
  explicit InMemoryStore(std::string name) : name_(std::move(name)) {}

  const std::string& name() const override { return name_; }
  Result<std::optional<std::string>> get(std::string_view key) override;
  Status put(std::string_view key, std::optional<std::string_view> value) override;
  Status scan(const KeyRange& range, const ScanVisitor& visit) override;
  Status delete_range(const KeyRange& range) override;
  Result<std::int64_t> approximate_count() override {
    return static_cast<std::int64_t>(entries_.size());
  }
  Status flush() override { return {}; }
  Status commit(std::optional<Offset>) override { return {}; }
  std::optional<Offset> committed_offset() const override { return std::nullopt; }
  bool persistent() const override { return false; }

 private:
  std::string name_;
  std::map<std::string, std::string, std::less<>> entries_;  // std::string orders as memcmp
};

}  // namespace brook::internal
