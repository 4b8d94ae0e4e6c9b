// How the CLI prints keys and values of a known encoding (--key-format, --value-format):
//   string     the bytes as they are            hex, base64   the bytes encoded
//   int32, int64, double   Kafka's big-endian serializers (brook::Int32Serde, ...)
//   windowed:<inner>   a time-windowed key: [<inner>@<window start>] (TimeWindowedSerde)
//   session:<inner>    a session key: [<inner>@<start>/<end>] (SessionWindowedSerde)
#pragma once

#include <string>
#include <string_view>

#include "brook/status.h"

namespace brook::cli {

struct ByteFormat {
  enum class Kind { kString, kInt32, kInt64, kDouble, kHex, kBase64 };
  enum class Window { kNone, kTime, kSession };
  Kind kind = Kind::kString;
  Window window = Window::kNone;
};

// The format named `text`; kInvalidArgument listing the names otherwise.
Result<ByteFormat> parse_byte_format(std::string_view text);

// `bytes` as `format` prints them; kInvalidArgument saying why they are not of that format
// (e.g. 3 bytes for an int32).
Result<std::string> format_bytes(const ByteFormat& format, std::string_view bytes);

}  // namespace brook::cli
