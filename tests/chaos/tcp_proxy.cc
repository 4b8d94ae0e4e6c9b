#include "chaos/tcp_proxy.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace brook::testing {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kReadSize = 64 << 10;
constexpr std::size_t kMaxPending = 4 << 20;  // per direction; reading pauses beyond it
constexpr int kTickMs = 10;                   // how often delays and the test's commands act

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Closes `fd` with a reset instead of an orderly end (SO_LINGER with a zero timeout).
void reset(int fd) {
  const linger abort{.l_onoff = 1, .l_linger = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
  ::close(fd);
}

struct Chunk {
  Clock::time_point due;
  std::string bytes;
};

// One direction of a connection: bytes read from `from` that wait to be written to `to`.
struct Flow {
  int from;
  int to;
  std::deque<Chunk> pending;
  std::size_t pending_bytes = 0;
  std::size_t written = 0;  // of pending.front()
  bool ended = false;       // `from` ended its side; `to`'s is shut once pending is empty
  bool shut = false;

  bool wants_read() const { return !ended && pending_bytes < kMaxPending; }
  bool has_due(Clock::time_point now) const {
    return !pending.empty() && pending.front().due <= now;
  }

  // Reads what `from` has through `scratch`, keeping only the bytes read (pending_bytes counts
  // the memory held); false if the connection failed.
  bool read(Clock::time_point due, std::vector<char>& scratch) {
    const ssize_t n = ::read(from, scratch.data(), scratch.size());
    if (n < 0) return errno == EAGAIN || errno == EINTR;
    if (n == 0) {
      ended = true;
      return true;
    }
    pending.push_back({due, std::string(scratch.data(), static_cast<std::size_t>(n))});
    pending_bytes += pending.back().bytes.size();
    return true;
  }

  // Writes what is due to `to` until it would block; false if the connection failed.
  bool write(Clock::time_point now) {
    while (has_due(now)) {
      const std::string& bytes = pending.front().bytes;
      const ssize_t n = ::send(to, bytes.data() + written, bytes.size() - written, MSG_NOSIGNAL);
      if (n < 0) return errno == EAGAIN || errno == EINTR;
      written += static_cast<std::size_t>(n);
      if (written < bytes.size()) continue;
      pending_bytes -= bytes.size();
      pending.pop_front();
      written = 0;
    }
    if (ended && pending.empty() && !shut) {
      ::shutdown(to, SHUT_WR);
      shut = true;
    }
    return true;
  }
};

struct Connection {
  Connection(int client, int server) : up{client, server}, down{server, client} {}
  Flow up;    // client to target
  Flow down;  // target to client
  bool done() const { return up.shut && down.shut; }
};

}  // namespace

sockaddr_in loopback_address(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

TcpProxy::TcpProxy(int port, int target) : port_(port), target_(target) {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  const int on = 1;
  ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  const sockaddr_in address = loopback_address(port);
  if (::bind(listener_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener_, 128) != 0) {
    const std::string problem = std::strerror(errno);
    ::close(listener_);
    throw std::runtime_error("TcpProxy: cannot listen on 127.0.0.1:" + std::to_string(port) + ": " +
                             problem);
  }
  sockaddr_in bound{};
  socklen_t size = sizeof bound;
  ::getsockname(listener_, reinterpret_cast<sockaddr*>(&bound), &size);
  port_ = ntohs(bound.sin_port);
  set_nonblocking(listener_);
  thread_ = std::thread([this] { run(); });
}

TcpProxy::~TcpProxy() {
  stop_.store(true);
  thread_.join();
  ::close(listener_);
}

void TcpProxy::run() {
  std::list<Connection> open;
  auto close_connection = [](Connection& c) {
    reset(c.up.from);
    reset(c.up.to);
  };
  std::vector<pollfd> fds;
  std::vector<char> scratch(kReadSize);
  while (!stop_.load()) {
    if (drop_.exchange(false)) {
      for (auto& c : open) close_connection(c);
      open.clear();
    }
    const bool dark = black_hole_.load();
    const auto now = Clock::now();
    fds.assign(1, {.fd = listener_, .events = static_cast<short>(dark ? 0 : POLLIN)});
    for (const auto& c : open) {
      // Each socket is one flow's `from` and the other's `to`.
      for (const auto& [in, out] : {std::pair(&c.up, &c.down), std::pair(&c.down, &c.up)}) {
        short events = 0;
        if (!dark && in->wants_read()) events |= POLLIN;
        if (!dark && out->has_due(now)) events |= POLLOUT;
        fds.push_back({.fd = in->from, .events = events});
      }
    }
    ::poll(fds.data(), fds.size(), kTickMs);
    if (stop_.load()) break;
    if (dark) continue;

    const auto arrived = Clock::now();
    const auto due = arrived + std::chrono::milliseconds(delay_ms_.load());
    std::size_t i = 1;
    for (auto it = open.begin(); it != open.end(); i += 2) {
      Connection& c = *it;
      const bool client_ready = fds[i].revents != 0;
      const bool server_ready = fds[i + 1].revents != 0;
      bool ok = true;
      if (client_ready && c.up.wants_read()) ok = c.up.read(due, scratch);
      if (ok && server_ready && c.down.wants_read()) ok = c.down.read(due, scratch);
      ok = ok && c.up.write(arrived) && c.down.write(arrived);
      if (!ok || c.done()) {
        if (ok) {
          ::close(c.up.from);
          ::close(c.up.to);
        } else {
          close_connection(c);
        }
        it = open.erase(it);
      } else {
        ++it;
      }
    }
    if ((fds[0].revents & POLLIN) == 0) continue;
    while (true) {
      const int client = ::accept(listener_, nullptr, nullptr);
      if (client < 0) break;
      connections_.fetch_add(1);
      const int server = ::socket(AF_INET, SOCK_STREAM, 0);
      const sockaddr_in address = loopback_address(target_);
      if (::connect(server, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        reset(client);  // the target is down: so is the connection
        ::close(server);
        continue;
      }
      set_nonblocking(client);
      set_nonblocking(server);
      open.emplace_back(client, server);
    }
  }
  for (auto& c : open) close_connection(c);
}

}  // namespace brook::testing
