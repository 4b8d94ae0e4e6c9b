// book_sales against its Kafka Streams twin (BookSales.java): describe(), book-totals as a table
// (each title's last totals, with partition and timestamp), JSON values compared as JSON, and the
// changelogs of the stores book-totals and daily-copies (each title's last totals, each title's
// copies per day). The HTTP serving of the example answers from these stores.
//
// The input (over 10 000 records, on 4 partitions by title): sales of 300 titles a minute apart
// over a week, some at one timestamp with the sale before, some exactly at midnight or 1 ms
// before it, some out of order within their day, and some after their day has closed in their
// partition's stream time (late: no grace, so both drop them from the daily windows, and count
// them). And, each documented in docs/compatibility.md#a-null-key-read-as-a-key-type-without-null,
// two tombstones of the title "tombstoned-book" (Brook reads them as sales of 0 copies at 0,
// which count as sales; Kafka Streams' aggregation drops them, its windowed one adds them as the
// twin's aggregator does: no copies) and three sales without a key (Brook totals them under the
// title ""; Kafka Streams drops them in each aggregation), neither later than its partition's
// newest sale, so that neither moves stream time.
#include "book_sales.h"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "brook/internal/coding.h"
#include "brook/internal/partitioner.h"
#include "conformance.h"

namespace brook::testing {
namespace {

constexpr std::int32_t kBookSalesPartitions = 4;
constexpr std::int64_t kBookSalesStart = 1'767'225'600'000;  // 2026-01-01T00:00Z
constexpr std::int64_t kDay = book_sales::kDay.count();
constexpr std::int64_t kBookSalesMinute = 60'000;
const std::string kTombstoned = "tombstoned-book";

const ExampleTopics kBookSales{
    .name = "book_sales",
    .inputs = {{.name = book_sales::kInputTopic, .partitions = kBookSalesPartitions}},
    // Not compacted (the example's is): the comparison reads the last record per key.
    .outputs = {{.name = book_sales::kOutputTopic, .partitions = kBookSalesPartitions}},
    .stores = {book_sales::kTotalsStore, book_sales::kDailyStore},
};

// The input, and what both must drop as late.
struct Sales {
  std::vector<ProducerRecord> records;
  std::int64_t late = 0;                        // keyed sales after their day closed
  std::set<std::int64_t> unkeyed_days;          // the day windows of the sales without a key
  std::map<std::int32_t, std::int64_t> newest;  // partition -> its newest timestamp so far

