#include <fmt/format.h>

#include <vector>

#include "brook/serve.h"
#include "core/text_numbers.h"

namespace brook {

Result<ServeOptions> serve_options(const Streams& app) {
  ServeOptions options;
  std::vector<std::string> errors;
  for (const auto& [key, value] : app.config()) {
    if (!key.starts_with("serve.")) continue;
    auto number = [&](std::int64_t min, std::int64_t max) -> std::int64_t {
      auto n = internal::parse_integer_in(key, value, min, max);
      if (!n) errors.push_back(n.error().message());
      return n.value_or(min);
    };
    if (key == "serve.listen") {
      options.listen = value;
    } else if (key == "serve.threads") {
      options.threads = static_cast<int>(number(1, 256));
    } else if (key == "serve.max.page") {
      options.max_page = static_cast<std::size_t>(number(1, 100'000));
    } else if (key == "serve.timeout.ms") {
      options.timeout = std::chrono::milliseconds(number(1, 600'000));
    } else if (key == "serve.auth.token") {
      options.auth_token = value;
    } else {
      errors.push_back(fmt::format("unknown configuration key '{}'", key));
    }
  }
  options.default_page = std::min(options.default_page, options.max_page);
  if (!errors.empty()) {
    return error(Status::invalid_argument(
        fmt::format("serve configuration:\n  - {}", fmt::join(errors, "\n  - "))));
  }
  return options;
}

}  // namespace brook
