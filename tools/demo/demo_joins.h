// The inputs `brook-demo` feeds to the join examples click_enrichment, orders_customers and
// search_clicks, as the records to write, and the results each must end with, computed
// straight from those inputs. The Kafka example tests write the same records and check the
// same results.
#pragma once

#include <brook/record.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "click_enrichment.h"
#include "orders_customers.h"
#include "search_clicks.h"

namespace brook::demo {

// click_enrichment's profiles and clicks come in kClickPhases phases, written one after the
// other with a run of the application after each (a stream-table join sees a table update
// only in the clicks read after it): 0: profiles of u00..u29 (u30..u39 have none); 1:
// kClicksPerPhase clicks; 2: u00..u09 a year older (u05 also changes gender); 3:
// kClicksPerPhase more clicks.
inline constexpr int kClickPhases = 4;
inline constexpr int kClicksPerPhase = 160;

// The records of `phase` (0 to kClickPhases - 1), keyed by user id, as JSON, with the
// timestamps `start` + 10 s * phase + 1, + 2, ...
std::vector<ProducerRecord> click_phase(int phase, std::int64_t start);

// Page -> (user id, enriched click): each click of the phases with the profile its user had
// when it was written (phase 2's updates for phase 3's clicks only).
using EnrichedClicks =
    std::map<std::string, std::pair<std::string, click_enrichment::EnrichedClick>>;
EnrichedClicks expected_enriched_clicks();

// orders_customers' input, in the order written: 30 customers, 200 orders (some of customers
// that do not exist), then renamed and deleted customers, orders that change customer and a
// deleted order. JSON values, tombstones; timestamps `start` + 1, + 2, ...
std::vector<ProducerRecord> orders_and_customers(std::int64_t start);

// Order id -> enriched order: what orders-enriched holds once compacted, the join of the
// latest orders and customers of orders_and_customers().
std::map<std::string, orders_customers::EnrichedOrder> expected_enriched_orders();

// search_clicks' input: kDemoSearches searches by 40 users, one every 250 ms from 2026-01-01;
// each followed by up to three clicks 0.2 to 8 s later (some after the 5 s window, a few on
// results the search did not show), clicks preferring the top results. The same for the same
// seed.
inline constexpr int kDemoSearches = 4'000;
struct SearchClickData {
  std::vector<search_clicks::Timed<search_clicks::Search>> searches;
  std::vector<search_clicks::Timed<search_clicks::Click>> clicks;  // in time order
};
SearchClickData generate_search_clicks(std::uint32_t seed);

// The searches and then the clicks of `data`, as JSON keyed by user, each topic in time order.
std::vector<ProducerRecord> search_click_records(const SearchClickData& data);

}  // namespace brook::demo
