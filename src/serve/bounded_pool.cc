#include "serve/bounded_pool.h"

namespace brook::internal {

BoundedPool::BoundedPool(std::size_t threads, std::size_t max_queued) : max_queued_(max_queued) {
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
}

BoundedPool::~BoundedPool() { shutdown(); }

void BoundedPool::enqueue(std::function<void()> task) {
  std::unique_lock lock(mutex_);
  taken_.wait(lock, [&] { return tasks_.size() < max_queued_ || stopping_; });
  tasks_.push_back(std::move(task));
  queued_.notify_one();
}

void BoundedPool::shutdown() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  queued_.notify_all();
  taken_.notify_all();
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void BoundedPool::work() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      queued_.wait(lock, [&] { return !tasks_.empty() || stopping_; });
      if (tasks_.empty()) return;  // stopping, nothing left
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    taken_.notify_one();
    task();
  }
}

}  // namespace brook::internal
