// Foreign-key join of two tables (DESIGN.md pattern 5) as a Streams application over the
// embedded log, next to the hand-written app that enriches the same order updates from a map of
// the customers, measured in the same run: what the join's two trips through its internal topics
// cost.
//
//   Input:     BROOK_FK_CUSTOMERS customers (default 10 k), keys "cust-0000000".. with 100-byte
//              values, in topic "customers"; then BROOK_FK_RECORDS order updates (default 1 M)
//              in topic "orders", keys drawn uniformly at random from BROOK_FK_ORDERS orders
//              (default 100 k; seed 42, state_workload.h), values "<customer key>:<i>" with the
//              customer drawn at random (seed 7). One partition each. Written once, untimed.
//   Brook:     table<string, string>("orders").join(table<string, string>("customers"),
//              the value's customer key, order + the customer's first 16 bytes,
//              {.name = "orders-customers"}).to_stream().to("out"); RocksDB stores, record
//              cache on (10 MiB), 1 stream thread, at_least_once, commit.interval.ms=100. Timed
//              from RUNNING until everything is processed and committed: the customers, then
//              the orders' subscriptions, responses and results.
//   Baseline:  the hand-written app (hand_written_app.h) over the order updates, looking each
//              one's customer up in a std::unordered_map<std::string, std::string> filled from
//              the customers before the clock starts, and sending the enriched order: the same
//              results when both tables fit one process and nothing is partitioned.
// Each run checks, untimed, each order's last result in "out": its last value enriched with its
// customer. Wall-clock (UseManualTime), one iteration, 3 repetitions (median).
#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/embedded/embedded_log.h"
#include "bench_log.h"
#include "brook/kstream.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "compare.h"
#include "hand_written_app.h"
#include "state_workload.h"
#include "streams_timing.h"

