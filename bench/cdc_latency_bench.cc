// End-to-end latency of change data capture: from the COMMIT of an UPDATE in PostgreSQL to the
// first enriched click in the output topic that shows it, through examples/profile_enrichment
// (the PostgreSQL source inside the application, on the embedded log), at 1 000 and 10 000
// changes/s. Next to it, as the baseline, the latency of the capture alone: from the COMMIT to
// the change event in the log (pg.public.profiles). Percentiles p50 / p99 / max in ms.
//
// The load: U users (BROOK_CDC_USERS, default 100) with a row each; a writer commits every
// millisecond a transaction of rate/1000 UPDATEs, each setting one user's name to the change's
// number; a click producer sends clicks round-robin over the users at BROOK_CDC_CLICKS/s
// (default 20 000), flushed every millisecond; a reader reads both topics. A change counts as
// arrived at the first enriched click of its user showing it (or a later change of it), so the
// clicks' spacing per user (U / clicks per second) bounds the resolution. Each rate runs
// BROOK_CDC_SECONDS (default 10; the first second is not counted). The application runs with
// its defaults, at-least-once (its output readable as each processing loop dispatches it) and
// exactly-once (readable when its transaction commits, every 100 ms by default).
//
// Needs a PostgreSQL server with wal_level=logical: BROOK_POSTGRES_DSN, as printed by
// scripts/postgres.sh start. Files go to $BROOK_BENCH_DIR, else the system temporary directory.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "backend/embedded/embedded_log.h"
#include "bench_env.h"
#include "brook/streams.h"
#include "postgres_sql.h"
#include "profile_enrichment.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using profile_enrichment::Click;
using profile_enrichment::UserKey;

[[noreturn]] void fail(const std::string& what) { brook::bench::fail("cdc_latency_bench", what); }

using brook::bench::env_or;

// When each change committed and when each side first showed it; Clock::time_point{} = not yet.
struct Timeline {
  explicit Timeline(std::int64_t changes)
      : committed(changes), captured(changes), enriched(changes) {}
  std::vector<Clock::time_point> committed, captured, enriched;
};

std::string percentiles(std::vector<double> ms) {
  if (ms.empty()) return "no samples";
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) {
    return ms[std::min(ms.size() - 1, static_cast<std::size_t>(q * ms.size()))];
  };
  return fmt::format("{:8.1f}{:8.1f}{:8.1f}", at(0.5), at(0.99), ms.back());
}

