#include <cstdio>

#include "brook/streams_builder.h"

namespace brook {

int report(const Status& status) {
  std::fprintf(stderr, "brook: %s\n", status.to_string().c_str());
  return 1;
}

}  // namespace brook
