#include "orders_customers.h"

#include <optional>

namespace orders_customers {

void to_json(nlohmann::json& json, const Order& order) {
  json = {{"customer_id", order.customer_id}, {"amount", order.amount}};
}
void from_json(const nlohmann::json& json, Order& order) {
  json.at("customer_id").get_to(order.customer_id);
  json.at("amount").get_to(order.amount);
}

void to_json(nlohmann::json& json, const Customer& customer) {
  json = {{"name", customer.name}, {"country", customer.country}};
}
void from_json(const nlohmann::json& json, Customer& customer) {
  json.at("name").get_to(customer.name);
  json.at("country").get_to(customer.country);
}

void to_json(nlohmann::json& json, const EnrichedOrder& order) {
  json = {{"customer_id", order.customer_id},
          {"amount", order.amount},
          {"customer_name", order.customer_name},
          {"country", order.country}};
}
void from_json(const nlohmann::json& json, EnrichedOrder& order) {
  json.at("customer_id").get_to(order.customer_id);
  json.at("amount").get_to(order.amount);
  json.at("customer_name").get_to(order.customer_name);
  json.at("country").get_to(order.country);
}

EnrichedOrder enrich(const Order& order, const Customer& customer) {
  return {order.customer_id, order.amount, customer.name, customer.country};
}

std::map<std::string, EnrichedOrder> recompute(const std::map<std::string, Order>& orders,
                                               const std::map<std::string, Customer>& customers) {
  std::map<std::string, EnrichedOrder> out;
  for (const auto& [id, order] : orders) {
    if (auto it = customers.find(order.customer_id); it != customers.end()) {
      out.emplace(id, enrich(order, it->second));
    }
  }
  return out;
}

brook::Result<brook::Topology> build_topology(const std::map<std::string, std::string>& config) {
  brook::StreamsBuilder builder;
  auto orders = builder.table<std::string, Order>(kOrdersTopic, {}, {.name = "orders"});
  auto customers = builder.table<std::string, Customer>(kCustomersTopic, {}, {.name = "customers"});
  orders
      .join(customers, [](const Order& order) { return order.customer_id; }, enrich,
            {.name = kJoinName})
      .to_stream()
      .to(kOutputTopic);
  return builder.build(config);
}

}  // namespace orders_customers