  void sale(std::optional<std::string> title, std::int32_t partition, std::int64_t at,
            std::optional<book_sales::Sale> sale) {
    std::int64_t& stream_time = newest.try_emplace(partition, at).first->second;
    if (title && at - at % kDay + kDay <= stream_time) ++late;
    if (!title) unkeyed_days.insert(at - at % kDay);
    stream_time = std::max(stream_time, at);
    std::optional<std::string> value;
    if (sale) value = nlohmann::json(*sale).dump();
    records.push_back({.topic = book_sales::kInputTopic,
                       .partition = Partition(partition),
                       .timestamp = Timestamp(at),
                       .key = std::move(title),
                       .value = std::move(value)});
  }
  void keyed(const std::string& title, std::int64_t at, std::optional<book_sales::Sale> s) {
    sale(title, internal::partition_for_key(title, kBookSalesPartitions).value(), at, s);
  }
};

// The records described at the top of this file.
Sales book_sales_input() {
  Sales in;
  std::mt19937 random(31);
  const double prices[] = {4.99, 9.5, 12.25, 20.0, 0.1, 7.3};
  auto any_sale = [&] {
    return book_sales::Sale{.copies = 1 + static_cast<std::int64_t>(random() % 5),
                            .price = prices[random() % 6]};
  };
  std::int64_t at = kBookSalesStart;
  for (int i = 0; i < 10'080; ++i) {
    const std::string title = fmt::format("book-{:03}", random() % 300);
    const auto roll = random() % 100;
    std::int64_t t = at;
    if (roll < 5) {
      t = at - at % kDay;  // exactly at midnight
    } else if (roll < 8) {
      t = at - at % kDay - 1;  // 1 ms before midnight: the day before, late once it has begun
    } else if (roll < 13) {
      t = std::max(at - at % kDay,
                   at - static_cast<std::int64_t>(random() % 120) * kBookSalesMinute);
    } else if (roll < 15 && !in.records.empty()) {
      t = in.records.back().timestamp.value();  // the timestamp of the sale before
    } else if (roll < 16) {
      t = at - kDay;  // a day late: dropped from the daily windows
    }
    in.keyed(title, t, any_sale());
    at += kBookSalesMinute;
  }
  // Tombstones and sales without a key, at the newest timestamp of their partition.
  const std::int32_t tombstoned =
      internal::partition_for_key(kTombstoned, kBookSalesPartitions).value();
  in.keyed(kTombstoned, in.newest[tombstoned], book_sales::Sale{.copies = 3, .price = 9.5});
  in.keyed(kTombstoned, in.newest[tombstoned], std::nullopt);
  in.keyed(kTombstoned, in.newest[tombstoned], book_sales::Sale{.copies = 1, .price = 9.5});
  in.keyed(kTombstoned, in.newest[tombstoned], std::nullopt);
  // In one partition: one task totals them (each task would keep a "" of its own).
  for (int i = 0; i < 3; ++i) in.sale(std::nullopt, 0, in.newest[0], any_sale());
  return in;
}

// The changelog key of the window of `title` at `start` in daily-copies: [title][8-byte
// start][4-byte sequence 0], as in the comparison's tables.
std::string daily_key(const std::string& title, std::int64_t start) {
  std::string key = title;
  internal::append_big_endian(key, static_cast<std::uint64_t>(start), 8);
  internal::append_big_endian(key, 0, 4);
  return key;
}

TEST_F(ConformanceTest, BookSalesTotalsAsKafkaStreams) {
  create_topics(kBookSales);
  const Sales input = book_sales_input();
  ASSERT_GE(input.records.size(), 10'000u);
  ASSERT_GT(input.late, 0);
  produce(input.records);
  const auto [brook, twin] = run_both(kBookSales);
  expect_same_description(kBookSales, brook, twin);
  // The title "" (sales without a key) and the tombstoned title differ as documented.
  const std::set<std::string> documented = {"", kTombstoned};
  expect_same_table(kBookSales, book_sales::kOutputTopic, brook, twin, ValueFormat::kJson,
                    documented);
  expect_same_changelog(kBookSales, book_sales::kTotalsStore, brook, twin, ValueFormat::kJson,
                        documented);
  std::set<std::string> unkeyed_windows;
  for (std::int64_t day : input.unkeyed_days) unkeyed_windows.insert(daily_key("", day));
  expect_same_changelog(kBookSales, book_sales::kDailyStore, brook, twin, ValueFormat::kBytes,
                        unkeyed_windows);

  const auto ours = last_values(brook.outputs.at(book_sales::kOutputTopic), ValueFormat::kJson);
  const auto theirs = last_values(twin.outputs.at(book_sales::kOutputTopic), ValueFormat::kJson);
  // Without a key: three sales under "" in Brook, none in Kafka Streams.
  ASSERT_TRUE(ours.contains(""));
  EXPECT_EQ(nlohmann::json::parse(ours.at("")).at("sales"), 3);
  EXPECT_FALSE(theirs.contains(""));
  // Tombstones: two more sales of nothing in Brook.
  ASSERT_TRUE(ours.contains(kTombstoned));
  ASSERT_TRUE(theirs.contains(kTombstoned));
  EXPECT_EQ(nlohmann::json::parse(ours.at(kTombstoned)),
            nlohmann::json({{"copies", 4}, {"revenue", 38.0}, {"sales", 4}}));
  EXPECT_EQ(nlohmann::json::parse(theirs.at(kTombstoned)),
            nlohmann::json({{"copies", 4}, {"revenue", 38.0}, {"sales", 2}}));
  report_documented(kBookSales.name, "sales without a key, tombstones",
                    "a-null-key-read-as-a-key-type-without-null");
  // Both drop the late sales from the daily windows; Kafka Streams also drops each sale without
  // a key in both aggregations and each tombstone in the totals.
  EXPECT_EQ(brook.dropped_records, input.late);
  EXPECT_EQ(twin.dropped_records, input.late + 3 * 2 + 2);
  report_documented(kBookSales.name, "dropped records", "dropped-record-counts");
}

}  // namespace
}  // namespace brook::testing
