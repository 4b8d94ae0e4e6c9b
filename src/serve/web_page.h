// The web page served at GET /: one self-contained HTML file (web/index.html: no build step,
// no external assets) that reads the JSON endpoints.
#pragma once

#include <string_view>

namespace brook::internal {

std::string_view web_page();

}  // namespace brook::internal