namespace {

using namespace std::chrono_literals;
using brook::bench::next_run;
using brook::bench::StateWorkload;

const std::int64_t kCustomers = brook::bench::env_or("BROOK_FK_CUSTOMERS", 10'000);
const std::int64_t kRecords = brook::bench::env_or("BROOK_FK_RECORDS", 1'000'000);
const std::int64_t kOrders = brook::bench::env_or("BROOK_FK_ORDERS", 100'000);
constexpr auto kCommitInterval = 100ms;

// The order updates: keys and their sequence.
const StateWorkload& workload() {
  static const StateWorkload w = brook::bench::make_workload(kRecords, kOrders);
  return w;
}
std::string customer_key(std::int64_t c) {
  std::string key = std::to_string(c);
  return "cust-" + std::string(7 - std::min<std::size_t>(7, key.size()), '0') + key;
}
std::string customer_value(std::int64_t c) { return brook::bench::padded_value("customer", c); }
// The value of order update i: "<customer key>:<i>".
const std::vector<std::string>& order_values() {
  static const std::vector<std::string> values = [] {
    std::mt19937_64 random(7);
    std::vector<std::string> out(kRecords);
    for (std::int64_t i = 0; i < kRecords; ++i) {
      out[i] =
          customer_key(static_cast<std::int64_t>(random() % kCustomers)) + ":" + std::to_string(i);
    }
    return out;
  }();
  return values;
}
std::string customer_key_of(const std::string& order) { return order.substr(0, order.find(':')); }
std::string enrich(const std::string& order, const std::string& customer) {
  return order + "|" + customer.substr(0, 16);
}

// The data dir with both topics written (on first use).
const brook::bench::BenchData& data() {
  static const brook::bench::BenchData data("fk-join-bench", [](brook::internal::EmbeddedLog& log) {
    (void)log.admin().create_topic({"customers", 1});
    (void)log.admin().create_topic({"orders", 1});
    auto producer = std::move(*log.make_producer({}));
    for (std::int64_t c = 0; c < kCustomers; ++c) {
      (void)producer->send({.topic = "customers",
                            .timestamp = brook::Timestamp(c),
                            .key = customer_key(c),
                            .value = customer_value(c)});
    }
    const auto& w = workload();
    for (std::int64_t i = 0; i < kRecords; ++i) {
      (void)producer->send({.topic = "orders",
                            .timestamp = brook::Timestamp(kCustomers + i),
                            .key = w.keys[w.sequence[i]],
                            .value = order_values()[i]});
    }
    (void)producer->flush();
  });
  return data;
}

// Why the last result per order in "out" is not its last value enriched with its customer;
// empty if it is.
std::string check_out() {
  std::unordered_map<std::string, std::string> last;
  auto log = data().open();
  auto consumer = std::move(*log->make_consumer({}));
  (void)consumer->assign({{"out", brook::Partition(0)}});
  while (true) {
    auto records = consumer->poll(0ms);
    if (!records || records->empty()) break;
    for (const auto& r : *records) last[r.key.value_or("")] = r.value.value_or("<tombstone>");
  }
  std::unordered_map<std::string, std::string> expected;
  const auto& w = workload();
  for (std::int64_t i = 0; i < kRecords; ++i) {
    const auto& order = order_values()[i];
    const auto customer = customer_key_of(order);
    expected[w.keys[w.sequence[i]]] = enrich(order, customer_value(std::stoll(customer.substr(5))));
  }
  if (last.size() != expected.size()) {
    return "results for " + std::to_string(last.size()) + " orders, expected " +
           std::to_string(expected.size());
  }
  return last == expected ? "" : "an order's last result is not its enriched last value";
}

void BM_BrookForeignKeyJoin(benchmark::State& state) {
  for (auto _ : state) {
    data().recreate("out");
    brook::StreamsBuilder builder;
    auto orders = builder.table<std::string, std::string>("orders", {}, {.name = "orders"});
    auto customers =
        builder.table<std::string, std::string>("customers", {}, {.name = "customers"});
    orders.join(customers, customer_key_of, enrich, {.name = "orders-customers"})
        .to_stream()
        .to("out");
    brook::Streams app(*builder.build(),
                       {{"application.id", "fk-join-" + std::to_string(next_run())},
                        {"data.dir", data().dir().string()},
                        {"num.stream.threads", "1"},
                        {"commit.interval.ms", std::to_string(kCommitInterval.count())}});
    auto seconds = brook::bench::run_until_idle(app);
    if (!seconds) return state.SkipWithError(seconds.error().to_string().c_str());
    state.SetIterationTime(*seconds);
    (void)app.close();
    if (auto wrong = check_out(); !wrong.empty()) return state.SkipWithError(wrong.c_str());
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

void BM_BaselineForeignKeyJoin(benchmark::State& state) {
  for (auto _ : state) {
    std::unordered_map<std::string, std::string> customers;
    for (std::int64_t c = 0; c < kCustomers; ++c) customers[customer_key(c)] = customer_value(c);
    data().recreate("out");
    auto seconds = brook::bench::run_hand_written_app(
        data().dir(), "baseline-" + std::to_string(next_run()), "orders", "out", kRecords,
        kCommitInterval, [&](const brook::ConsumerRecord& r) -> std::optional<std::string> {
          auto customer = customers.find(customer_key_of(*r.value));
          if (customer == customers.end()) return std::nullopt;
          return enrich(*r.value, customer->second);
        });
    if (!seconds) return state.SkipWithError(seconds.error().to_string().c_str());
    state.SetIterationTime(*seconds);
    if (auto wrong = check_out(); !wrong.empty()) return state.SkipWithError(wrong.c_str());
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}

BENCHMARK(BM_BrookForeignKeyJoin)->Apply(brook::bench::one_timed_iteration);
BENCHMARK(BM_BaselineForeignKeyJoin)->Apply(brook::bench::one_timed_iteration);

}  // namespace

int main(int argc, char** argv) {
  return brook::bench::run_and_compare(argc, argv, {"--benchmark_repetitions=3"});
}
