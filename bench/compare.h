// Runs the registered Google Benchmarks, then prints for each case Brook's records/s next to
// its baseline's and their ratio, all measured in the same run (DESIGN.md: Conventions).
//
// Naming convention: BM_Brook<Case> is paired with BM_Baseline<Case>; both call
// state.SetItemsProcessed(records). A case <Case>_<Variant> with one side only borrows the
// other side from <Case>: one Brook run against several baselines (BM_Baseline<Case>_App) or
// several Brook configurations against one baseline (BM_Brook<Case>_NoCache). Otherwise a
// case missing one side shows "-" for it.
//
//   int main(int argc, char** argv) { return brook::bench::run_and_compare(argc, argv); }
#pragma once

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace brook::bench {

// The console reporter, which also remembers items_per_second of each BM_Brook*/BM_Baseline*
// benchmark: the median of its repetitions, or its only run without repetitions.
class ComparingReporter : public benchmark::ConsoleReporter {
 public:
  ComparingReporter() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_Color : OO_None) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const bool usable = run.run_type == Run::RT_Iteration || run.aggregate_name == "median";
      const auto rate = run.counters.find("items_per_second");
      failed_ |= run.error_occurred;
      if (run.error_occurred || !usable || rate == run.counters.end()) continue;
      std::string name = run.run_name.function_name;
      if (!run.run_name.args.empty()) name += "/" + run.run_name.args;
      if (name.starts_with(kBrook)) {
        rates_of(name.substr(kBrook.size()), run.family_index).brook = rate->second.value;
      } else if (name.starts_with(kBaseline)) {
        rates_of(name.substr(kBaseline.size()), run.family_index).baseline = rate->second.value;
      }
    }
  }

  // Whether a benchmark reported an error (State::SkipWithError).
  bool failed() const { return failed_; }

  // Prints "case | brook rec/s | baseline rec/s | ratio (brook/baseline)", in the order the
  // benchmarks were registered.
  void print_comparison(std::ostream& out) const {
    out << '\n' << line("case", "brook rec/s", "baseline rec/s", "ratio (brook/baseline)");
    out << std::string(82, '-') << '\n';
    std::vector<std::pair<std::string, Rates>> cases(cases_.begin(), cases_.end());
    std::stable_sort(cases.begin(), cases.end(), [](const auto& a, const auto& b) {
      return a.second.first_family < b.second.first_family;
    });
    for (auto [name, rates] : cases) {
      if (auto base = cases_.find(name.substr(0, name.find('_'))); base != cases_.end()) {
        if (rates.brook <= 0) rates.brook = base->second.brook;
        if (rates.baseline <= 0) rates.baseline = base->second.baseline;
      }
      const bool both = rates.brook > 0 && rates.baseline > 0;
      out << line(name, human(rates.brook), human(rates.baseline),
                  both ? format("%.2f", rates.brook / rates.baseline) : "-");
    }
    out.flush();
  }

 private:
  static constexpr std::string_view kBrook = "BM_Brook";
  static constexpr std::string_view kBaseline = "BM_Baseline";

  struct Rates {
    std::int64_t first_family = 0;  // registration order of the case's first benchmark
    double brook = 0;
    double baseline = 0;
  };

  Rates& rates_of(const std::string& name, std::int64_t family) {
    Rates& rates = cases_.try_emplace(name, Rates{.first_family = family}).first->second;
    rates.first_family = std::min(rates.first_family, family);
    return rates;
  }

  static std::string line(const std::string& name, const std::string& brook,
                          const std::string& baseline, const std::string& ratio) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%-26s | %14s | %14s | %s\n", name.c_str(), brook.c_str(),
                  baseline.c_str(), ratio.c_str());
    return buf;
  }
  static std::string format(const char* fmt, double value) {
    char buf[32];
    std::snprintf(buf, sizeof buf, fmt, value);
    return buf;
  }
  // 12345678 -> "12.35M".
  static std::string human(double rate) {
    if (rate <= 0) return "-";
    if (rate >= 1e9) return format("%.2fG", rate / 1e9);
    if (rate >= 1e6) return format("%.2fM", rate / 1e6);
    if (rate >= 1e3) return format("%.2fk", rate / 1e3);
    return format("%.0f", rate);
  }

  std::map<std::string, Rates> cases_;
  bool failed_ = false;
};

// Flags used unless the command line sets them: short repetitions, interleaved in random
// order so that a change of machine load affects Brook and baseline alike.
inline constexpr const char* kDefaultFlags[] = {
    "--benchmark_min_time=0.1",
    "--benchmark_repetitions=5",
    "--benchmark_enable_random_interleaving=true",
    "--benchmark_display_aggregates_only=true",
};

// Runs every selected benchmark through ComparingReporter and prints the comparison.
// `defaults`: the program's own default flags, in place of those of kDefaultFlags with the same
// name (e.g. fewer repetitions of a long benchmark); the command line overrides both.
// Returns 1 if a benchmark failed (or a flag is unknown), else 0.
inline int run_and_compare(int argc, char** argv, std::vector<std::string_view> defaults = {}) {
  std::vector<std::string> storage(argv, argv + argc);
  defaults.insert(defaults.end(), std::begin(kDefaultFlags), std::end(kDefaultFlags));
  for (std::string_view flag : defaults) {
    const auto name = flag.substr(0, flag.find('=') + 1);
    const bool given = std::any_of(storage.begin() + 1, storage.end(),
                                   [&](std::string_view arg) { return arg.starts_with(name); });
    if (!given) storage.insert(storage.begin() + 1, std::string(flag));
  }
  std::vector<char*> args;
  for (auto& arg : storage) args.push_back(arg.data());
  args.push_back(nullptr);
  int count = static_cast<int>(storage.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  ComparingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_comparison(reporter.GetOutputStream());
  benchmark::Shutdown();
  return reporter.failed() ? 1 : 0;
}

}  // namespace brook::bench
