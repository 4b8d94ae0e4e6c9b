// `brook-demo`: the main demo on the embedded log (see docs/quickstart.md).
#pragma once

namespace brook::demo {

// Creates topics in a fresh data dir, writes synthetic application logs and stock trades,
// runs every example that exists so far as a real Streams application until it has processed
// everything, and prints what each produced. Checks that no record was lost and that the final
// tables of stock_stats and top_gainers equal a recomputation from their input. Returns the
// process exit code: 1 if a check failed, 2 for a bad command line (--help: the usage, 0).
int run_demo(int argc, char** argv);

}  // namespace brook::demo
