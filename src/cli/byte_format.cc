#include "cli/byte_format.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "brook/serde.h"
#include "brook/windowed_serde.h"
#include "core/base64.h"

namespace brook::cli {
namespace {

constexpr std::array<std::pair<std::string_view, ByteFormat::Kind>, 6> kKinds = {{
    {"string", ByteFormat::Kind::kString},
    {"int32", ByteFormat::Kind::kInt32},
    {"int64", ByteFormat::Kind::kInt64},
    {"double", ByteFormat::Kind::kDouble},
    {"hex", ByteFormat::Kind::kHex},
    {"base64", ByteFormat::Kind::kBase64},
}};

template <class SerdeT>
Result<std::string> number(std::string_view bytes) {
  auto value = SerdeT().deserialize(bytes);
  if (!value) return error(Status::invalid_argument(value.error().message()));
  return fmt::format("{}", *value);
}

Result<std::string> format_plain(ByteFormat::Kind kind, std::string_view bytes) {
  switch (kind) {
    case ByteFormat::Kind::kString: return std::string(bytes);
    case ByteFormat::Kind::kInt32: return number<Int32Serde>(bytes);
    case ByteFormat::Kind::kInt64: return number<Int64Serde>(bytes);
    case ByteFormat::Kind::kDouble: return number<DoubleSerde>(bytes);
    case ByteFormat::Kind::kHex: {
      std::string out;
      for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
      return out;
    }
    case ByteFormat::Kind::kBase64: return internal::base64_encode(bytes);
  }
  return std::string(bytes);
}

}  // namespace

Result<ByteFormat> parse_byte_format(std::string_view text) {
  ByteFormat format;
  for (const auto& [prefix, window] :
       {std::pair{std::string_view("windowed:"), ByteFormat::Window::kTime},
        std::pair{std::string_view("session:"), ByteFormat::Window::kSession}}) {
    if (text.starts_with(prefix)) {
      format.window = window;
      text.remove_prefix(prefix.size());
    }
  }
  for (const auto& [name, kind] : kKinds) {
    if (text == name) {
      format.kind = kind;
      return format;
    }
  }
  return error(Status::invalid_argument(fmt::format(
      "'{}' is not a format (string, int32, int64, double, hex, base64, or windowed:<one of "
      "them>, session:<one of them>)",
      text)));
}

Result<std::string> format_bytes(const ByteFormat& format, std::string_view bytes) {
  const std::size_t suffix = format.window == ByteFormat::Window::kTime      ? 8
                             : format.window == ByteFormat::Window::kSession ? 16
                                                                             : 0;
  if (bytes.size() < suffix) {
    return error(Status::invalid_argument(fmt::format(
        "{} bytes are too short for a {} key ({} bytes of window after the key)", bytes.size(),
        format.window == ByteFormat::Window::kTime ? "windowed" : "session", suffix)));
  }
  auto inner = format_plain(format.kind, bytes.substr(0, bytes.size() - suffix));
  if (!inner || suffix == 0) return inner;
  const auto window = bytes.substr(bytes.size() - suffix);
  if (format.window == ByteFormat::Window::kTime) {
    return fmt::format("[{}@{}]", *inner, internal::get_time(window).value());
  }
  // A session key ends with the session's end, then its start.
  return fmt::format("[{}@{}/{}]", *inner, internal::get_time(window.substr(8)).value(),
                     internal::get_time(window.substr(0, 8)).value());
}

}  // namespace brook::cli