// Runs `rate` changes/s for `seconds` against the running application; returns the timeline.
Timeline run_rate(brook::bench::Sql& sql, brook::internal::LogBackend& log, std::int64_t rate,
                  std::int64_t seconds, std::int64_t users, std::int64_t clicks_per_second,
                  std::int64_t first_change) {
  const std::int64_t per_ms = std::max<std::int64_t>(1, rate / 1000);
  const std::int64_t changes = per_ms * 1000 * seconds;
  Timeline timeline(changes);
  std::atomic<bool> done = false;

  // The reader: the change events and the enriched clicks, as they become readable.
  auto reader = std::jthread([&] {
    auto consumer = log.make_consumer({});
    if (!consumer) fail(consumer.error().to_string());
    if (auto s = (*consumer)->assign({{profile_enrichment::kProfilesTopic, brook::Partition(0)},
                                      {profile_enrichment::kOutputTopic, brook::Partition(0)}});
        !s.ok()) {
      fail(s.to_string());
    }
    std::vector<std::int64_t> shown(users, -1);  // per user, the newest change an output showed
    auto change_of = [&](const nlohmann::json& row) -> std::int64_t {
      const auto name = row.value("name", std::string());
      return name.starts_with("c") ? std::stoll(name.substr(1)) - first_change : -1;
    };
    while (!done) {
      auto records = (*consumer)->poll(std::chrono::milliseconds(1));
      if (!records) fail(records.error().to_string());
      const auto now = Clock::now();
      for (const auto& record : *records) {
        if (!record.value) continue;
        const auto value = nlohmann::json::parse(*record.value);
        if (record.topic == profile_enrichment::kProfilesTopic) {
          const auto n = value["after"].is_object() ? change_of(value["after"]) : -1;
          if (n >= 0 && n < changes) timeline.captured[n] = now;
          continue;
        }
        const auto n = change_of(value);
        if (n < 0 || n >= changes) continue;
        const std::int64_t user = n % users;
        // Every change of this user up to n shows now for the first time.
        for (std::int64_t m = shown[user] < 0 ? user : shown[user] + users; m <= n; m += users) {
          timeline.enriched[m] = now;
        }
        shown[user] = std::max(shown[user], n);
      }
    }
  });

  // The clicks: round-robin over the users, flushed every millisecond.
  auto clicker = std::jthread([&] {
    auto producer = log.make_producer({});
    if (!producer) fail(producer.error().to_string());
    const brook::JsonSerde<UserKey> keys;
    const brook::JsonSerde<Click> values;
    const std::string page = *values.serialize({"/page"});
    const std::int64_t per_tick = std::max<std::int64_t>(1, clicks_per_second / 1000);
    std::int64_t user = 0;
    auto tick = Clock::now();
    while (!done) {
      const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
      for (std::int64_t i = 0; i < per_tick; ++i, user = (user + 1) % users) {
        if (auto s = (*producer)->send({.topic = profile_enrichment::kClicksTopic,
                                        .timestamp = brook::Timestamp(now_ms),
                                        .key = *keys.serialize({user}),
                                        .value = page});
            !s.ok()) {
          fail(s.to_string());
        }
      }
      if (auto s = (*producer)->flush(); !s.ok()) fail(s.to_string());
      std::this_thread::sleep_until(tick += std::chrono::milliseconds(1));
    }
  });

  // The writer: a transaction of per_ms UPDATEs every millisecond; change n sets the name of
  // user n % users to "c<first_change + n>".
  auto tick = Clock::now();
  for (std::int64_t n = 0; n < changes;) {
    std::string statement = "BEGIN;";
    const std::int64_t batch_start = n;
    for (std::int64_t i = 0; i < per_ms; ++i, ++n) {
      statement += fmt::format("UPDATE profiles SET name = 'c{}' WHERE user_id = {};",
                               first_change + n, n % users);
    }
    sql.run(statement + "COMMIT");
    const auto now = Clock::now();
    for (std::int64_t m = batch_start; m < n; ++m) timeline.committed[m] = now;
    std::this_thread::sleep_until(tick += std::chrono::milliseconds(1));
  }
  // Until every change has shown, or 10 s more.
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline && std::any_of(timeline.enriched.begin(), timeline.enriched.end(),
                                                [](auto t) { return t == Clock::time_point{}; })) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  done = true;
  return timeline;
}

// Prints the figures of `timeline` at `rate`; false if a change never showed in a click.
bool report(const Timeline& timeline, const std::string& label, std::int64_t seconds) {
  const auto counted_from = timeline.committed.size() / seconds;  // the first second: warm-up
  std::vector<double> captured, enriched;
  std::size_t missing = 0;
  for (std::size_t n = counted_from; n < timeline.committed.size(); ++n) {
    auto ms = [&](Clock::time_point seen) {
      return std::max(
          0.0, std::chrono::duration<double, std::milli>(seen - timeline.committed[n]).count());
    };
    if (timeline.captured[n] != Clock::time_point{}) captured.push_back(ms(timeline.captured[n]));
    if (timeline.enriched[n] == Clock::time_point{}) {
      ++missing;
    } else {
      enriched.push_back(ms(timeline.enriched[n]));
    }
  }
  const double achieved =
      timeline.committed.size() /
      std::chrono::duration<double>(timeline.committed.back() - timeline.committed.front()).count();
  fmt::print("{:<28}{:<36}{}\n", label, "COMMIT -> change event (baseline)", percentiles(captured));
  fmt::print("{:<28}{:<36}{}\n", fmt::format("  ({:.0f} committed/s)", achieved),
             "COMMIT -> enriched click", percentiles(enriched));
  if (missing > 0) fmt::print("{:<28}{} changes never showed in a click\n", "", missing);
  return missing == 0;
}

