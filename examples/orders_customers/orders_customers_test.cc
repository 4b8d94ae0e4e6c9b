// orders_customers through the test driver: enrichment, a customer update re-emitting its
// orders, an order changing customer, deletes; results equal the recomputation.
#include "orders_customers.h"

#include <brook/testing/topology_test_driver.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>

namespace orders_customers {
namespace {

struct Joined {
  Joined()
      : driver(*build_topology()),
        orders(driver.create_input_topic<std::string, std::optional<Order>>(kOrdersTopic)),
        customers(driver.create_input_topic<std::string, std::optional<Customer>>(kCustomersTopic)),
        out(driver.create_output_topic<std::string, std::optional<EnrichedOrder>>(kOutputTopic)) {}
  // The compacted output: the latest value per key.
  std::map<std::string, EnrichedOrder> table() {
    for (auto& [key, value] : out.read_key_values_to_list()) {
      if (value) {
        latest.insert_or_assign(key, *value);
      } else {
        latest.erase(key);
      }
    }
    return latest;
  }
  brook::testing::TopologyTestDriver driver;
  brook::testing::TestInputTopic<std::string, std::optional<Order>> orders;
  brook::testing::TestInputTopic<std::string, std::optional<Customer>> customers;
  brook::testing::TestOutputTopic<std::string, std::optional<EnrichedOrder>> out;
  std::map<std::string, EnrichedOrder> latest;
};

TEST(OrdersCustomers, EnrichesOrdersAndFollowsCustomerUpdatesAndOrderChanges) {
  Joined run;
  std::map<std::string, Order> orders;
  std::map<std::string, Customer> customers;
  auto customer = [&](const std::string& id, std::optional<Customer> c, std::int64_t t) {
    run.customers.pipe_input(id, c, brook::Timestamp(t));
    if (c) {
      customers.insert_or_assign(id, *c);
    } else {
      customers.erase(id);
    }
  };
  auto order = [&](const std::string& id, std::optional<Order> o, std::int64_t t) {
    run.orders.pipe_input(id, o, brook::Timestamp(t));
    if (o) {
      orders.insert_or_assign(id, *o);
    } else {
      orders.erase(id);
    }
  };
  customer("c1", Customer{"Ann", "NZ"}, 1);
  customer("c2", Customer{"Bob", "FR"}, 2);
  order("o1", Order{"c1", 10}, 3);
  order("o2", Order{"c1", 20}, 4);
  order("o3", Order{"c2", 30}, 5);
  order("o4", Order{"c9", 40}, 6);  // unknown customer: no result
  EXPECT_EQ(run.table(), recompute(orders, customers));
  EXPECT_EQ(run.table().at("o1"), (EnrichedOrder{"c1", 10, "Ann", "NZ"}));

  customer("c1", Customer{"Ann Smith", "AU"}, 7);  // re-emits o1 and o2
  const auto updates = run.out.read_key_values_to_list();
  ASSERT_EQ(updates.size(), 2u);
  EXPECT_EQ(updates[0].key, "o1");
  EXPECT_EQ(updates[1].key, "o2");
  EXPECT_EQ(updates[1].value->customer_name, "Ann Smith");
  for (const auto& [key, value] : updates) run.latest.insert_or_assign(key, *value);

  order("o2", Order{"c2", 20}, 8);  // changes customer
  customer("c1", Customer{"Ann", "NZ"}, 9);
  order("o3", std::nullopt, 10);
  customer("c2", std::nullopt, 11);
  customer("c9", Customer{"Cy", "US"}, 12);
  EXPECT_EQ(run.table(), recompute(orders, customers));
  EXPECT_EQ(run.table().size(), 2u);  // o1 with Ann, o4 with Cy
}

}  // namespace
}  // namespace orders_customers
