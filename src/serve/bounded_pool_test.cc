#include "serve/bounded_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

namespace brook::internal {
namespace {

TEST(BoundedPoolTest, EveryTaskRunsOnceAndShutdownRunsWhatIsQueued) {
  std::atomic<int> ran{0};
  BoundedPool pool(2, 3);
  for (int i = 0; i < 50; ++i) pool.enqueue([&] { ++ran; });
  pool.shutdown();
  EXPECT_EQ(ran.load(), 50);
  pool.shutdown();  // idempotent
}

TEST(BoundedPoolTest, EnqueueWaitsWhileTheQueueIsFull) {
  BoundedPool pool(1, 1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  pool.enqueue([&] {
    started.set_value();
    released.wait();
  });
  started.get_future().wait();  // the thread is busy
  pool.enqueue([] {});          // the queue is full
  auto third = std::async(std::launch::async, [&] { pool.enqueue([] {}); });
  EXPECT_EQ(third.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout)
      << "a third task was queued beyond max_queued";
  release.set_value();
  third.wait();  // the thread took the second task: room for the third
  pool.shutdown();
}

}  // namespace
}  // namespace brook::internal
