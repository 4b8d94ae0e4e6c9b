// Builds a one-filter topology against the installed Brook and checks it with the test
// driver. Exits 0 if the output is exactly the one record that passes the filter and the
// process runs on the allocator the installed Brook announces (Brook_MALLOC).
#include <dlfcn.h>

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
  // jemalloc replaces the C library's malloc; "system" keeps it (or the sanitizers' own).
  Dl_info info{};
  const std::string provider =
      dladdr(dlsym(RTLD_DEFAULT, "malloc"), &info) != 0 && info.dli_fname ? info.dli_fname : "";
  const std::string expected = BROOK_MALLOC_EXPECTED;
  const bool jemalloc = provider.find("libjemalloc") != std::string::npos;
  if (jemalloc != (expected == "jemalloc")) {
    std::fprintf(stderr, "consumer: malloc comes from '%s', Brook_MALLOC is '%s'\n",
                 provider.c_str(), expected.c_str());
    return 1;
  }
  std::puts("consumer: OK");
  return 0;
}
