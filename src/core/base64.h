// Base64 with padding (RFC 4648's standard alphabet, as Java's Base64.getEncoder()).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace brook::internal {

std::string base64_encode(std::string_view bytes);
// The bytes of padded base64 text; nullopt unless it is that.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace brook::internal
