// What the HTTP tests share: a real HTTP client on loopback (cpp-httplib's), free ports,
// waiting for an answer, the counting application they query, and running a command.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "brook/streams_builder.h"

namespace brook::testing {

struct HttpAnswer {
  int status = 0;  // 0: no answer (connection refused, timed out)
  std::string body;
  httplib::Headers headers;
  nlohmann::json json() const { return nlohmann::json::parse(body, nullptr, false); }
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

// GET http://127.0.0.1:<port><target>, with `headers`.
inline HttpAnswer http_get(int port, const std::string& target, httplib::Headers headers = {}) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(std::chrono::seconds(5));
  client.set_read_timeout(std::chrono::seconds(10));
  auto response = client.Get(target, headers);
  if (!response) return {};
  return {response->status, response->body, response->headers};
}

// A port no one listens on now (the OS's pick), for an application.server known before start.
inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  ::close(fd);
  return ntohs(address.sin_port);
}

// Calls `get` until `done` holds for what it returns or `limit` passes; returns the last result.
template <class Get, class Done>
auto wait_for(const Get& get, const Done& done,
              std::chrono::seconds limit = std::chrono::seconds(60)) -> decltype(get()) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  auto result = get();
  while (!done(result) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the state has no change feed
    result = get();
  }
  return result;
}

// Asks /v1/instances at `port` until it lists `count` instances, all RUNNING, holding store
// `store` on partitions 0 to 3 once each; returns the last answer.
inline HttpAnswer wait_for_instances_holding(int port, const std::string& store,
                                             std::size_t count) {
  return wait_for(
      [&] { return http_get(port, "/v1/instances"); },
      [&](const HttpAnswer& a) {
        if (a.status != 200) return false;
        const auto instances = a.json()["instances"];
        std::multiset<int> partitions;
        for (const auto& i : instances) {
          if (i["state"] != "RUNNING") return false;
          if (i["stores"].contains(store)) {
            for (int p : i["stores"][store]) partitions.insert(p);
          }
        }
        return instances.size() == count && partitions == std::multiset<int>{0, 1, 2, 3};
      });
}

// `input` grouped by key and counted into store "counts", the counts sent to `output`.
inline Topology counting_topology(const std::string& input = "words",
                                  const std::string& output = "counts-out") {
  StreamsBuilder builder;
  builder.stream<std::string, std::string>(input)
      .group_by_key()
      .count({.name = "counts"})
      .to_stream()
      .to(output);
  return *builder.build();
}

struct CommandOutput {
  int status = -1;  // as pclose() gives it; -1: the command could not be started
  std::string out;  // what it wrote to stdout
};

// Runs `command` with /bin/sh and reads its stdout to the end.
inline CommandOutput run_command(const std::string& command) {
  CommandOutput result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0;) {
    result.out.append(buffer, n);
  }
  result.status = ::pclose(pipe);
  return result;
}

}  // namespace brook::testing
