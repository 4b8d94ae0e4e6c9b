// Joins the orders in topic `orders` with their customers in topic `customers` (on the order's
// customer_id) into the compacted topic orders-enriched, as a Streams app on the embedded log
// or Kafka. Flags: see examples/common.
#include "app_runner.h"
#include "orders_customers.h"

int main(int argc, char** argv) {
  return examples::run_app(orders_customers::build_topology, "orders-customers", argc, argv);
}
