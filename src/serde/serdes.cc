#include <bit>

#include "brook/internal/coding.h"
#include "brook/serde.h"

namespace brook {
namespace {

template <class U>
void append_big_endian(U v, std::string& out) {
  char bytes[sizeof(U)];
  internal::put_big_endian(bytes, v);
  out.append(bytes, sizeof bytes);
}

template <class U>
std::string to_big_endian(U v) {
  std::string out;
  append_big_endian(v, out);
  return out;
}

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

Result<std::string> Int32Serde::serialize(const std::int32_t& v) const {
  return to_big_endian(static_cast<std::uint32_t>(v));
}
Status Int32Serde::serialize_into(const std::int32_t& v, std::string& out) const {
  append_big_endian(static_cast<std::uint32_t>(v), out);
  return {};
}
Result<std::int32_t> Int32Serde::deserialize(std::string_view b) const {
  return from_big_endian<std::uint32_t, std::int32_t>(b, name());
}

Result<std::string> Int64Serde::serialize(const std::int64_t& v) const {
  return to_big_endian(static_cast<std::uint64_t>(v));
}
Status Int64Serde::serialize_into(const std::int64_t& v, std::string& out) const {
  append_big_endian(static_cast<std::uint64_t>(v), out);
  return {};
}
Result<std::int64_t> Int64Serde::deserialize(std::string_view b) const {
  return from_big_endian<std::uint64_t, std::int64_t>(b, name());
}

Result<std::string> DoubleSerde::serialize(const double& v) const {
  return to_big_endian(std::bit_cast<std::uint64_t>(v));
}
Status DoubleSerde::serialize_into(const double& v, std::string& out) const {
  append_big_endian(std::bit_cast<std::uint64_t>(v), out);
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
