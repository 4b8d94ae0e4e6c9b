// A user's application of 10 operators, as a translation unit whose compile time
// bench/compile_time.sh measures: the core headers an application includes, a chain of
// stateless operators of several types, a repartition, a count and a windowed aggregation.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "brook/kstream.h"
#include "brook/streams.h"
#include "brook/streams_builder.h"
#include "brook/windows.h"

int main() {
  using namespace std::chrono_literals;
  brook::StreamsBuilder builder;
  auto orders = builder.stream<std::string, std::int64_t>("orders");
  auto valid =
      orders.filter([](const std::string& k, std::int64_t v) { return !k.empty() && v > 0; })
          .map_values([](std::int64_t cents) { return static_cast<double>(cents) / 100; })
          .filter_not([](const std::string&, double amount) { return amount > 1e6; })
          .peek([](const std::string&, double) {})
          .select_key([](const std::string& k, double) { return k.substr(0, 3); })
          .map([](const std::string& region, double amount) {
            return brook::KeyValue<std::string, std::int64_t>{region,
                                                              static_cast<std::int64_t>(amount)};
          });
  valid.group_by_key().count({.name = "orders-per-region"}).to_stream().to("region-counts");
  valid.group_by_key()
      .windowed_by(brook::TimeWindows::of_size_and_grace(1min, 10s))
      .reduce([](std::int64_t a, std::int64_t b) { return a + b; }, {.name = "region-minutes"})
      .to_stream()
      .map([](const brook::Windowed<std::string>& w, const std::optional<std::int64_t>& total) {
        return brook::KeyValue<std::string, std::int64_t>{w.key, total.value_or(0)};
      })
      .to("region-minute-totals");
  auto topology = builder.build();
  if (!topology) return 1;
  brook::Streams app(*topology, std::map<std::string, std::string>{{"application.id", "orders"}});
  return app.start().ok() ? 0 : 1;
}
