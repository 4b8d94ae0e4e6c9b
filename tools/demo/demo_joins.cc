#include "demo_joins.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string_view>

namespace brook::demo {
namespace {

constexpr int kClickUsers = 40;

std::optional<click_enrichment::Profile> demo_profile(int user, bool updated) {
  if (user >= 30) return std::nullopt;
  const bool older = updated && user < 10;
  return click_enrichment::Profile{20 + user + (older ? 1 : 0),
                                   user == 5 && older ? "x" : (user % 2 == 0 ? "f" : "m")};
}

std::string demo_user(int user) { return fmt::format("u{:02}", user); }

// A row of orders_customers' input.
struct DemoRow {
  const char* topic;
  std::string key;
  std::optional<nlohmann::json> value;  // nullopt: a tombstone
};

std::vector<DemoRow> demo_orders_and_customers() {
  using orders_customers::Customer;
  using orders_customers::Order;
  const char* countries[] = {"NZ", "FR", "BR", "JP", "KE"};
  std::vector<DemoRow> rows;
  auto customer = [&](int c, const std::string& name) {
    rows.push_back({orders_customers::kCustomersTopic, fmt::format("c{:02}", c),
                    nlohmann::json(Customer{name, countries[c % 5]})});
  };
  auto order = [&](int o, int c, double amount) {
    rows.push_back({orders_customers::kOrdersTopic, fmt::format("o{:03}", o),
                    nlohmann::json(Order{fmt::format("c{:02}", c), amount})});
  };
  for (int c = 0; c < 30; ++c) customer(c, fmt::format("customer {}", c));
  for (int o = 0; o < 200; ++o) order(o, (o * 7) % 33, 10 + (o * 37) % 490);  // c30..c32 unknown
  customer(7, "customer 7 (renamed)");  // re-emits all of c07's orders
  rows.push_back({orders_customers::kCustomersTopic, "c08", std::nullopt});
  order(5, 7, 99);                    // o005 moves from c02 to c07
  order(6, 31, 45);                   // o006 moves to an unknown customer
  customer(31, "customer 31 (new)");  // ... which then arrives
  rows.push_back({orders_customers::kOrdersTopic, "o010", std::nullopt});
  return rows;
}

}  // namespace

std::vector<ProducerRecord> click_phase(int phase, std::int64_t start) {
  std::vector<ProducerRecord> records;
  std::int64_t ts = start + phase * 10'000;
  auto add = [&](const char* topic, int user, const nlohmann::json& value) {
    records.push_back({.topic = topic,
                       .timestamp = Timestamp(++ts),
                       .key = demo_user(user),
                       .value = value.dump()});
  };
  for (int i = 0; i < (phase % 2 == 0 ? 30 : kClicksPerPhase); ++i) {
    if (phase % 2 == 1) {
      const int click = (phase / 2) * kClicksPerPhase + i;
      add(click_enrichment::kClicksTopic, click % kClickUsers,
          click_enrichment::Click{fmt::format("/page-{}", click)});
    } else if (phase == 0 || i < 10) {
      add(click_enrichment::kProfilesTopic, i, *demo_profile(i, phase == 2));
    }
  }
  return records;
}

EnrichedClicks expected_enriched_clicks() {
  EnrichedClicks expected;
  for (int click = 0; click < (kClickPhases / 2) * kClicksPerPhase; ++click) {
    const int user = click % kClickUsers;
    const auto page = fmt::format("/page-{}", click);
    expected.emplace(page, std::pair{demo_user(user),
                                     click_enrichment::enrich(
                                         {page}, demo_profile(user, click >= kClicksPerPhase))});
  }
  return expected;
}

std::vector<ProducerRecord> orders_and_customers(std::int64_t start) {
  std::vector<ProducerRecord> records;
  std::int64_t ts = start;
  for (const auto& row : demo_orders_and_customers()) {
    std::optional<std::string> value;
    if (row.value) value = row.value->dump();
    records.push_back(
        {.topic = row.topic, .timestamp = Timestamp(++ts), .key = row.key, .value = value});
  }
  return records;
}

std::map<std::string, orders_customers::EnrichedOrder> expected_enriched_orders() {
  using orders_customers::Customer;
  using orders_customers::Order;
  std::map<std::string, Order> orders;
  std::map<std::string, Customer> customers;
  for (const auto& row : demo_orders_and_customers()) {
    const bool is_order = std::string_view(row.topic) == orders_customers::kOrdersTopic;
    if (!row.value) {
      is_order ? orders.erase(row.key) : customers.erase(row.key);
    } else if (is_order) {
      orders.insert_or_assign(row.key, row.value->get<Order>());
    } else {
      customers.insert_or_assign(row.key, row.value->get<Customer>());
    }
  }
  return orders_customers::recompute(orders, customers);
}

SearchClickData generate_search_clicks(std::uint32_t seed) {
  std::mt19937 random(seed);
  const char* queries[] = {"boots", "rain jacket", "tent", "headlamp", "stove", "backpack"};
  SearchClickData data;
  constexpr std::int64_t kStart = 1'767'225'600'000;  // 2026-01-01T00:00Z
  for (int i = 0; i < kDemoSearches; ++i) {
    const std::string query = queries[random() % 6];
    search_clicks::Search search{query, {}};
    for (int r = 1; r <= 5; ++r) search.results.push_back(fmt::format("{}-{}", query, r));
    const std::string user = fmt::format("user-{:02}", random() % 40);
    const std::int64_t at = kStart + std::int64_t{i} * 250;
    data.searches.push_back({user, search, at});
    const int clicks = static_cast<int>(random() % 4);
    for (int c = 0; c < clicks; ++c) {
      // Rank 1 most often: min of two draws from 1..6 (6: a result not shown).
      const int rank = 1 + static_cast<int>(std::min(random() % 6, random() % 6));
      data.clicks.push_back(
          {user, {fmt::format("{}-{}", query, rank)}, at + 200 + std::int64_t(random() % 7'800)});
    }
  }
  std::stable_sort(data.clicks.begin(), data.clicks.end(),
                   [](const auto& a, const auto& b) { return a.at < b.at; });
  return data;
}

std::vector<ProducerRecord> search_click_records(const SearchClickData& data) {
  std::vector<ProducerRecord> records;
  for (const auto& s : data.searches) {
    records.push_back({.topic = search_clicks::kSearchTopic,
                       .timestamp = Timestamp(s.at),
                       .key = s.user,
                       .value = nlohmann::json(s.value).dump()});
  }
  for (const auto& c : data.clicks) {
    records.push_back({.topic = search_clicks::kClickTopic,
                       .timestamp = Timestamp(c.at),
                       .key = c.user,
                       .value = nlohmann::json(c.value).dump()});
  }
  return records;
}

}  // namespace brook::demo
