#include "app_runner.h"

#include <chrono>
#include <cstdio>
#include <string_view>
#include <thread>

namespace examples {
namespace {

int usage(const char* program, std::string_view problem) {
  std::fprintf(stderr,
               "%s: %.*s\nusage: %s [--data-dir DIR] [--threads N] [--exactly-once] "
               "[--until-idle]\n",
               program, static_cast<int>(problem.size()), problem.data(), program);
  return 2;
}

// Runs until the application has processed and committed everything in its input topics.
int run_until_idle(brook::Streams& app) {
  if (auto s = app.start(); !s.ok()) return brook::report(s);
  while (true) {
    if (app.state() == brook::Streams::State::kError) break;
    auto lag = app.lag();
    if (!lag) return brook::report(lag.error());
    if (*lag == 0) break;
    // The lag is read from committed offsets: poll it at the commit cadence.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  auto status = app.close();
  return status.ok() ? 0 : brook::report(status);
}

}  // namespace

int run_app(const brook::Topology& topology, const std::string& application_id, int argc,
            char** argv, std::map<std::string, std::string> config) {
  config["application.id"] = application_id;
  config.emplace("num.stream.threads", "2");
  bool until_idle = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--exactly-once") {
      config["processing.guarantee"] = "exactly_once_v2";
    } else if (arg == "--until-idle") {
      until_idle = true;
    } else if ((arg == "--data-dir" || arg == "--threads") && i + 1 < argc) {
      config[arg == "--data-dir" ? "data.dir" : "num.stream.threads"] = argv[++i];
    } else {
      return usage(argv[0], "unknown or incomplete argument '" + std::string(arg) + "'");
    }
  }
  // Idle is judged from committed offsets: commit often enough to notice it promptly.
  if (until_idle) config.emplace("commit.interval.ms", "100");
  brook::Streams app(topology, config);
  return until_idle ? run_until_idle(app) : app.run_until_signal();
}

}  // namespace examples
