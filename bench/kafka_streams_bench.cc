// Brook next to Apache Kafka Streams: the same small applications, each run as its own process
// on the same Kafka broker over the same input (scripts/bench_kafka_streams.sh builds and runs
// everything; docs/performance.md shows the results).
//
//   kafka_streams_bench --ks-classpath CP [--records N] [--keys N] [--runs N] [--cases A,B]
//                       [--java PATH]
//
//   Broker:  $BROOK_KAFKA_BOOTSTRAP. Topics get unique names; each run's are deleted after it.
//   Input:   --records records (default 1 M) in a 4-partition topic (murmur2 of the key),
//            written once, untimed, read by every run: keys drawn uniformly at random from --keys
//            keys (default 100 k; state_workload.h: "key-0000000".., std::mt19937_64 seed 42),
//            100-byte values "INFO request <i> xxx..", 1 in 10 "DEBUG request <i> xxx..";
//            record i's timestamp is the time of writing plus i / 10 ms (10 records per
//            millisecond of event time, in order within each partition).
//   Apps:    bench/kafka_streams_brook_app.cc (Brook) and bench/kafka_streams/.../
//            KafkaStreamsApp.java (Kafka Streams, on the JVM from `--java`, classpath
//            --ks-classpath): stateless (filter out DEBUG, value to upper case, to an output
//            topic), count (groupByKey().count() into a RocksDB store "counts" with its
//            changelog, toStream().to(output)) and hopping (the same count per hopping window:
//            60 s windows every 10 s, 10 s grace; windowed keys [key][8-byte window start]).
//            One stream thread, 10 MiB record cache
//            (statestore.cache.max.bytes), commit.interval.ms 30000 at-least-once and 100
//            exactly-once (Kafka Streams' defaults, set explicitly on both sides).
//   A run:   a fresh application id, state directory and 4-partition output topic; the app is
//            started as a child process, prints "running <ns>" on reaching RUNNING and
//            "processed <ns>" once its thread has processed every input record, then closes
//            itself (the final commit) and exits. Start-up: from the spawn to RUNNING.
//            Processing: from RUNNING to the exit, of which "close" from "processed" on. CPU:
//            user + system of all the process's threads (wait4), minus what it had used at
//            RUNNING (/proc/<pid>/stat). Max RSS: the peak resident set (VmHWM) that the app
//            prints on its last line, "done <records> <KiB>".
//   Checks:  after each run, untimed: the group has committed the end of every input partition
//            (lag 0); the stateless output is exactly the multiset of (key, upper-cased value)
//            of the records kept; the count output's latest value per key is the key's count
//            in the input, for every key; the hopping output's latest value per windowed key is
//            the number of the key's records in that window, for every window of every key.
//            Output and changelog records are counted (committed records only, read_committed).
//
// Each case runs --runs times (default 3) per side, alternating which side goes first; the
// table at the end shows medians: `case | brook | kafka streams | ratio (brook/kafka streams)`,
// with the targets of the comparison. Exits 1 if a run failed or a check did not hold, 2 on a
// bad flag or without a broker.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "child_process.h"
#include "hand_codec.h"
#include "rdkafka_baseline.h"
#include "state_workload.h"
#include "topic_contents.h"

