#include "app_runner.h"

#include <brook/serve.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <string_view>
#include <thread>

namespace examples {
namespace {

// The flags that take a value, and the config key each sets.
constexpr std::pair<std::string_view, const char*> kValueFlags[] = {
    {"--data-dir", "data.dir"},
    {"--bootstrap-servers", "bootstrap.servers"},
    {"--state-dir", "state.dir"},
    {"--group-instance-id", "group.instance.id"},
    {"--application-id", "application.id"},
    {"--threads", "num.stream.threads"},
    {"--serve", "application.server"},
};

int usage(const char* program, std::string_view problem) {
  std::fprintf(
      stderr,
      "%s: %.*s\nusage: %s [--data-dir DIR | --bootstrap-servers HOST:PORT[,...]] "
      "[--state-dir DIR] [--group-instance-id ID] [--application-id ID] [--threads N] "
      "[--serve HOST:PORT] [--config KEY=VALUE]... [--exactly-once] [--until-idle | --describe]\n",
      program, static_cast<int>(problem.size()), problem.data(), program);
  return 2;
}

// The config key a value flag sets, or nullptr if `arg` is not one.
const char* config_key_of(std::string_view arg) {
  for (const auto& [flag, key] : kValueFlags) {
    if (arg == flag) return key;
  }
  return nullptr;
}

}  // namespace

int run_app(const BuildTopology& build, const std::string& application_id, int argc, char** argv,
            AppOptions options) {
  auto& config = options.config;
  config["application.id"] = application_id;
  config.emplace("num.stream.threads", "2");
  bool until_idle = false;
  bool describe = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--exactly-once") {
      config["processing.guarantee"] = "exactly_once_v2";
    } else if (arg == "--until-idle") {
      until_idle = true;
    } else if (arg == "--describe") {
      describe = true;
    } else if (arg == "--config" && i + 1 < argc) {
      const std::string_view setting = argv[++i];
      const auto equals = setting.find('=');
      if (equals == std::string_view::npos || equals == 0) {
        return usage(argv[0], "--config takes KEY=VALUE, not '" + std::string(setting) + "'");
      }
      config[std::string(setting.substr(0, equals))] = setting.substr(equals + 1);
    } else if (const char* key = config_key_of(arg); key != nullptr && i + 1 < argc) {
      config[key] = argv[++i];
    } else {
      return usage(argv[0], "unknown or incomplete argument '" + std::string(arg) + "'");
    }
  }
  if (config.contains("data.dir") && config.contains("bootstrap.servers")) {
    return usage(argv[0], "--data-dir and --bootstrap-servers name two logs: give one");
  }
  if (describe && until_idle) return usage(argv[0], "--until-idle and --describe: give one");
  const auto topology = build(config);
  if (!topology) return brook::report(topology.error());
  if (describe) {
    std::fputs(topology->describe().c_str(), stdout);
    return 0;
  }
  // Idle is judged from committed offsets: commit often enough to notice it promptly.
  if (until_idle) config.emplace("commit.interval.ms", "100");
  brook::Streams app(*topology, config);
  int code = 0;
  std::unique_ptr<brook::Server> server;
  std::jthread beside;
  std::atomic<bool> beside_failed = false;
  if (config.contains("application.server") || options.beside) {
    // Started here, before run_until_signal(): the threads started here must not take the
    // signals it waits for.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    if (auto s = app.start(); !s.ok()) return brook::report(s);
  }
  if (options.beside) {
    beside = std::jthread([&](std::stop_token stop) {
      if (auto s = options.beside(app, stop); !s.ok()) {
        brook::report(s);
        beside_failed = true;
        kill(getpid(), SIGTERM);  // run_until_signal() closes the application
      }
    });
  }
  if (config.contains("application.server")) {
    auto served = brook::serve(app);
    if (!served) {
      (void)app.close();
      return brook::report(served.error());
    }
    server = std::move(*served);
    std::fprintf(stderr, "%s: serving on http://127.0.0.1:%d/\n", argv[0], server->port());
  }
  if (!until_idle) {
    code = app.run_until_signal();
  } else if (auto s = app.run_until_idle(); !s.ok()) {
    code = brook::report(s);
  } else {
    std::printf("dropped-records-total: %lld\n",
                static_cast<long long>(app.metrics().total("dropped-records-total")));
  }
  if (server) server->stop();
  if (beside.joinable()) {
    beside.request_stop();
    beside.join();
    if (beside_failed && code == 0) code = 1;
  }
  if (options.after_run) options.after_run(app);
  return code;
}

}  // namespace examples
