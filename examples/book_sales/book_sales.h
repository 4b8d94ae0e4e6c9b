// book_sales: the total copies sold and revenue of every book (the seed's "best-selling books"
// table), kept in the queryable store "book-totals" and served over HTTP (DESIGN.md pattern
// 9, interactive queries). Each sale in topic book-sales is keyed by the book's title, with a
// JSON value {"copies": 2, "price": 12.5}; every update of a book's totals goes to the
// compacted topic book-totals. Alongside, the copies sold per book per UTC day, in the window
// store "daily-copies". Run several instances on Kafka with --serve HOST:PORT each: any of them
// answers for every book (docs/patterns/interactive_queries.md).
#pragma once

#include <brook/brook.h>
#include <brook/json_serde.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace book_sales {

inline constexpr const char* kInputTopic = "book-sales";
inline constexpr const char* kOutputTopic = "book-totals";
inline constexpr const char* kTotalsStore = "book-totals";
inline constexpr const char* kDailyStore = "daily-copies";
inline constexpr std::chrono::milliseconds kDay = std::chrono::hours(24);

struct Sale {
  std::int64_t copies = 0;
  double price = 0;
};
void to_json(nlohmann::json& json, const Sale& sale);
void from_json(const nlohmann::json& json, Sale& sale);

struct BookTotals {
  std::int64_t copies = 0;
  double revenue = 0;
  std::int64_t sales = 0;  // sale records
  BookTotals add(const Sale& sale) const;
  friend bool operator==(const BookTotals&, const BookTotals&) = default;
};
void to_json(nlohmann::json& json, const BookTotals& totals);
void from_json(const nlohmann::json& json, BookTotals& totals);

// Built with `config` (StreamsBuilder::build: its topology.optimization).
brook::Result<brook::Topology> build_topology(
    const std::map<std::string, std::string>& config = {});

}  // namespace book_sales