// Both rates on a new database and data dir, the application under `guarantee`.
bool run_guarantee(const std::string& server, const std::string& guarantee, std::int64_t users,
                   std::int64_t clicks, std::int64_t seconds) {
  const char* bench_dir = std::getenv("BROOK_BENCH_DIR");
  const fs::path dir = fs::path(bench_dir ? bench_dir : fs::temp_directory_path().string()) /
                       fmt::format("brook-cdc-latency-{}", ::getpid());
  const std::string database = fmt::format("brook_latency_{}", ::getpid());
  const std::string dsn = brook::bench::create_database(server, database);
  brook::bench::Sql sql(dsn);
  sql.run(profile_enrichment::kCreateTable);
  sql.run(fmt::format(
      "INSERT INTO profiles SELECT g, 'user ' || g, 'silver' FROM generate_series(0, {}) g",
      users - 1));
  sql.run(
      fmt::format("CREATE PUBLICATION {} FOR TABLE profiles", profile_enrichment::kPublication));

  fs::remove_all(dir);
  {
    // The topics first: the application refuses missing ones. One partition each.
    auto log = brook::internal::open_embedded_log({.data_dir = dir});
    if (!log) fail(log.error().to_string());
    for (const char* topic : {profile_enrichment::kProfilesTopic, profile_enrichment::kClicksTopic,
                              profile_enrichment::kOutputTopic}) {
      if (auto s = (*log)->admin().create_topic({.name = topic, .partitions = 1}); !s.ok()) {
        fail(s.to_string());
      }
    }
  }
  brook::Streams app(*profile_enrichment::build_topology(),
                     {{"application.id", "profile-enrichment-latency"},
                      {"data.dir", dir.string()},
                      {"processing.guarantee", guarantee}});
  if (auto s = app.start(); !s.ok()) fail(s.to_string());
  brook::Status source_status;
  std::jthread source([&](std::stop_token stop) {
    source_status = brook::run_postgres_source({.dsn = dsn,
                                                .publication = profile_enrichment::kPublication,
                                                .slot = database,
                                                .topic_prefix = profile_enrichment::kTopicPrefix},
                                               app, stop);
  });
  auto log = app.log_backend();
  bool all_shown = true;
  std::int64_t first_change = 0;
  for (const std::int64_t rate : {1'000, 10'000}) {
    const Timeline timeline = run_rate(sql, *log, rate, seconds, users, clicks, first_change);
    first_change += static_cast<std::int64_t>(timeline.committed.size());
    all_shown &= report(timeline, fmt::format("{}, {}/s", guarantee, rate), seconds);
  }

  source.request_stop();
  source.join();
  if (!source_status.ok()) fail(source_status.to_string());
  log.reset();
  if (auto s = app.close(); !s.ok()) fail(s.to_string());
  fs::remove_all(dir);
  brook::bench::drop_database(server, database);
  return all_shown;
}

}  // namespace

int main() {
  const std::string server = brook::bench::postgres_server("cdc_latency_bench");
  const std::int64_t users = env_or("BROOK_CDC_USERS", 100);
  const std::int64_t clicks = env_or("BROOK_CDC_CLICKS", 20'000);
  const std::int64_t seconds = std::max<std::int64_t>(2, env_or("BROOK_CDC_SECONDS", 10));
  fmt::print(
      "COMMIT -> enriched click, examples/profile_enrichment on the embedded log: {} users, {} "
      "clicks/s, {} s per rate\n",
      users, clicks, seconds);
  fmt::print("{:<28}{:<36}{:>8}{:>8}{:>8}\n", "guarantee, changes/s", "latency (ms)", "p50", "p99",
             "max");
  bool all_shown = true;
  for (const char* guarantee : {"at_least_once", "exactly_once_v2"}) {
    all_shown &= run_guarantee(server, guarantee, users, clicks, seconds);
  }
  return all_shown ? 0 : 1;  // every change must reach the clicks
}
