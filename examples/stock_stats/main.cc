// Computes daily statistics per stock symbol from the trades in topic `trades` into the
// compacted topic stock-stats, and a moving average per symbol over hopping windows into the
// compacted topic stock-moving-average, as a Streams app on the embedded log or Kafka. Flags:
//   --average-window-minutes N  the moving average's window size (default 60; at least 10:
//                               a window starts every 10 minutes)
//   --output-suffix S           write to stock-stats<S> and stock-moving-average<S> instead
//                               (a second version beside the first, with --application-id)
// and those of examples/common.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <string_view>
#include <vector>

#include "app_runner.h"
#include "stock_stats.h"

int main(int argc, char** argv) {
  using std::chrono::minutes;
  const minutes shortest = std::chrono::duration_cast<minutes>(stock_stats::kAverageAdvance);
  stock_stats::Options options;
  // This example's flags; the rest are the application's.
  std::vector<char*> app_args = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--average-window-minutes" && i + 1 < argc) {
      const std::string_view value = argv[++i];
      int count = 0;  // minutes: up to 4000 years, far within milliseconds' range
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), count);
      if (error != std::errc() || end != value.data() + value.size() || minutes(count) < shortest) {
        std::fprintf(stderr,
                     "%s: --average-window-minutes takes a whole number of minutes, at least %lld "
                     "(a window starts every %lld minutes), not '%s'\n",
                     argv[0], static_cast<long long>(shortest.count()),
                     static_cast<long long>(shortest.count()), argv[i]);
        return 2;
      }
      options.average_window = minutes(count);
    } else if (arg == "--output-suffix" && i + 1 < argc) {
      options.output_suffix = argv[++i];
    } else {
      app_args.push_back(argv[i]);
    }
  }
  return examples::run_app(
      [&](const auto& config) { return stock_stats::build_topology(options, config); },
      "stock-stats", static_cast<int>(app_args.size()), app_args.data());
}
