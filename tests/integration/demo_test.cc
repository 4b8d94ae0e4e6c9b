// `brook-demo` (tools/demo), the main demo, run as users run it.
#include <gmock/gmock.h>

#include <filesystem>
#include <string>
#include <vector>

#include "run_process.h"
#include "scratch_dir.h"

namespace brook::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class DemoTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(work_.path()); }

  // Runs `brook-demo args...`; waits for it to exit.
  ProcessResult demo(std::vector<std::string> args) {
    args.insert(args.begin(), BROOK_DEMO_PATH);
    return run_process(args, "", work_.path());
  }

  ScratchDir work_{"brook-demo-test"};
};

// The whole demo: every example runs as a Streams application and every check passes.
TEST_F(DemoTest, RunsEveryExampleAndItsResultsCheckOut) {
  auto r = demo({"--data-dir", (work_.path() / "data").string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("-> nothing lost"));
  EXPECT_THAT(r.out, HasSubstr("stock-stats            42 keys, each equal to the recomputation"));
  EXPECT_THAT(r.out, HasSubstr("stock-moving-average 1855 keys, each equal to the recomputation"));
  EXPECT_THAT(r.out, HasSubstr("top-gainers             3 keys, each equal to the recomputation"));
  EXPECT_THAT(r.out, HasSubstr("day statistics, moving averages and top gainers -> as recomputed"));
  EXPECT_THAT(r.out, HasSubstr("dropped-records-total   12: the 12 readings from 3 weeks ago"));
  EXPECT_THAT(r.out, HasSubstr("<- written before the phone went offline"));
  EXPECT_THAT(r.out, HasSubstr("hourly statistics, final results, drops -> as recomputed"));
  EXPECT_THAT(r.out, HasSubstr("top-clicked-results     6 keys, each equal to the recomputation"));
  EXPECT_THAT(r.out, HasSubstr("most-clicked results per query -> as recomputed"));
  EXPECT_THAT(r.out, HasSubstr("/page-5 -> u05 {\"age\":25"));    // before the profile update
  EXPECT_THAT(r.out, HasSubstr("/page-165 -> u05 {\"age\":26"));  // after it
  EXPECT_THAT(r.out, HasSubstr("clicks enriched with their profiles -> as expected"));
  EXPECT_THAT(r.out, HasSubstr("orders enriched with their customers -> as recomputed"));
}

TEST_F(DemoTest, HelpPrintsUsageAndABadArgumentIsAUsageError) {
  auto help = demo({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, StartsWith("usage: brook-demo [--data-dir DIR]"));
  auto bad = demo({"--bogus"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, StartsWith("brook-demo: unknown argument '--bogus'\nusage: brook-demo"));
  EXPECT_EQ(bad.out, "");
}

}  // namespace
}  // namespace brook::testing
