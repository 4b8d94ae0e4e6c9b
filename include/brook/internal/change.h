// Change<V>: what table operators pass downstream, the new value of a key and the one it
// replaces (either absent: inserted, deleted). ChangeSerde writes one to a repartition topic.
// Not for users.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "brook/internal/coding.h"
#include "brook/serde.h"

namespace brook::internal {

template <class V>
struct Change {
  std::optional<V> new_value;
  std::optional<V> old_value;
  friend bool operator==(const Change&, const Change&) = default;
};

// [1 byte: bit 0 new present, bit 1 old present][4-byte big-endian length of new][new][old]
template <class V>
class ChangeSerde final : public Serde<Change<V>> {
 public:
  explicit ChangeSerde(SerdePtr<V> inner) : inner_(std::move(inner)) {}
  std::string_view name() const override { return inner_->name(); }

  Result<std::string> serialize(const Change<V>& change) const override {
    std::string new_bytes, old_bytes;
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
    std::string out(5, '\0');
    out[0] = static_cast<char>((change.new_value ? 1 : 0) | (change.old_value ? 2 : 0));
    put_big_endian(out.data() + 1, static_cast<std::uint32_t>(new_bytes.size()));
    return out.append(new_bytes).append(old_bytes);
  }

  Result<Change<V>> deserialize(std::string_view bytes) const override {
    if (bytes.size() < 5 || static_cast<unsigned char>(bytes[0]) > 3) return malformed(bytes);
    const auto n = get_big_endian<std::uint32_t>(bytes.data() + 1);
    if (n > bytes.size() - 5) return malformed(bytes);
    Change<V> change;
    if (bytes[0] & 1) {
      auto v = inner_->deserialize(bytes.substr(5, n));
      if (!v) return error(std::move(v.error()));
      change.new_value = std::move(*v);
    }
    if (bytes[0] & 2) {
      auto v = inner_->deserialize(bytes.substr(5 + n));
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
