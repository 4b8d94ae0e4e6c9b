// What tests of running Streams applications wait on and count, on either log.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

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

// Waits until `app`'s key-value store `store` answers `expected` for `key` (nullopt: the key is
// absent), e.g. for an update written to a table's topic to arrive. Fails the test, with the
// last answer, if that takes longer than `limit` or the application stops in ERROR.
template <class K, class V>
void wait_for_store_value(const Streams& app, std::string_view store, const K& key,
                          const std::optional<V>& expected,
                          std::chrono::seconds limit = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::string last = "no answer";
  while (std::chrono::steady_clock::now() < deadline) {
    ASSERT_NE(app.state(), Streams::State::kError);
    auto view = app.store<K, V>(store);
    if (!view) {
      last = view.error().to_string();
    } else if (auto value = view->get(key); !value) {
      last = value.error().to_string();
    } else if (*value == expected) {
      return;
    } else {
      last = ::testing::PrintToString(*value);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the store has no change feed
  }
  FAIL() << "store " << store << " did not answer " << ::testing::PrintToString(expected)
         << " for key " << ::testing::PrintToString(key) << " within " << limit.count()
         << " s; its last answer: " << last;
}

// Counts the records the store restorations read, in all.
class CountingRestoreListener final : public StateRestoreListener {
 public:
  void on_restore_end(const std::string&, TaskId, std::int64_t restored) override {
    total += restored;
  }
  std::atomic<std::int64_t> total = 0;
};

// Starts `app` with `listener` told of its restorations, waits until it has processed
// everything and closes it.
inline void run_to_idle(Streams& app, std::shared_ptr<StateRestoreListener> listener) {
  app.set_restore_listener(std::move(listener));
  EXPECT_TRUE(app.start().ok());
  wait_until_idle(app);
  EXPECT_TRUE(app.close().ok());
}

// run_to_idle(), returning the records its stores restored.
inline std::int64_t run_to_idle(Streams& app) {
  auto listener = std::make_shared<CountingRestoreListener>();
  run_to_idle(app, listener);
  return listener->total;
}

}  // namespace brook::testing
