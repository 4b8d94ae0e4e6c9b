// book_sales through the test driver: totals per book, and copies per book per day.
#include "book_sales.h"

#include <gtest/gtest.h>

#include "brook/testing/topology_test_driver.h"

namespace book_sales {
namespace {

using brook::Timestamp;

TEST(BookSales, EachBooksTotalsAddUpItsSales) {
  brook::testing::TopologyTestDriver driver(*build_topology());
  auto sales = driver.create_input_topic<std::string, Sale>(kInputTopic);
  auto totals = driver.create_output_topic<std::string, std::optional<BookTotals>>(kOutputTopic);
  sales.pipe_input("Dune", {2, 10.0}, Timestamp(1));
  sales.pipe_input("Emma", {1, 8.0}, Timestamp(2));
  sales.pipe_input("Dune", {1, 12.0}, Timestamp(3));
  auto store = driver.timestamped_key_value_store<std::string, BookTotals>(kTotalsStore);
  EXPECT_EQ(store.get("Dune")->value, (BookTotals{.copies = 3, .revenue = 32.0, .sales = 2}));
  EXPECT_EQ(store.get("Emma")->value, (BookTotals{.copies = 1, .revenue = 8.0, .sales = 1}));
  EXPECT_EQ(totals.read_values_to_list().size(), 3u);
}

TEST(BookSales, CopiesAreCountedPerUtcDay) {
  brook::testing::TopologyTestDriver driver(*build_topology());
  auto sales = driver.create_input_topic<std::string, Sale>(kInputTopic);
  const Timestamp day2(kDay.count());
  sales.pipe_input("Dune", {2, 10.0}, Timestamp(5));
  sales.pipe_input("Dune", {4, 10.0}, day2 + std::chrono::milliseconds(5));
  auto daily = driver.timestamped_window_store<std::string, std::int64_t>(kDailyStore);
  EXPECT_EQ(daily.fetch("Dune", Timestamp(0))->value, 2);
  EXPECT_EQ(daily.fetch("Dune", day2)->value, 4);
}

}  // namespace
}  // namespace book_sales
