// Reading a bytes store whole in tests. Shared by Brook's own tests (not installed).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "brook/internal/bytes_store.h"

namespace brook::testing {

using Entries = std::vector<std::pair<std::string, std::string>>;

// The entries of `store` in `range`, in scan order.
inline Entries scan_all(internal::KeyValueBytesStore& store, const internal::KeyRange& range = {}) {
  Entries out;
  EXPECT_TRUE(store
                  .scan(range,
                        [&](std::string_view k, std::string_view v) {
                          out.emplace_back(k, v);
                          return true;
                        })
                  .ok());
  return out;
}

}  // namespace brook::testing
