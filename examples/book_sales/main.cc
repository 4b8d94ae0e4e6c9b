// Keeps every book's sales totals from topic `book-sales` in the store book-totals (and the
// compacted topic book-totals), as a Streams app on the embedded log or Kafka; with
// --serve HOST:PORT it answers queries over HTTP there. Flags: see examples/common.
#include "app_runner.h"
#include "book_sales.h"

int main(int argc, char** argv) {
  return examples::run_app(book_sales::build_topology, "book-sales", argc, argv);
}
