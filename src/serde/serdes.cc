#include <bit>

#include "brook/internal/coding.h"
#include "brook/serde.h"

namespace brook {
namespace {

// U: the unsigned integer of the wire; T: the value type it stands for.
template <class U, class T>
Result<T> from_big_endian(std::string_view b, std::string_view serde) {
  if (b.size() != sizeof(U)) {
    return error(Status::corruption(std::string(serde) + " serde: expected " +
                                    std::to_string(sizeof(U)) + " bytes, got " +
                                    std::to_string(b.size())));
  }
  return std::bit_cast<T>(internal::get_big_endian<U>(b.data()));
}

}  // namespace

Status internal::too_few_bytes(std::string_view form, std::string_view serde, std::string_view what,
                               std::size_t size, std::size_t needed) {
  return Status::corruption(std::string(form) + " " + std::string(serde) + " " + std::string(what) +
                            " of " + std::to_string(size) + " bytes, needs at least " +
                            std::to_string(needed));
}

Result<std::string> Int32Serde::serialize(const std::int32_t& v) const {
  return internal::serialize_by_appending(*this, v);
}
Status Int32Serde::serialize_into(const std::int32_t& v, std::string& out) const {
  internal::append_big_endian(out, static_cast<std::uint32_t>(v), 4);
  return {};
}
Result<std::int32_t> Int32Serde::deserialize(std::string_view b) const {
  return from_big_endian<std::uint32_t, std::int32_t>(b, name());
}

Result<std::string> Int64Serde::serialize(const std::int64_t& v) const {
  return internal::serialize_by_appending(*this, v);
}
Status Int64Serde::serialize_into(const std::int64_t& v, std::string& out) const {
  internal::append_big_endian(out, static_cast<std::uint64_t>(v), 8);
  return {};
}
Result<std::int64_t> Int64Serde::deserialize(std::string_view b) const {
  return from_big_endian<std::uint64_t, std::int64_t>(b, name());
}

Result<std::string> DoubleSerde::serialize(const double& v) const {
  return internal::serialize_by_appending(*this, v);
}
Status DoubleSerde::serialize_into(const double& v, std::string& out) const {
  internal::append_big_endian(out, std::bit_cast<std::uint64_t>(v), 8);
  return {};
}
Result<double> DoubleSerde::deserialize(std::string_view b) const {
  return from_big_endian<std::uint64_t, double>(b, name());
}

Result<std::string> BytesSerde::serialize(const Bytes& v) const {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size());
}
Status BytesSerde::serialize_into(const Bytes& v, std::string& out) const {
  out.append(reinterpret_cast<const char*>(v.data()), v.size());
  return {};
}
Result<Bytes> BytesSerde::deserialize(std::string_view b) const {
  const auto* p = reinterpret_cast<const std::byte*>(b.data());
  return Bytes(p, p + b.size());
}

}  // namespace brook
