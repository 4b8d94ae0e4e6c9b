// The stream thread's phases; the thread itself runs in the integration and contract tests.
#include "runtime/stream_thread.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace brook::internal {
namespace {

TEST(StreamThreadPhase, TheLegalChanges) {
  using Phase = StreamThread::Phase;
  const Phase all[] = {Phase::kStarting, Phase::kRebalancing, Phase::kRunning, Phase::kStopped};
  std::vector<std::string> legal;
  for (Phase from : all) {
    for (Phase to : all) {
      if (StreamThread::is_legal_change(from, to)) {
        legal.push_back(std::string(StreamThread::to_string(from)) + "->" +
                        StreamThread::to_string(to));
      }
    }
  }
  EXPECT_THAT(legal, ::testing::ElementsAre("STARTING->REBALANCING", "STARTING->STOPPED",
                                            "REBALANCING->RUNNING", "REBALANCING->STOPPED",
                                            "RUNNING->REBALANCING", "RUNNING->STOPPED"));
}

}  // namespace
}  // namespace brook::internal