namespace {

using brook::bench::Clock;

constexpr int kPartitions = 4;
constexpr std::size_t kValueBytes = 100;
constexpr std::int64_t kCacheMaxBytes = 10 * 1024 * 1024;
constexpr std::int64_t kRecordsPerMs = 10;  // of event time
// The hopping case's windows, in ms (as in the apps).
constexpr std::int64_t kWindowSize = 60'000, kWindowAdvance = 10'000;
constexpr auto kRunTimeout = std::chrono::minutes(10);

struct Options {
  std::int64_t records = 1'000'000;
  std::int64_t keys = 100'000;
  int runs = 3;
  std::vector<std::string> cases;  // empty: all
  std::string ks_classpath;
  std::string java = "java";
};

struct Case {
  const char* name;
  const char* app;  // stateless | count | hopping
  const char* guarantee;
  int commit_interval_ms;
  double cpu_target;         // brook / kafka streams CPU per record at most this
  double throughput_target;  // brook / kafka streams records/s at least this (0: none)
};

constexpr Case kCases[] = {
    {"Stateless_AtLeastOnce", "stateless", "at_least_once", 30'000, 0.20, 0},
    {"Stateless_ExactlyOnce", "stateless", "exactly_once_v2", 100, 0.20, 0},
    {"Count_AtLeastOnce", "count", "at_least_once", 30'000, 0.25, 1.5},
    {"Count_ExactlyOnce", "count", "exactly_once_v2", 100, 0.25, 1.5},
    {"Hopping_AtLeastOnce", "hopping", "at_least_once", 30'000, 0, 0},
};

enum class Side { kBrook, kKafkaStreams };
const char* name_of(Side side) { return side == Side::kBrook ? "brook" : "kafka-streams"; }

std::string input_value(std::int64_t i) {
  std::string value = (i % 10 == 0 ? "DEBUG request " : "INFO request ") + std::to_string(i) + " ";
  value.resize(kValueBytes, 'x');
  return value;
}

std::string upper(std::string_view s) {
  std::string out(s);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

// "key\tvalue", the form in which the stateless output is compared.
std::string joined(std::string_view key, std::string_view value) {
  std::string s;
  s.reserve(key.size() + 1 + value.size());
  s.append(key).append(1, '\t').append(value);
  return s;
}

// A windowed key as both sides write it: the key, then the window start (8 bytes, big endian).
std::string windowed_key(std::string_view key, std::int64_t start) {
  return std::string(key) + brook::bench::hand_encode_u64(static_cast<std::uint64_t>(start));
}

// "<key>@<window start>" of a windowed key's bytes.
std::string window_name(std::string_view bytes) {
  if (bytes.size() < 8) return "(" + std::to_string(bytes.size()) + " bytes)";
  const std::uint64_t start = brook::bench::hand_decode_u64(bytes.substr(bytes.size() - 8));
  return std::string(bytes.substr(0, bytes.size() - 8)) + "@" + std::to_string(start);
}

struct Input {
  std::string topic;
  brook::bench::StateWorkload workload;
  std::vector<std::string> stateless_output;  // expected, sorted
  // Expected, for the hopping case only: the count of every window of every key.
  std::unordered_map<std::string, std::int64_t> window_counts;
};

// `with_windows`: also count the hopping case's windows.
Input write_input(const Options& options, bool with_windows, brook::bench::BenchTopics& topics) {
  Input in{.topic = topics.create("input", kPartitions),
           .workload = brook::bench::make_workload(options.records, options.keys)};
  const auto& w = in.workload;
  const std::int64_t first_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
  auto timestamp_of = [&](std::int64_t i) { return first_ms + i / kRecordsPerMs; };
  brook::bench::produce_records(
      in.topic, options.records,
      [&](std::int64_t i, std::string& key, std::string& value) {
        key = w.keys[w.sequence[i]];
        value = input_value(i);
        if (!value.starts_with("DEBUG")) {
          in.stateless_output.push_back(joined(key, upper(value)));
        }
        if (with_windows) {
          const std::int64_t t = timestamp_of(i);
          for (std::int64_t start = t - t % kWindowAdvance; start > t - kWindowSize;
               start -= kWindowAdvance) {
            ++in.window_counts[windowed_key(key, start)];
          }
        }
        return RD_KAFKA_PARTITION_UA;
      },
      timestamp_of);
  std::ranges::sort(in.stateless_output);
  return in;
}

// Makes the broker create its internal topics (__consumer_offsets, __transaction_state) now,
// so that no benchmarked run waits for them.
void warm_up_broker() {
  auto consumer = brook::bench::make_client(RD_KAFKA_CONSUMER,
                                            {{"group.id", brook::bench::unique_name("warm-up")}});
  brook::bench::PartitionList list(rd_kafka_topic_partition_list_new(1));
  rd_kafka_topic_partition_list_add(list.get(), "warm-up", 0);
  brook::bench::check(rd_kafka_committed(consumer.get(), list.get(), 60'000),
                      "fetching offsets (creating __consumer_offsets)");
  // log_level 3: without the warnings of the retries while the coordinator loads.
  auto producer = brook::bench::make_client(
      RD_KAFKA_PRODUCER,
      {{"transactional.id", brook::bench::unique_name("warm-up")}, {"log_level", "3"}});
  brook::bench::check(rd_kafka_init_transactions(producer.get(), 60'000),
                      "init_transactions (creating __transaction_state)");
}

struct Measurement {
  double startup_seconds = 0;     // spawn to RUNNING
  double processing_seconds = 0;  // RUNNING to exit
  double close_seconds = 0;       // every record processed to exit (close, final commit)
  double startup_cpu = 0;         // CPU seconds at RUNNING
  double processing_cpu = 0;      // CPU seconds from RUNNING to exit
  double max_rss_mib = 0;
  double output_records = 0;
  double changelog_records = 0;
};

double load_average() {
  double load = 0;
  std::ifstream("/proc/loadavg") >> load;
  return load;
}

std::string tail_of(const std::filesystem::path& file, std::size_t bytes = 4000) {
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > bytes ? "..." + text.substr(text.size() - bytes) : text;
}

// Why the stateless output `actual` (sorted in place) is not `expected`; empty if it is.
std::string compare_stateless(std::vector<std::string>& actual,
                              const std::vector<std::string>& expected) {
  std::ranges::sort(actual);
  if (actual == expected) return "";
  std::vector<std::string> unexpected, missing;
  std::ranges::set_difference(actual, expected, std::back_inserter(unexpected));
  std::ranges::set_difference(expected, actual, std::back_inserter(missing));
  std::string why = "the output holds " + std::to_string(actual.size()) + " records, expected " +
                    std::to_string(expected.size()) + "; " + std::to_string(unexpected.size()) +
                    " unexpected, " + std::to_string(missing.size()) + " missing";
  if (!unexpected.empty()) why += "; first unexpected: " + unexpected.front();
  if (!missing.empty()) why += "; first missing: " + missing.front();
  return why;
}

// Why the latest window counts `latest` are not `expected`; empty if they are.
std::string compare_windows(const std::map<std::string, std::int64_t>& latest,
                            const std::unordered_map<std::string, std::int64_t>& expected) {
  std::size_t wrong = 0;
  std::string first;
  for (const auto& [key, count] : latest) {
    const auto it = expected.find(key);
    if (it != expected.end() && it->second == count) continue;
    if (wrong++ == 0) {
      first = "window " + window_name(key) + ": " + std::to_string(count) + ", expected " +
              (it == expected.end() ? "none" : std::to_string(it->second));
    }
  }
  if (wrong == 0 && latest.size() == expected.size()) return "";
  return std::to_string(latest.size()) + " windows, expected " + std::to_string(expected.size()) +
         "; " + std::to_string(wrong) + " wrong" + (first.empty() ? "" : "; first: " + first);
}

// Why the latest counts `latest` are not the input's counts; empty if they are.
std::string compare_counts(const std::map<std::string, std::int64_t>& latest,
                           const brook::bench::StateWorkload& w) {
  return brook::bench::check_counts(w, static_cast<std::int64_t>(latest.size()),
                                    [&](const std::string& key) {
                                      auto it = latest.find(key);
                                      return it == latest.end() ? std::int64_t{-1} : it->second;
                                    });
}

// What an app printed (kafka_streams_brook_app.cc, KafkaStreamsApp.java) and used.
struct AppRun {
  Clock::time_point spawned;
  Clock::time_point running;    // "running <ns>": it reached RUNNING
  Clock::time_point processed;  // "processed <ns>": it processed every input record
  double cpu_at_running = 0;    // its CPU seconds when it printed "running"
  long long peak_rss_kib = 0;   // "done <records> <KiB>": it closed
  brook::bench::ChildExit exit;
};

// The CLOCK_MONOTONIC time of `line` ("<word> <ns>"), which `who` printed; it must lie
// between `after` and now.
Clock::time_point time_of(const std::string& line, const std::string& who,
                          Clock::time_point after) {
  long long ns = 0;
  const auto space = line.find(' ');
  const char* end = line.data() + line.size();
  const auto [at, ec] = std::from_chars(line.data() + std::min(space + 1, line.size()), end, ns);
  const auto t = Clock::time_point(std::chrono::nanoseconds(ns));
  if (space == std::string::npos || ec != std::errc() || at != end || t < after ||
      t > Clock::now()) {
    throw std::runtime_error(who + " printed '" + line + "': not a CLOCK_MONOTONIC time since " +
                             "its previous line");
  }
  return t;
}

// Runs `argv` as a child process (stderr to `log`) until it exits, expecting the lines
// "running <ns>", "processed <ns>", "done <records> <KiB>" from it, then exit code 0.
AppRun run_app(const std::vector<std::string>& argv, const std::filesystem::path& log,
               const std::string& who, std::int64_t records) {
  AppRun run{.spawned = Clock::now()};
  const auto deadline = run.spawned + kRunTimeout;
  std::string expected = "running";
  {
    brook::bench::ChildProcess child(argv, log);
    while (auto line = child.read_line(deadline)) {
      if (expected == "running" && line->starts_with("running ")) {
        run.cpu_at_running = child.cpu_seconds();
        run.running = time_of(*line, who, run.spawned);
        expected = "processed";
      } else if (expected == "processed" && line->starts_with("processed ")) {
        run.processed = time_of(*line, who, run.running);
        expected = "done";
      } else if (expected == "done" && line->starts_with("done ")) {
        long long processed = 0;
        if (std::sscanf(line->c_str(), "done %lld %lld", &processed, &run.peak_rss_kib) != 2 ||
            processed != records || run.peak_rss_kib <= 0) {
          throw std::runtime_error(who + " printed '" + *line + "', expected 'done " +
                                   std::to_string(records) + " <peak RSS KiB>'");
        }
        expected = "exit";
      }
    }
    run.exit = child.wait(deadline);
  }
  if (run.exit.exit_code != 0 || expected != "exit") {
    std::string how = run.exit.signal ? "was killed by signal " + std::to_string(run.exit.signal)
                                      : "exited with " + std::to_string(run.exit.exit_code);
    if (run.exit.exit_code == 0) how += " before printing '" + expected + "'";
    throw std::runtime_error(who + " " + how + "; its stderr:\n" + tail_of(log));
  }
  return run;
}

// Checks what run `app_id` of `c` left on the broker; fills the record counts of `m`.
void check_run(const Case& c, const Input& in, const std::string& app_id, const std::string& output,
               Measurement& m) {
  brook::bench::wait_committed_end(app_id, in.topic, kPartitions);
  brook::bench::wait_stable(output, kPartitions);
  std::string wrong;
  if (std::string_view(c.app) == "stateless") {
    std::vector<std::string> records;
    m.output_records = static_cast<double>(
        brook::bench::read_topic(output, kPartitions, [&](const rd_kafka_message_t& r) {
          records.push_back(joined(brook::bench::key_of(r), brook::bench::value_of(r)));
        }));
    wrong = compare_stateless(records, in.stateless_output);
  } else {  // count, hopping: the latest count per (windowed) key
    std::map<std::string, std::int64_t> latest;
    bool malformed = false;
    m.output_records = static_cast<double>(
        brook::bench::read_topic(output, kPartitions, [&](const rd_kafka_message_t& r) {
          const auto value = brook::bench::value_of(r);
          malformed |= value.size() != 8;
          std::uint64_t count = 0;
          for (std::size_t i = 0; i < value.size() && i < 8; ++i) {
            count = count << 8 | static_cast<unsigned char>(value[i]);
          }
          latest[std::string(brook::bench::key_of(r))] = static_cast<std::int64_t>(count);
        }));
    if (malformed) {
      wrong = "an output value is not an 8-byte count";
    } else if (std::string_view(c.app) == "count") {
      wrong = compare_counts(latest, in.workload);
    } else {
      wrong = compare_windows(latest, in.window_counts);
    }
    const std::string changelog = app_id + "-counts-changelog";
    brook::bench::wait_stable(changelog, kPartitions);
    m.changelog_records = static_cast<double>(
        brook::bench::read_topic(changelog, kPartitions, [](const rd_kafka_message_t&) {}));
  }
  if (!wrong.empty()) throw std::runtime_error(output + ": " + wrong);
}

// One run of case `c` on `side`: the app as a child process, then the checks.
Measurement run_once(const Options& options, const Input& in, const Case& c, Side side,
                     brook::bench::BenchTopics& topics) {
  const std::string app_id = topics.name(std::string(c.name) + "-" + name_of(side) + "-");
  const std::string output = app_id + "-output";
  brook::bench::create_topic(output, kPartitions);
  brook::bench::BenchDir dir(std::string("ks-bench-") + name_of(side));
  std::vector<std::string> argv;
  if (side == Side::kBrook) {
    argv = {BROOK_KS_BROOK_APP};
  } else {
    argv = {options.java, "-cp", options.ks_classpath, "dev.brook.bench.KafkaStreamsApp"};
  }
  const std::pair<const char*, std::string> flags[] = {
      {"--app", c.app},
      {"--bootstrap", brook::bench::kafka_bootstrap()},
      {"--application-id", app_id},
      {"--input", in.topic},
      {"--output", output},
      {"--state-dir", (dir.path() / "state").string()},
      {"--guarantee", c.guarantee},
      {"--commit-interval-ms", std::to_string(c.commit_interval_ms)},
      {"--cache-max-bytes", std::to_string(kCacheMaxBytes)},
      {"--records", std::to_string(options.records)},
  };
  for (const auto& [flag, value] : flags) {
    argv.push_back(flag);
    argv.push_back(value);
  }

  const AppRun run = run_app(argv, dir.path() / "stderr.log", name_of(side), options.records);
  Measurement m;
  m.startup_seconds = std::chrono::duration<double>(run.running - run.spawned).count();
  m.processing_seconds = std::chrono::duration<double>(run.exit.at - run.running).count();
  m.close_seconds = std::chrono::duration<double>(run.exit.at - run.processed).count();
  m.startup_cpu = run.cpu_at_running;
  m.processing_cpu = run.exit.cpu_seconds - run.cpu_at_running;
  m.max_rss_mib = static_cast<double>(run.peak_rss_kib) / 1024.0;
  check_run(c, in, app_id, output, m);
  brook::bench::delete_topics_with_prefix(app_id + "-");
  return m;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::ranges::sort(values);
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string format(const char* fmt, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, value);
  return buf;
}

// 12345678 -> "12.35M".
std::string human(double value) {
  if (value >= 1e6) return format("%.2fM", value / 1e6);
  if (value >= 1e3) return format("%.1fk", value / 1e3);
  return format("%.0f", value);
}

void print_row(const std::string& name, const std::string& brook, const std::string& ks,
               const std::string& ratio, const std::string& target) {
  std::printf("%-36s | %12s | %13s | %16s | %s\n", name.c_str(), brook.c_str(), ks.c_str(),
              ratio.c_str(), target.c_str());
}

struct Results {
  std::vector<Measurement> brook, kafka_streams;
};

// Prints the medians of every case: `case | brook | kafka streams | ratio | target`.
void print_table(const Options& options, const std::map<std::string, Results>& results) {
  std::printf("\n");
  print_row("case (median of runs)", "brook", "kafka streams", "ratio (brook/ks)", "target");
  std::printf("%s\n", std::string(100, '-').c_str());
  for (const Case& c : kCases) {
    auto it = results.find(c.name);
    if (it == results.end()) continue;
    auto med = [&](const std::vector<Measurement>& runs, auto field) {
      std::vector<double> values;
      for (const auto& m : runs) values.push_back(field(m));
      return median(values);
    };
    auto row = [&](const char* what, auto field, std::string (*show)(double), double target,
                   bool at_least) {
      const double b = med(it->second.brook, field);
      const double k = med(it->second.kafka_streams, field);
      const bool both = !it->second.brook.empty() && !it->second.kafka_streams.empty() && k > 0;
      std::string goal;
      if (target > 0 && both) {
        const bool met = at_least ? b / k >= target : b / k <= target;
        goal = format(at_least ? ">= %.2f" : "<= %.2f", target) + (met ? " met" : " NOT met");
      }
      print_row(std::string(c.name) + " " + what, it->second.brook.empty() ? "-" : show(b),
                it->second.kafka_streams.empty() ? "-" : show(k),
                both ? format("%.2f", b / k) : "-", goal);
    };
    const double records = static_cast<double>(options.records);
    auto fixed1 = [](double v) { return format("%.1f", v); };
    auto fixed2 = [](double v) { return format("%.2f", v); };
    row(
        "rec/s", [&](const Measurement& m) { return records / m.processing_seconds; }, human,
        c.throughput_target, true);
    row(
        "CPU us/rec", [&](const Measurement& m) { return m.processing_cpu / records * 1e6; },
        fixed2, c.cpu_target, false);
    row(
        "max RSS MiB", [](const Measurement& m) { return m.max_rss_mib; }, fixed1, 0, false);
    row(
        "wall s", [](const Measurement& m) { return m.startup_seconds + m.processing_seconds; },
        fixed2, 0, false);
    row(
        "start-up s", [](const Measurement& m) { return m.startup_seconds; }, fixed2, 0, false);
    row(
        "close s", [](const Measurement& m) { return m.close_seconds; }, fixed2, 0, false);
    row(
        "CPU s total", [](const Measurement& m) { return m.startup_cpu + m.processing_cpu; },
        fixed2, 0, false);
    row(
        "output records", [](const Measurement& m) { return m.output_records; }, human, 0, false);
    if (std::string_view(c.app) != "stateless") {
      row(
          "changelog records", [](const Measurement& m) { return m.changelog_records; }, human, 0,
          false);
    }
  }
  std::fflush(stdout);
}

int usage(const char* program, const std::string& problem) {
  std::fprintf(stderr,
               "%s: %s\nusage: %s --ks-classpath CP [--records N] [--keys N] [--runs N] "
               "[--cases NAME,...] [--java PATH]\ncases:",
               program, problem.c_str(), program);
  for (const Case& c : kCases) std::fprintf(stderr, " %s", c.name);
  std::fprintf(stderr, "\n");
  return 2;
}

std::optional<Options> parse(int argc, char** argv, std::string& problem) {
  Options options;
  for (int i = 1; i < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) {
      problem = "'" + std::string(flag) + "' needs a value";
      return std::nullopt;
    }
    const std::string value = argv[i + 1];
    auto number = [&](auto& out) {
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
      if (ec != std::errc() || end != value.data() + value.size() || out <= 0) {
        problem = std::string(flag) + ": '" + value + "' is not a positive number";
        return false;
      }
      return true;
    };
    if (flag == "--records") {
      if (!number(options.records)) return std::nullopt;
    } else if (flag == "--keys") {
      if (!number(options.keys)) return std::nullopt;
    } else if (flag == "--runs") {
      if (!number(options.runs)) return std::nullopt;
    } else if (flag == "--ks-classpath") {
      options.ks_classpath = value;
    } else if (flag == "--java") {
      options.java = value;
    } else if (flag == "--cases") {
      for (std::size_t at = 0; at <= value.size();) {
        const std::size_t end = std::min(value.find(',', at), value.size());
        const std::string name = value.substr(at, end - at);
        if (std::ranges::none_of(kCases, [&](const Case& c) { return name == c.name; })) {
          problem = "--cases: no case '" + name + "'";
          return std::nullopt;
        }
        options.cases.push_back(name);
        at = end + 1;
      }
    } else {
      problem = "unknown flag '" + std::string(flag) + "'";
      return std::nullopt;
    }
  }
  if (options.ks_classpath.empty()) {
    problem = "--ks-classpath is required (scripts/bench_kafka_streams.sh builds it)";
    return std::nullopt;
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  std::string problem;
  const auto options = parse(argc, argv, problem);
  if (!options) return usage(argv[0], problem);
  brook::bench::kafka_bootstrap();  // exits with instructions without a broker

  std::vector<const Case*> cases;
  for (const Case& c : kCases) {
    if (options->cases.empty() ||
        std::ranges::find(options->cases, c.name) != options->cases.end()) {
      cases.push_back(&c);
    }
  }
  std::printf(
      "kafka_streams_bench: %lld records over %lld keys, %d partitions, %d run(s) per "
      "case and side, broker %s, load average %.2f\n",
      static_cast<long long>(options->records), static_cast<long long>(options->keys), kPartitions,
      options->runs, brook::bench::kafka_bootstrap().c_str(), load_average());
  std::fflush(stdout);

  bool failed = false;
  std::map<std::string, Results> results;
  double min_load = 1e9, max_load = 0;
  try {
    brook::bench::BenchTopics topics("brook-ksbench");
    warm_up_broker();
    const bool with_windows = std::ranges::any_of(
        cases, [](const Case* c) { return std::string_view(c->app) == "hopping"; });
    const Input in = write_input(*options, with_windows, topics);
    for (int run = 1; run <= options->runs; ++run) {
      for (const Case* c : cases) {
        const Side order[2] = {run % 2 ? Side::kBrook : Side::kKafkaStreams,
                               run % 2 ? Side::kKafkaStreams : Side::kBrook};
        for (Side side : order) {
          const double load = load_average();
          min_load = std::min(min_load, load);
          max_load = std::max(max_load, load);
          try {
            const Measurement m = run_once(*options, in, *c, side, topics);
            auto& runs =
                side == Side::kBrook ? results[c->name].brook : results[c->name].kafka_streams;
            runs.push_back(m);
            std::printf(
                "run %d/%d %-22s %-13s start-up %5.2f s (CPU %5.2f s), processing %6.2f s "
                "(close %4.2f s, %s rec/s, CPU %6.2f s), max RSS %6.1f MiB, output %s, "
                "changelog %s, load %.2f\n",
                run, options->runs, c->name, name_of(side), m.startup_seconds, m.startup_cpu,
                m.processing_seconds, m.close_seconds,
                human(static_cast<double>(options->records) / m.processing_seconds).c_str(),
                m.processing_cpu, m.max_rss_mib, human(m.output_records).c_str(),
                human(m.changelog_records).c_str(), load);
          } catch (const std::exception& e) {
            failed = true;
            std::printf("run %d/%d %-22s %-13s FAILED: %s\n", run, options->runs, c->name,
                        name_of(side), e.what());
          }
          std::fflush(stdout);
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kafka_streams_bench: %s\n", e.what());
    return 1;
  }
  print_table(*options, results);
  std::printf("load average (1 min) before the runs: %.2f to %.2f; now %.2f\n", min_load, max_load,
              load_average());
  return failed ? 1 : 0;
}
