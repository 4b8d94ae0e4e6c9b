// The HTTP server's thread pool (httplib's TaskQueue) with a bounded queue: the accept loop
// hands each connection over with enqueue(), which waits while `max_queued` connections already
// wait for a thread. The server then stops accepting, and further clients wait in the kernel's
// listen backlog (and beyond it are refused), so a flood of connections costs no unbounded
// memory.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace brook::internal {

class BoundedPool final : public httplib::TaskQueue {
 public:
  BoundedPool(std::size_t threads, std::size_t max_queued);
  ~BoundedPool() override;  // shutdown()s

  // Queues `task` for a thread, first waiting while max_queued tasks wait.
  void enqueue(std::function<void()> task) override;
  // Runs what is queued, then joins the threads. Idempotent.
  void shutdown() override;

 private:
  void work();

  const std::size_t max_queued_;
  std::mutex mutex_;
  std::condition_variable queued_;  // a task arrived, or shutdown
  std::condition_variable taken_;   // a task left the queue
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace brook::internal
