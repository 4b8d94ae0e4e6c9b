// Interactive queries over HTTP on a real Kafka broker: two instances of a count application
// in this process, each serving HTTP on loopback, N concurrent clients (threads with a
// kept-alive connection each) asking for keys in a loop for a fixed time. Prints p50 and p99
// latency and requests/s of:
//   local:  GET /v1/stores/counts/keys/{key} at the key's owner, next to the baseline of a
//           direct Streams::store().get() on the same keys;
//   routed: the same GET at the other instance (it forwards once), next to the baseline of
//           the local GET at the owner;
//   stale:  the same GET with ?stale=true at the other instance, which answers from its
//           standby replica (num.standby.replicas=1) and adds the copy's lag (a changelog end
//           offset asked of the broker), next to the same baseline.
// and the ratios.
//   Broker:   $BROOK_KAFKA_BOOTSTRAP (scripts/kafka.sh start); unique topics, deleted after.
//   Settings: BROOK_SERVE_BENCH_SECONDS per case (default 3), BROOK_SERVE_BENCH_CLIENTS
//             (default 4), BROOK_SERVE_BENCH_KEYS (default 1000).
#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

#include "backend/kafka/kafka_backend.h"
#include "bench_env.h"
#include "brook/serve.h"
#include "brook/streams_builder.h"
#include "rdkafka_baseline.h"

