// build(builder): the topology of `builder`, adding a test failure if it does not build. Shared
// by Brook's own tests (not installed).
#pragma once

#include <gtest/gtest.h>

#include <utility>

#include "brook/streams_builder.h"
#include "brook/topology.h"

namespace brook::testing {

inline Topology build(StreamsBuilder& builder) {
  auto topology = builder.build();
  EXPECT_TRUE(topology) << topology.error().to_string();
  return std::move(*topology);
}

}  // namespace brook::testing
