#include "runtime/streams_config.h"

#include <fmt/format.h>

#include <functional>
#include <vector>

#include "core/host_port.h"
#include "core/text_numbers.h"
#include "runtime/stream_task.h"

namespace brook::internal {
namespace {

Result<ErrorAction> to_action(const std::string& key, const std::string& value) {
  if (value == "fail") return ErrorAction::kFail;
  if (value == "log-and-continue") return ErrorAction::kLogAndContinue;
  if (value == "dead-letter") return ErrorAction::kDeadLetter;
  return error(Status::invalid_argument(
      fmt::format("{}: '{}' is not fail, log-and-continue or dead-letter", key, value)));
}

}  // namespace

Result<StreamsConfig> parse_streams_config(const std::map<std::string, std::string>& map) {
  StreamsConfig config;
  std::vector<std::string> errors;
  auto integer = [&](const std::string& key, const std::string& value, std::int64_t min,
                     const std::function<void(std::int64_t)>& set) {
    auto v = parse_integer_in(key, value, min);
    if (v) {
      set(*v);
    } else {
      errors.push_back(v.error().message());
    }
  };
  bool commit_interval_set = false;
  for (const auto& [key, value] : map) {
    if (key == "application.id") {
      config.application_id = value;
    } else if (key == "data.dir") {
      config.data_dir = value;
    } else if (key == "num.stream.threads") {
      integer(key, value, 1, [&](auto v) { config.num_threads = static_cast<int>(v); });
    } else if (key == "num.standby.replicas") {
      integer(key, value, 0, [&](auto v) { config.num_standby_replicas = static_cast<int>(v); });
    } else if (key == "max.warmup.replicas") {
      integer(key, value, 0, [&](auto v) { config.max_warmup_replicas = static_cast<int>(v); });
    } else if (key == "acceptable.recovery.lag") {
      integer(key, value, 0, [&](auto v) { config.acceptable_recovery_lag = v; });
    } else if (key == "processing.guarantee") {
      if (value == "at_least_once" || value == "exactly_once_v2") {
        config.exactly_once = value == "exactly_once_v2";
      } else {
        errors.push_back(fmt::format(
            "processing.guarantee: '{}' is not at_least_once or exactly_once_v2", value));
      }
    } else if (key == "commit.interval.ms") {
      commit_interval_set = true;
      integer(key, value, 0,
              [&](auto v) { config.commit_interval = std::chrono::milliseconds(v); });
    } else if (key == "task.timeout.ms") {
      integer(key, value, 0, [&](auto v) { config.task_timeout = std::chrono::milliseconds(v); });
    } else if (key == "poll.ms") {
      integer(key, value, 0, [&](auto v) { config.poll = std::chrono::milliseconds(v); });
    } else if (key == "max.poll.records") {
      integer(key, value, 1,
              [&](auto v) { config.max_poll_records = static_cast<std::size_t>(v); });
    } else if (key == "max.task.idle.ms") {
      integer(key, value, -1, [&](auto v) {
        config.max_task_idle =
            v < 0 ? std::nullopt
                  : std::optional<std::chrono::milliseconds>(std::chrono::milliseconds(v));
      });
    } else if (key == "buffered.records.per.partition") {
      integer(key, value, 1,
              [&](auto v) { config.buffered_records_per_partition = static_cast<std::size_t>(v); });
    } else if (key == "default.deserialization.exception.handler" ||
               key == "processing.exception.handler" ||
               key == "default.production.exception.handler") {
      auto action = to_action(key, value);
      if (!action) {
        errors.push_back(action.error().message());
      } else if (key == "processing.exception.handler") {
        config.errors.on_processing_error = *action;
      } else if (key == "default.production.exception.handler") {
        config.errors.on_production_error = *action;
      } else {
        config.errors.on_deserialization_error = *action;
      }
    } else if (key == "errors.dead.letter.queue.topic.name") {
      config.errors.dead_letter_topic = value;
    } else if (key == "log.fsync") {
      if (value != "true" && value != "false") {
        errors.push_back(fmt::format("log.fsync: '{}' is not true or false", value));
      }
      config.fsync = value == "true";
    } else if (key == "state.dir") {
      config.state_dir = value;
    } else if (key == "statestore.cache.max.bytes") {
      integer(key, value, 0, [&](auto v) { config.cache_max_bytes = static_cast<std::size_t>(v); });
    } else if (key == "rocksdb.memory.max.bytes") {
      integer(key, value, 1 << 20,
              [&](auto v) { config.rocksdb_memory_bytes = static_cast<std::size_t>(v); });
    } else if (key == "windowstore.changelog.additional.retention.ms") {
      integer(key, value, 0,
              [&](auto v) { config.changelog_extra_retention = std::chrono::milliseconds(v); });
    } else if (key == "metrics.recording.level") {
      if (value != "INFO" && value != "DEBUG" && value != "TRACE") {
        errors.push_back(
            fmt::format("metrics.recording.level: '{}' is not INFO, DEBUG or TRACE", value));
      }
      config.debug_metrics = value == "DEBUG" || value == "TRACE";
    } else if (key == "stream.time.idle.advance.ms") {
      integer(key, value, 0,
              [&](auto v) { config.stream_time_idle_advance = std::chrono::milliseconds(v); });
    } else if (key == "topology.optimization") {
      auto optimizations = parse_optimizations(value);
      if (optimizations) {
        config.optimizations = *optimizations;
      } else {
        errors.push_back(optimizations.error().message());
      }
    } else if (key == "bootstrap.servers") {
      config.bootstrap_servers = value;
    } else if (key == "group.instance.id") {
      config.group_instance_id = value;
    } else if (key == "application.server") {
      if (!host_and_port(value, 1)) {
        errors.push_back(fmt::format(
            "application.server: '{}' is not host:port (a port from 1 to 65535)", value));
      }
      config.application_server = value;
    } else if (key.starts_with("serve.")) {
      config.serve[key] = value;
    } else if (key.starts_with("kafka.")) {
      config.kafka[key.substr(6)] = value;
    } else if (key.starts_with("producer.")) {
      config.kafka_producer[key.substr(9)] = value;
      if (key == "producer.batch.size") {
        integer(key, value, 1, [&](auto v) { config.batching.batch_bytes = v; });
      } else if (key == "producer.linger.ms") {
        integer(key, value, 0,
                [&](auto v) { config.batching.linger = std::chrono::milliseconds(v); });
      }
    } else if (key.starts_with("consumer.")) {
      config.kafka_consumer[key.substr(9)] = value;
    } else {
      errors.push_back(fmt::format("unknown configuration key '{}'", key));
    }
  }
  if (config.state_dir.empty()) config.state_dir = config.data_dir + "/state";
  if (config.application_id.empty()) {
    errors.push_back("application.id is required");
  }
  if (!commit_interval_set && config.exactly_once) {
    config.commit_interval = std::chrono::milliseconds(100);
  }
  if (auto s = validate(config.errors); !s.ok()) errors.push_back(s.message());
  if (!errors.empty()) {
    return error(Status::invalid_argument(
        fmt::format("invalid configuration:\n  - {}", fmt::join(errors, "\n  - "))));
  }
  return config;
}

std::string instance_name(const StreamsConfig& config) {
  if (config.process_id.empty()) return config.application_id;
  return config.application_id + "-" + config.process_id;
}

std::string thread_client_id(const StreamsConfig& config, int thread) {
  return fmt::format("{}-StreamThread-{}", instance_name(config), thread);
}

std::string thread_group_instance_id(const StreamsConfig& config, int thread) {
  if (config.group_instance_id.empty()) return "";
  return fmt::format("{}-{}", config.group_instance_id, thread);
}

std::string instance_of_client(std::string_view client_id) {
  return std::string(client_id.substr(0, client_id.rfind("-StreamThread-")));
}

}  // namespace brook::internal
