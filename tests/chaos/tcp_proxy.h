// A TCP proxy on loopback for network-fault tests: every connection made to its port is
// forwarded to a target port, through a link the test can break: drop every connection (as a
// router that resets them), delay every byte, or black-hole everything (nothing moves in either
// direction, new connections included, until it ends). One thread moves the bytes.
#pragma once

#include <netinet/in.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace brook::testing {

// The address 127.0.0.1:`port` (0: any free port, when binding).
sockaddr_in loopback_address(int port);

class TcpProxy {
 public:
  // Listens on 127.0.0.1:`port` (0: a free port, see port()) and forwards to
  // 127.0.0.1:`target`. Throws std::runtime_error naming the port if it cannot listen.
  TcpProxy(int port, int target);
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;
  // Stops forwarding and closes every connection.
  ~TcpProxy();

  // Resets every open connection (both ends see ECONNRESET); new ones go through.
  void drop_connections() { drop_.store(true); }
  // Forwards each byte `delay` after it arrived (zero: at once).
  void set_delay(std::chrono::milliseconds delay) { delay_ms_.store(delay.count()); }
  // On: reads nothing and forwards nothing, and connections made meanwhile wait unanswered in
  // the listen queue. Off: everything held moves on.
  void set_black_hole(bool on) { black_hole_.store(on); }
  int port() const { return port_; }
  // Connections accepted so far.
  std::int64_t connections() const { return connections_.load(); }

 private:
  void run();

  int listener_ = -1;
  int port_;
  int target_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> drop_{false};
  std::atomic<bool> black_hole_{false};
  std::atomic<std::int64_t> delay_ms_{0};
  std::atomic<std::int64_t> connections_{0};
  std::thread thread_;
};

}  // namespace brook::testing
