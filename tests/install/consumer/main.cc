// Builds a one-filter topology against the installed Brook and checks it with the test
// driver. Exits 0 if the output is exactly the one record that passes the filter.
#include <cstdio>
#include <string>

#include "brook/streams_builder.h"
#include "brook/testing/topology_test_driver.h"

int main() {
  brook::StreamsBuilder builder;
  builder.stream<std::string, std::string>("in")
      .filter([](const std::string&, const std::string& v) { return v.starts_with("ERROR"); })
      .to("out");
  auto topology = builder.build();
  if (!topology) return brook::report(topology.error());

  brook::testing::TopologyTestDriver driver(*topology);
  auto in = driver.create_input_topic<std::string, std::string>("in");
  auto out = driver.create_output_topic<std::string, std::string>("out");
  in.pipe_input("a", "ERROR disk full");
  in.pipe_input("b", "INFO started");

  auto records = out.read_key_values_to_list();
  if (records.size() != 1 || records[0].key != "a" || records[0].value != "ERROR disk full") {
    std::fprintf(stderr, "consumer: unexpected output (%zu records)\n", records.size());
    return 1;
  }
  std::puts("consumer: OK");
  return 0;
}
