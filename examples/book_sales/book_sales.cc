#include "book_sales.h"

namespace book_sales {

void to_json(nlohmann::json& json, const Sale& sale) {
  json = {{"copies", sale.copies}, {"price", sale.price}};
}
void from_json(const nlohmann::json& json, Sale& sale) {
  json.at("copies").get_to(sale.copies);
  json.at("price").get_to(sale.price);
}

BookTotals BookTotals::add(const Sale& sale) const {
  return {.copies = copies + sale.copies,
          .revenue = revenue + static_cast<double>(sale.copies) * sale.price,
          .sales = sales + 1};
}
void to_json(nlohmann::json& json, const BookTotals& totals) {
  json = {{"copies", totals.copies}, {"revenue", totals.revenue}, {"sales", totals.sales}};
}
void from_json(const nlohmann::json& json, BookTotals& totals) {
  json.at("copies").get_to(totals.copies);
  json.at("revenue").get_to(totals.revenue);
  json.at("sales").get_to(totals.sales);
}

brook::Result<brook::Topology> build_topology(const std::map<std::string, std::string>& config) {
  brook::StreamsBuilder builder;
  auto by_book = builder.stream<std::string, Sale>(kInputTopic).group_by_key();
  by_book
      .aggregate([] { return BookTotals{}; },
                 [](const std::string&, const Sale& sale, const BookTotals& totals) {
                   return totals.add(sale);
                 },
                 {.name = kTotalsStore})
      .to_stream()
      .to(kOutputTopic);
  by_book.windowed_by(brook::TimeWindows::of_size_with_no_grace(kDay))
      .aggregate([] { return std::int64_t{0}; },
                 [](const std::string&, const Sale& sale, std::int64_t copies) {
                   return copies + sale.copies;
                 },
                 {.name = kDailyStore});
  return builder.build(config);
}

}  // namespace book_sales
