// What tests of running Streams applications wait on and count, on either log.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "brook/restore_listener.h"
#include "brook/streams.h"

namespace brook::testing {

// Waits until `app` has processed and committed every input record; fails the test if it
// stops in ERROR or takes longer than `limit`.
inline void wait_until_idle(Streams& app, std::chrono::seconds limit = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    ASSERT_NE(app.state(), Streams::State::kError);
    auto lag = app.lag();
    ASSERT_TRUE(lag) << lag.error().to_string();
    if (*lag == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // lag moves on commits
  }
  FAIL() << "the application did not catch up within " << limit.count() << " s";
}

// Counts the records the store restorations read, in all.
class CountingRestoreListener final : public StateRestoreListener {
 public:
  void on_restore_end(const std::string&, TaskId, std::int64_t restored) override {
    total += restored;
  }
  std::atomic<std::int64_t> total = 0;
};

}  // namespace brook::testing
