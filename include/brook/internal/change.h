// Change<V>: what table operators pass downstream, the new value of a key and the one it
// replaces (either absent: inserted, deleted). ChangeSerde writes one to a repartition topic.
// Not for users.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "brook/internal/coding.h"
#include "brook/serde.h"

namespace brook::internal {

template <class V>
struct Change {
  std::optional<V> new_value;
  std::optional<V> old_value;
  friend bool operator==(const Change&, const Change&) = default;
};

// A change's serialised parts (either absent), as ChangeSerde lays them out:
// [1 byte: bit 0 new present, bit 1 old present][4-byte big-endian length of new][new][old]
struct ChangeBytes {
  std::optional<std::string_view> new_value;
  std::optional<std::string_view> old_value;
};

// The parts of `bytes`; nullopt if it is not a change.
inline std::optional<ChangeBytes> split_change(std::string_view bytes) {
  if (bytes.size() < 5 || static_cast<unsigned char>(bytes[0]) > 3) return std::nullopt;
  const auto n = get_big_endian<std::uint32_t>(bytes.data() + 1);
  if (n > bytes.size() - 5) return std::nullopt;
  ChangeBytes parts;
  if (bytes[0] & 1) parts.new_value = bytes.substr(5, n);
  if (bytes[0] & 2) parts.old_value = bytes.substr(5 + n);
  return parts;
}

// Appends the change of these serialised parts to `out`.
inline void append_change(std::string& out, std::optional<std::string_view> new_value,
                          std::optional<std::string_view> old_value) {
  out.push_back(static_cast<char>((new_value ? 1 : 0) | (old_value ? 2 : 0)));
  append_big_endian(out, new_value ? new_value->size() : 0, 4);
  if (new_value) out.append(*new_value);
  if (old_value) out.append(*old_value);
}

// The layout of ChangeBytes.
template <class V>
class ChangeSerde final : public Serde<Change<V>> {
 public:
  explicit ChangeSerde(SerdePtr<V> inner) : inner_(std::move(inner)) {}
  std::string_view name() const override { return inner_->name(); }

  Result<std::string> serialize(const Change<V>& change) const override {
    std::optional<std::string> new_bytes, old_bytes;
    if (change.new_value) {
      auto b = inner_->serialize(*change.new_value);
      if (!b) return b;
      new_bytes = std::move(*b);
    }
    if (change.old_value) {
      auto b = inner_->serialize(*change.old_value);
      if (!b) return b;
      old_bytes = std::move(*b);
    }
    std::string out;
    append_change(out, new_bytes, old_bytes);
    return out;
  }

  Result<Change<V>> deserialize(std::string_view bytes) const override {
    const auto parts = split_change(bytes);
    if (!parts) return malformed(bytes);
    Change<V> change;
    if (parts->new_value) {
      auto v = inner_->deserialize(*parts->new_value);
      if (!v) return error(std::move(v.error()));
      change.new_value = std::move(*v);
    }
    if (parts->old_value) {
      auto v = inner_->deserialize(*parts->old_value);
      if (!v) return error(std::move(v.error()));
      change.old_value = std::move(*v);
    }
    return change;
  }

 private:
  std::unexpected<Status> malformed(std::string_view bytes) const {
    return error(Status::corruption("change of " + std::string(name()) + ": malformed header in " +
                                    std::to_string(bytes.size()) + " bytes"));
  }

  SerdePtr<V> inner_;
};

}  // namespace brook::internal
