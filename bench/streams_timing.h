// Timing a Streams application in a benchmark: from RUNNING (stores open, partitions assigned:
// startup is not processing) until it has processed and committed all its input (lag 0).
#pragma once

#include <atomic>
#include <chrono>
#include <thread>

#include "brook/streams.h"

namespace brook::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Starts `app` and returns the seconds it took from RUNNING to lag 0; the application's
// error if it stops in ERROR first.
inline Result<double> run_until_idle(Streams& app) {
  std::atomic<Clock::time_point> start{};
  app.set_state_listener([&](Streams::State to, Streams::State) {
    if (to == Streams::State::kRunning) {
      auto none = Clock::time_point{};
      start.compare_exchange_strong(none, Clock::now());
    }
  });
  if (auto s = app.start(); !s.ok()) return error(std::move(s));
  while (true) {
    if (app.state() == Streams::State::kError) {
      app.set_state_listener(nullptr);
      return error(app.close());
    }
    auto lag = app.lag();
    if (!lag) return error(std::move(lag.error()));
    if (*lag == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const double seconds = seconds_since(start.load());
  app.set_state_listener(nullptr);  // `start` goes out of scope
  return seconds;
}

}  // namespace brook::bench
