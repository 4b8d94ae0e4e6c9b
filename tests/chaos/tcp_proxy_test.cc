// The network-fault proxy (tcp_proxy.h) against an echo server of its own: bytes pass both
// ways, arrive no earlier than the delay, stop in a black hole and move on after it, and a drop
// resets the connection while new ones go through.
#include "chaos/tcp_proxy.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>

namespace brook::testing {
namespace {

using std::chrono::milliseconds;

int bound_port(int fd) {
  sockaddr_in address{};
  socklen_t size = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  return ntohs(address.sin_port);
}

// Echoes every byte back on each connection, one thread per connection.
class EchoServer {
 public:
  EchoServer() {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const sockaddr_in any = loopback_address(0);
    ::bind(listener_, reinterpret_cast<const sockaddr*>(&any), sizeof any);
    ::listen(listener_, 16);
    port_ = bound_port(listener_);
    thread_ = std::thread([this] {
      while (true) {
        const int fd = ::accept(listener_, nullptr, nullptr);
        if (fd < 0) return;  // shut down
        std::thread([fd] {
          char buffer[4096];
          ssize_t n = 0;
          while ((n = ::read(fd, buffer, sizeof buffer)) > 0) ::send(fd, buffer, n, MSG_NOSIGNAL);
          ::close(fd);
        }).detach();
      }
    });
  }
  ~EchoServer() {
    ::shutdown(listener_, SHUT_RDWR);
    thread_.join();
    ::close(listener_);
  }
  int port() const { return port_; }

 private:
  int listener_;
  int port_;
  std::thread thread_;
};

// A client connection through the proxy.
class Client {
 public:
  explicit Client(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    const sockaddr_in address = loopback_address(port);
    connected_ = ::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  }
  ~Client() { ::close(fd_); }
  bool connected() const { return connected_; }
  void send(const std::string& bytes) { ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL); }
  // `size` bytes, or what came before `timeout` passed; nullopt if the connection failed.
  std::optional<std::string> receive(std::size_t size, milliseconds timeout) {
    std::string out;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (out.size() < size) {
      const auto left =
          std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd p{.fd = fd_, .events = POLLIN};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      char buffer[4096];
      const ssize_t n = ::read(fd_, buffer, std::min(sizeof buffer, size - out.size()));
      if (n <= 0) return std::nullopt;
      out.append(buffer, static_cast<std::size_t>(n));
    }
    return out;
  }

 private:
  int fd_;
  bool connected_ = false;
};

constexpr milliseconds kPatience(10'000);  // for bytes that must arrive
constexpr milliseconds kWhile(300);        // for bytes that must not

// A proxy in front of an echo server.
class TcpProxyTest : public ::testing::Test {
 protected:
  // A client through the proxy whose first byte has come back.
  std::unique_ptr<Client> echoing_client() {
    auto client = std::make_unique<Client>(proxy_.port());
    client->send("a");
    EXPECT_EQ(client->receive(1, kPatience), "a");
    return client;
  }

  EchoServer echo_;
  TcpProxy proxy_{0, echo_.port()};
};

TEST_F(TcpProxyTest, ForwardsBothWaysOnEveryConnection) {
  Client a(proxy_.port());
  Client b(proxy_.port());
  ASSERT_TRUE(a.connected() && b.connected());
  a.send("hello");
  b.send("world");
  EXPECT_EQ(a.receive(5, kPatience), "hello");
  EXPECT_EQ(b.receive(5, kPatience), "world");
  EXPECT_EQ(proxy_.connections(), 2);
}

TEST_F(TcpProxyTest, DelaysEachByteBothWays) {
  proxy_.set_delay(milliseconds(200));
  Client client(proxy_.port());
  const auto sent = std::chrono::steady_clock::now();
  client.send("x");
  EXPECT_EQ(client.receive(1, kPatience), "x");
  EXPECT_GE(std::chrono::steady_clock::now() - sent, milliseconds(400));  // there and back
}

TEST_F(TcpProxyTest, ABlackHoleHoldsEverythingUntilItEnds) {
  auto before = echoing_client();
  proxy_.set_black_hole(true);
  before->send("b");
  Client during(proxy_.port());  // the kernel completes the handshake; the proxy does nothing
  during.send("c");
  EXPECT_EQ(before->receive(1, kWhile), "");
  EXPECT_EQ(during.receive(1, kWhile), "");
  proxy_.set_black_hole(false);
  EXPECT_EQ(before->receive(1, kPatience), "b");
  EXPECT_EQ(during.receive(1, kPatience), "c");
}

TEST_F(TcpProxyTest, ADropResetsOpenConnectionsAndLetsNewOnesThrough) {
  auto old = echoing_client();
  proxy_.drop_connections();
  EXPECT_EQ(old->receive(1, kPatience), std::nullopt);  // reset
  auto fresh = echoing_client();
}

TEST(TcpProxyDownTargetTest, AConnectionToADownTargetIsReset) {
  int down_port = 0;
  {
    EchoServer gone;
    down_port = gone.port();
  }
  TcpProxy proxy(0, down_port);
  Client client(proxy.port());
  client.send("a");
  EXPECT_EQ(client.receive(1, kPatience), std::nullopt);
}

}  // namespace
}  // namespace brook::testing
