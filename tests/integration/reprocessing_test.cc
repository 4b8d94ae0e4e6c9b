// Reprocessing side by side (docs/patterns/reprocessing.md), end to end with the real programs
// on a fresh embedded data dir: the stock_stats example runs as v1 and, with 30-minute instead
// of 60-minute moving-average windows, as v2 under another application id into other output
// topics, over the same trades. `brook topics diff` finds the daily statistics equal and the
// moving averages different, key by key as the trades imply; v1's outputs stay as they were,
// and v1 is retired with `brook app reset`.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "embedded_fixture.h"
#include "run_process.h"

namespace brook::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr std::int64_t kMinute = 60'000;
constexpr std::int64_t kDay = 24 * 60 * kMinute;

// What the test needs to know of a trade it wrote.
struct TradeTime {
  std::string symbol;
  std::int64_t timestamp = 0;
  double price = 0;
};

// The trades of the worked example in docs/patterns/reprocessing.md (its awk line writes the
// same): 3000 trades of 4 symbols, one every 23 s from 2026-05-28T20:26:40Z, across midnight
// UTC, with trading paused for 3 hours after the first 1500.
std::vector<TradeTime> example_trades() {
  const std::vector<std::string> symbols = {"ACME", "GLOBEX", "INITECH", "UMBRELLA"};
  std::vector<TradeTime> trades;
  for (std::int64_t i = 0; i < 3000; ++i) {
    trades.push_back({.symbol = symbols[i % 4],
                      .timestamp = 1'780'000'000'000 + i * 23'000 + (i >= 1500 ? 180 * kMinute : 0),
                      .price = 100 + static_cast<double>(i * 37 % 101) / 4});
  }
  return trades;
}

// The trades as `brook produce --format jsonl` reads them, keyed by symbol.
std::string jsonl(const std::vector<TradeTime>& trades) {
  std::string out;
  for (std::size_t i = 0; i < trades.size(); ++i) {
    const auto& t = trades[i];
    out += fmt::format(
        R"({{"key":"{}","value":{{"symbol":"{}","price":{:.2f},"volume":{}}},"timestamp":{}}})"
        "\n",
        t.symbol, t.symbol, t.price, 10 + i % 90, t.timestamp);
  }
  return out;
}

// The key of a moving average as `--key-format windowed:string` prints it: [symbol@start].
using WindowKey = std::string;

// Per hopping window of `size` (one starting every 10 minutes) that holds a trade, what
// stock_stats writes for it last: {"trades", "sum", "average"} of the prices, summed in
// timestamp order (the trades' order in their partition).
std::map<WindowKey, nlohmann::json> moving_averages(const std::vector<TradeTime>& trades,
                                                    std::int64_t size) {
  const std::int64_t advance = 10 * kMinute;
  std::map<WindowKey, std::pair<std::int64_t, double>> sums;
  for (const auto& t : trades) {
    for (std::int64_t start = t.timestamp - t.timestamp % advance;
         start > t.timestamp - size && start >= 0; start -= advance) {
      auto& [count, sum] = sums[fmt::format("[{}@{}]", t.symbol, start)];
      ++count;
      sum += t.price;
    }
  }
  std::map<WindowKey, nlohmann::json> out;
  for (const auto& [key, sum] : sums) {
    out[key] = {{"trades", sum.first},
                {"sum", sum.second},
                {"average", sum.second / static_cast<double>(sum.first)}};
  }
  return out;
}

// A topic as a table (each key's latest value) and the end offset of each partition that has
// records: equal before and after means nothing was written to it.
struct TopicState {
  std::map<std::string, std::string> table;
  std::map<int, std::int64_t> ends;
  friend bool operator==(const TopicState&, const TopicState&) = default;
};

class ReprocessingTest : public EmbeddedFixture {
 protected:
  void SetUp() override {
#if !defined(BROOK_CLI_PATH) || !defined(BROOK_EXAMPLES_DIR)
    GTEST_SKIP() << "the brook command and the examples are built with BROOK_BUILD_EXAMPLES";
#endif
    EmbeddedFixture::SetUp();
    std::filesystem::create_directories(io_.path());
  }

