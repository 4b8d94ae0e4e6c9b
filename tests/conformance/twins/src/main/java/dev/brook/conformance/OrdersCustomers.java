// The twin of examples/orders_customers: the table of orders (topic orders, key: order id, the
// store "orders") joined on each order's customer_id with the table of customers (topic
// customers, key: customer id, the store "customers"), a foreign-key join named
// "orders-customers" (its internal topics orders-customers-subscription-registration-topic and
// -subscription-response-topic, its store orders-customers-subscription-store), every change of
// the result to orders-enriched: the order with its customer's name and country, or a tombstone.
// Orders, customers and enriched orders are JSON, as orders_customers.h writes them.
package dev.brook.conformance;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TableJoined;
import org.apache.kafka.streams.state.KeyValueStore;

final class OrdersCustomers {
  static final String ORDERS_TOPIC = "orders";
  static final String CUSTOMERS_TOPIC = "customers";
  static final String OUTPUT_TOPIC = "orders-enriched";
  static final String JOIN_NAME = "orders-customers";

  private OrdersCustomers() {}

  // {"customer_id": "c1", "amount": 12.5}; other members are ignored, as Brook's from_json does.
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Order(@JsonProperty("customer_id") String customerId, double amount) {}

  // {"name": "Ann", "country": "NZ"}.
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Customer(String name, String country) {}

  // {"customer_id": "c1", "amount": 12.5, "customer_name": "Ann", "country": "NZ"}.
  record EnrichedOrder(@JsonProperty("customer_id") String customerId, double amount,
      @JsonProperty("customer_name") String customerName, String country) {}

  static final Serde<Order> ORDER = Json.serde(Order.class);
  static final Serde<Customer> CUSTOMER = Json.serde(Customer.class);
  static final Serde<EnrichedOrder> ENRICHED_ORDER = Json.serde(EnrichedOrder.class);

  static EnrichedOrder enrich(Order order, Customer customer) {
    return new EnrichedOrder(order.customerId(), order.amount(), customer.name(),
        customer.country());
  }

  static Topology build(Properties props) {
    StreamsBuilder builder = new StreamsBuilder();
    KTable<String, Order> orders = builder.table(ORDERS_TOPIC,
        Consumed.with(Serdes.String(), ORDER),
        Materialized.<String, Order, KeyValueStore<Bytes, byte[]>>as("orders"));
    KTable<String, Customer> customers = builder.table(CUSTOMERS_TOPIC,
        Consumed.with(Serdes.String(), CUSTOMER),
        Materialized.<String, Customer, KeyValueStore<Bytes, byte[]>>as("customers"));
    orders
        .join(customers, Order::customerId, OrdersCustomers::enrich, TableJoined.as(JOIN_NAME))
        .toStream()
        .to(OUTPUT_TOPIC, Produced.with(Serdes.String(), ENRICHED_ORDER));
    return builder.build(props);
  }
}