namespace {

using Clock = std::chrono::steady_clock;

using brook::bench::env_or;

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{.sin_family = AF_INET, .sin_port = 0, .sin_addr = {htonl(INADDR_LOOPBACK)}};
  socklen_t length = sizeof(address);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

// Asks for one key: false for a failed request. Each client thread makes its own.
using Ask = std::function<bool(const std::string&)>;

struct Figures {
  double p50_us = 0, p99_us = 0, per_second = 0;
  std::int64_t failures = 0;
};

// Runs `ask(client index, key)` from `clients` threads over `keys` for `duration`; ask returns
// false for a failed request.
Figures measure(int clients, std::chrono::milliseconds duration,
                const std::vector<std::string>& keys, const std::function<Ask()>& make_asker) {
  std::vector<std::vector<std::int64_t>> latencies(clients);
  std::atomic<std::int64_t> failures = 0;
  std::vector<std::thread> threads;
  const auto end = Clock::now() + duration;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      auto ask = make_asker();
      for (std::size_t i = c; Clock::now() < end; i += clients) {
        const auto start = Clock::now();
        if (!ask(keys[i % keys.size()])) ++failures;
        latencies[c].push_back(
            std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<std::int64_t> all;
  for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  if (all.empty()) return {};
  auto at = [&](double q) {
    return all[std::min(all.size() - 1, static_cast<std::size_t>(q * all.size()))] / 1000.0;
  };
  return {at(0.50), at(0.99), all.size() / (duration.count() / 1000.0), failures.load()};
}

// An HTTP client with a kept-alive connection to the instance at `port`, asking for a key
// with `query` after its path.
Ask http_asker(int port, std::string query = "") {
  auto client = std::make_shared<httplib::Client>("127.0.0.1", port);
  client->set_keep_alive(true);
  client->set_tcp_nodelay(true);
  return [client, query](const std::string& key) {
    auto response = client->Get("/v1/stores/counts/keys/" + key + query);
    return response && response->status == 200;
  };
}

void print(const char* name, const Figures& f) {
  std::printf("%-44s %10.1f %10.1f %12.0f %8lld\n", name, f.p50_us, f.p99_us, f.per_second,
              static_cast<long long>(f.failures));
}

void compare(const char* name, const Figures& brook, const Figures& baseline) {
  std::printf("%-30s %12.0f %14.0f %10.2f   p99 %+.1f us\n", name, brook.per_second,
              baseline.per_second,
              baseline.per_second > 0 ? brook.per_second / baseline.per_second : 0,
              brook.p99_us - baseline.p99_us);
}

}  // namespace

int main() {
  using namespace brook;
  const auto& bootstrap = bench::kafka_bootstrap();
  const auto seconds = std::chrono::milliseconds(
      static_cast<std::int64_t>(1000 * std::atof(std::getenv("BROOK_SERVE_BENCH_SECONDS")
                                                     ? std::getenv("BROOK_SERVE_BENCH_SECONDS")
                                                     : "3")));
  const int clients = static_cast<int>(env_or("BROOK_SERVE_BENCH_CLIENTS", 4));
  const int key_count = static_cast<int>(env_or("BROOK_SERVE_BENCH_KEYS", 1000));

  auto kafka = internal::open_kafka_backend({.bootstrap_servers = bootstrap});
  if (!kafka) return report(kafka.error());
  const auto input = bench::unique_name("serve-bench-in"),
             output = bench::unique_name("serve-bench-out");
  const auto app_id = bench::unique_name("serve-bench");
  for (const auto& topic : {input, output}) {
    if (auto s = (*kafka)->admin().create_topic(
            {.name = topic, .partitions = 4, .configs = {{"retention.ms", "-1"}}});
        !s.ok())
      return report(s);
  }
  {
    auto producer = (*kafka)->make_producer({.client_id = "serve-bench"});
    if (!producer) return report(producer.error());
    for (int i = 0; i < key_count; ++i) {
      (void)(*producer)->send({.topic = input, .key = "key-" + std::to_string(i), .value = "v"});
    }
    if (auto s = (*producer)->flush(); !s.ok()) return report(s);
  }
  auto state = std::filesystem::temp_directory_path() / app_id;
  struct Instance {
    std::string server;
    std::unique_ptr<Streams> app;
    std::unique_ptr<Server> http;
  };
  std::vector<Instance> instances(2);
  for (int n = 0; n < 2; ++n) {
    StreamsBuilder builder;
    builder.stream<std::string, std::string>(input)
        .group_by_key()
        .count({.name = "counts"})
        .to_stream()
        .to(output);
    auto& instance = instances[n];
    instance.server = "127.0.0.1:" + std::to_string(free_port());
    instance.app = std::make_unique<Streams>(
        *builder.build(),
        std::map<std::string, std::string>{{"bootstrap.servers", bootstrap},
                                           {"application.id", app_id},
                                           {"state.dir", (state / std::to_string(n)).string()},
                                           {"commit.interval.ms", "100"},
                                           {"num.standby.replicas", "1"},
                                           {"application.server", instance.server}});
    if (auto s = instance.app->start(); !s.ok()) return report(s);
    auto http = serve(*instance.app);
    if (!http) return report(http.error());
    instance.http = std::move(*http);
  }
  // Both running, caught up, each knowing the other's partitions and keeping standbys of them,
  // caught up too.
  for (auto deadline = Clock::now() + std::chrono::seconds(120);;) {
    bool ready = true;
    for (auto& instance : instances) {
      auto all = instance.app->metadata_for_all_clients();
      std::size_t partitions = 0;
      for (const auto& m : all)
        partitions +=
            m.store_partitions.count("counts") ? m.store_partitions.at("counts").size() : 0;
      auto lag = instance.app->lag();
      auto store_lags = instance.app->local_store_lags();
      // Each partition here, active or standby (local_store_lags() lists the active one
      // where both are), with nothing left to apply.
      const bool standbys_caught_up =
          store_lags && store_lags->contains("counts") && store_lags->at("counts").size() == 4 &&
          std::all_of(store_lags->at("counts").begin(), store_lags->at("counts").end(),
                      [](const auto& entry) { return entry.second.lag == 0; });
      ready = ready && instance.app->state() == Streams::State::kRunning && all.size() == 2 &&
              partitions == 4 && lag && *lag == 0 && standbys_caught_up;
    }
    if (ready) break;
    if (Clock::now() > deadline) {
      std::fprintf(stderr, "the two instances did not settle within 120 s\n");
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::vector<std::string> a_keys, b_keys;
  for (int i = 0; i < key_count; ++i) {
    const auto key = "key-" + std::to_string(i);
    auto where = instances[0].app->query_metadata_for_key("counts", key);
    (where && where->local ? a_keys : b_keys).push_back(key);
  }
  const int a_port = instances[0].http->port(), b_port = instances[1].http->port();
  auto store = *instances[0].app->store<std::string, std::int64_t>("counts");

  std::printf(
      "serve_bench: %d concurrent clients, %lld ms per case, %d keys (%zu at A, %zu at B), "
      "%u cores\n\n",
      clients, static_cast<long long>(seconds.count()), key_count, a_keys.size(), b_keys.size(),
      std::thread::hardware_concurrency());
  std::printf("%-44s %10s %10s %12s %8s\n", "case", "p50 us", "p99 us", "req/s", "failed");
  const auto direct = measure(clients, seconds, a_keys, [&] {
    return Ask([&](const std::string& key) {
      auto v = store.get(key);
      return v && v->has_value();
    });
  });
  print("direct store().get() at A (baseline)", direct);
  const auto local = measure(clients, seconds, a_keys, [&] { return http_asker(a_port); });
  print("HTTP get at the owner A (local)", local);
  const auto owner = measure(clients, seconds, b_keys, [&] { return http_asker(b_port); });
  print("HTTP get at the owner B (local, baseline)", owner);
  const auto routed = measure(clients, seconds, b_keys, [&] { return http_asker(a_port); });
  print("HTTP get at A for B's keys (routed)", routed);
  const auto stale =
      measure(clients, seconds, b_keys, [&] { return http_asker(a_port, "?stale=true"); });
  print("HTTP stale get at A for B's keys (standby)", stale);

  std::printf("\n%-30s %12s %14s %10s\n", "case", "brook req/s", "baseline req/s", "ratio");
  compare("local HTTP vs direct get", local, direct);
  compare("routed vs local HTTP get", routed, owner);
  compare("stale (standby) vs local get", stale, owner);

  for (auto& instance : instances) {
    instance.http->stop();
    (void)instance.app->close();
  }
  for (const auto& topic : {input, output}) (void)(*kafka)->admin().delete_topic(topic);
  std::filesystem::remove_all(state);
  return direct.failures + local.failures + owner.failures + routed.failures + stale.failures == 0
             ? 0
             : 1;
}