  // `brook args... --data-dir <the test's dir>` with `input` on stdin.
  ProcessResult brook(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), BROOK_CLI_PATH);
    args.insert(args.end(), {"--data-dir", dir_.string()});
    return run_process(args, input, io_.path());
  }

  // Runs the stock_stats program with `flags` on the test's dir until it is idle.
  ProcessResult stock_stats(std::vector<std::string> flags) {
#ifdef BROOK_EXAMPLES_DIR
    flags.insert(flags.begin(), BROOK_EXAMPLES_DIR "/stock_stats/stock_stats");
#endif
    flags.insert(flags.end(), {"--data-dir", dir_.string(), "--until-idle"});
    return run_process(flags, "", io_.path());
  }

  TopicState state_of(const std::string& topic) {
    TopicState state;
    for (const auto& r : read_all(topic)) {
      state.table.insert_or_assign(r.key.value_or(""), r.value.value_or(""));
      state.ends[r.partition.value()] = r.offset.value() + 1;
    }
    return state;
  }

  ScratchDir io_{"brook-reprocessing-io"};
};

TEST_F(ReprocessingTest, V2WithAnotherWindowBesideV1DiffersInTheMovingAveragesOnly) {
  for (const char* topic :
       {"stock-stats", "stock-moving-average", "stock-stats-v2", "stock-moving-average-v2"}) {
    auto created = brook(
        {"topics", "create", topic, "--partitions", "4", "--config", "cleanup.policy=compact"});
    ASSERT_EQ(created.exit_code, 0) << created.err;
  }
  ASSERT_EQ(brook({"topics", "create", "trades", "--partitions", "4"}).exit_code, 0);
  const auto trades = example_trades();
  auto produced = brook({"produce", "trades", "--format", "jsonl"}, jsonl(trades));
  ASSERT_EQ(produced.exit_code, 0) << produced.err;

  auto v1 = stock_stats({"--application-id", "stock-stats-v1"});
  ASSERT_EQ(v1.exit_code, 0) << v1.err;
  const TopicState v1_stats = state_of("stock-stats");
  const TopicState v1_averages = state_of("stock-moving-average");

  auto v2 = stock_stats({"--application-id", "stock-stats-v2", "--output-suffix", "-v2",
                         "--average-window-minutes", "30"});
  ASSERT_EQ(v2.exit_code, 0) << v2.err;
  // v2 read the trades through its own group and wrote only its own topics; v1, run again,
  // finds its committed offsets at the end of the trades and writes nothing.
  EXPECT_EQ(state_of("stock-stats"), v1_stats);
  EXPECT_EQ(state_of("stock-moving-average"), v1_averages);
  ASSERT_EQ(stock_stats({"--application-id", "stock-stats-v1"}).exit_code, 0);
  EXPECT_EQ(state_of("stock-stats"), v1_stats);
  EXPECT_EQ(state_of("stock-moving-average"), v1_averages);

  // The daily statistics do not depend on the window: one key per symbol and UTC day.
  std::set<std::pair<std::string, std::int64_t>> days;
  for (const auto& t : trades) days.emplace(t.symbol, t.timestamp / kDay);
  auto stats = brook({"topics", "diff", "stock-stats", "stock-stats-v2", "--value-format", "json"});
  EXPECT_EQ(stats.exit_code, 0) << stats.out << stats.err;
  EXPECT_THAT(
      stats.out,
      HasSubstr(fmt::format("equal: {}, only in A: 0, only in B: 0, different: 0\n", days.size())));

  // The moving averages: a window of v2 starting where one of v1 does holds the same trades
  // (equal) unless v1's holds trades in its second half too (different); v1 alone has the
  // windows with trades in their second half only (those starting 30 to 60 minutes before a
  // symbol's first trade, and its first after the pause), v2 none of its own.
  const auto hour = moving_averages(trades, 60 * kMinute);
  const auto half_hour = moving_averages(trades, 30 * kMinute);
  std::size_t equal = 0;
  std::set<WindowKey> only_in_a, different;
  for (const auto& [key, value] : hour) {
    const auto other = half_hour.find(key);
    if (other == half_hour.end()) {
      only_in_a.insert(key);
    } else if (other->second == value) {
      ++equal;
    } else {
      different.insert(key);
    }
  }
  // The input makes each kind occur, and v2's windows are a subset of v1's.
  ASSERT_GT(equal, 0u);
  ASSERT_FALSE(only_in_a.empty());
  ASSERT_FALSE(different.empty());
  ASSERT_EQ(equal + different.size(), half_hour.size());

  const std::vector<std::string> diff_averages = {"topics",
                                                  "diff",
                                                  "stock-moving-average",
                                                  "stock-moving-average-v2",
                                                  "--key-format",
                                                  "windowed:string",
                                                  "--value-format",
                                                  "json"};
  auto averages = brook(diff_averages);
  EXPECT_EQ(averages.exit_code, 1) << averages.out << averages.err;
  EXPECT_THAT(averages.out,
              HasSubstr(fmt::format("A: stock-moving-average, {} keys (", hour.size())));
  EXPECT_THAT(averages.out,
              HasSubstr(fmt::format("; B: stock-moving-average-v2, {} keys (", half_hour.size())));
  EXPECT_THAT(averages.out,
              HasSubstr(fmt::format("equal: {}, only in A: {}, only in B: 0, different: {}\n",
                                    equal, only_in_a.size(), different.size())));

  // Key by key, with the values.
  auto document_args = diff_averages;
  document_args.push_back("--json");
  auto document = brook(document_args);
  EXPECT_EQ(document.exit_code, 1) << document.err;
  const auto parsed = nlohmann::json::parse(document.out);
  EXPECT_THAT(parsed["only_in_b"], IsEmpty());
  std::set<WindowKey> reported_only_in_a, reported_different;
  for (const auto& entry : parsed["only_in_a"]) {
    const auto key = entry["key"].get<WindowKey>();
    reported_only_in_a.insert(key);
    EXPECT_EQ(entry["value"], hour.at(key)) << key;
  }
  for (const auto& entry : parsed["different"]) {
    const auto key = entry["key"].get<WindowKey>();
    reported_different.insert(key);
    EXPECT_EQ(entry["a"], hour.at(key)) << key;
    EXPECT_EQ(entry["b"], half_hour.at(key)) << key;
  }
  EXPECT_EQ(reported_only_in_a, only_in_a);
  EXPECT_EQ(reported_different, different);

  // The switch-over done, v1 is retired: its internal topics and local state go, v2's stay.
  const std::string state_dir = (dir_ / "state").string();
  auto reset = brook({"app", "reset", "--application-id", "stock-stats-v1", "--input-topics",
                      "trades", "--local-state-dir", state_dir});
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  EXPECT_EQ(brook({"topics", "list"}).out,
            "stock-moving-average\n"
            "stock-moving-average-v2\n"
            "stock-stats\n"
            "stock-stats-v2\n"
            "stock-stats-v2-day-stats-changelog\n"
            "stock-stats-v2-moving-average-changelog\n"
            "stock-stats-v2-trades-by-symbol-day-repartition\n"
            "trades\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state" / "stock-stats-v1"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "state" / "stock-stats-v2"));
}

// The example's own flags: a window that is not a whole number of minutes of at least the
// advance, 10, is refused before anything runs.
TEST_F(ReprocessingTest, StockStatsRefusesABadWindowNamingTheFlag) {
  for (const std::string value : {"5", "0", "-60", "1h", "60.5", ""}) {
    auto r = stock_stats({"--average-window-minutes", value});
    EXPECT_EQ(r.exit_code, 2) << value;
    EXPECT_THAT(r.err, HasSubstr(fmt::format("--average-window-minutes takes a whole number of "
                                             "minutes, at least 10 (a window starts every 10 "
                                             "minutes), not '{}'\n",
                                             value)));
  }
}

}  // namespace
}  // namespace brook::testing
