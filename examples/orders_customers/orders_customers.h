// orders_customers: orders enriched with their customer (DESIGN.md pattern 5, a foreign-key
// join of two tables). The table of orders (topic `orders`, key: order id) refers to the table
// of customers (topic `customers`, key: customer id) by the order's customer_id. Every order
// with a known customer goes to the compacted topic `orders-enriched` with the customer's name
// and country; a customer update re-emits the results of all of that customer's orders; an
// order that changes customer is re-joined with the new one; a deleted order, or one whose
// customer is deleted or unknown, leaves a tombstone.
//
// The two topics need not have the same number of partitions: the join's internal topics
// <application.id>-orders-customers-subscription-registration-topic and
// -subscription-response-topic carry the lookups between them.
#pragma once

#include <brook/brook.h>
#include <brook/json_serde.h>

#include <cstdint>
#include <map>
#include <string>

namespace orders_customers {

inline constexpr const char* kOrdersTopic = "orders";
inline constexpr const char* kCustomersTopic = "customers";
inline constexpr const char* kOutputTopic = "orders-enriched";
inline constexpr const char* kJoinName = "orders-customers";

// JSON {"customer_id": "c1", "amount": 12.5}.
struct Order {
  std::string customer_id;
  double amount = 0;
  friend bool operator==(const Order&, const Order&) = default;
};
void to_json(nlohmann::json& json, const Order& order);
void from_json(const nlohmann::json& json, Order& order);

// JSON {"name": "Ann", "country": "NZ"}.
struct Customer {
  std::string name;
  std::string country;
  friend bool operator==(const Customer&, const Customer&) = default;
};
void to_json(nlohmann::json& json, const Customer& customer);
void from_json(const nlohmann::json& json, Customer& customer);

// JSON {"customer_id": "c1", "amount": 12.5, "customer_name": "Ann", "country": "NZ"}.
struct EnrichedOrder {
  std::string customer_id;
  double amount = 0;
  std::string customer_name;
  std::string country;
  friend bool operator==(const EnrichedOrder&, const EnrichedOrder&) = default;
};
void to_json(nlohmann::json& json, const EnrichedOrder& order);
void from_json(const nlohmann::json& json, EnrichedOrder& order);

EnrichedOrder enrich(const Order& order, const Customer& customer);

// The join's result table for the latest orders and customers (by id): what
// kOutputTopic holds once compacted.
std::map<std::string, EnrichedOrder> recompute(const std::map<std::string, Order>& orders,
                                               const std::map<std::string, Customer>& customers);

// kOrdersTopic ⋈ kCustomersTopic on Order::customer_id, written to kOutputTopic.
// Built with `config` (StreamsBuilder::build: its topology.optimization).
brook::Result<brook::Topology> build_topology(
    const std::map<std::string, std::string>& config = {});

}  // namespace orders_customers
