// StreamsConfig: the typed form of a Streams configuration map (keys in include/brook/streams.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "backend/embedded/embedded_log.h"
#include "brook/error_handling.h"
#include "brook/internal/topology_data.h"
#include "brook/status.h"

namespace brook::internal {

struct StreamsConfig {
  std::string application_id;
  std::string data_dir = "./brook-data";
  int num_threads = 1;
  // num.standby.replicas: standby copies of each task's persistent stores on other instances
  // (Kafka only: the embedded log runs in one process).
  int num_standby_replicas = 0;
  // max.warmup.replicas and acceptable.recovery.lag (Kafka Streams' names and defaults): an
  // instance joining a group first warms up the stores of this many of the tasks it will get
  // at a time, and joins once each is within this many changelog records of its end (0
  // warm-ups: it joins at once). Kafka only.
  int max_warmup_replicas = 2;
  std::int64_t acceptable_recovery_lag = 10'000;
  bool exactly_once = false;
  std::chrono::milliseconds commit_interval{30'000};
  std::chrono::milliseconds poll{100};
  std::size_t max_poll_records = 1000;
  // max.task.idle.ms; unset (-1): tasks never wait for an empty input (TaskConfig::input_wait).
  std::optional<std::chrono::milliseconds> max_task_idle = std::chrono::milliseconds(0);
  std::size_t buffered_records_per_partition = 1000;
  ErrorHandling errors;
  bool fsync = false;
  std::string state_dir;                                 // default <data_dir>/state
  std::size_t cache_max_bytes = 10 * 1024 * 1024;        // record caches of all threads together
  std::size_t rocksdb_memory_bytes = 256 * 1024 * 1024;  // block cache + memtables, all stores
  // windowstore.changelog.additional.retention.ms: how much longer than their store a window or
  // session store's changelog keeps records (Kafka Streams' name and default, 1 day).
  std::chrono::milliseconds changelog_extra_retention{24 * 60 * 60 * 1000};
  bool debug_metrics = false;  // metrics.recording.level DEBUG (or TRACE): store latencies too
  // stream.time.idle.advance.ms; unset: off (TaskConfig::idle_advance).
  std::optional<std::chrono::milliseconds> stream_time_idle_advance;
  // Kafka backend (empty bootstrap_servers: the embedded log).
  std::string bootstrap_servers;
  std::string group_instance_id;                      // static membership; also names producers
  std::map<std::string, std::string> kafka;           // kafka.* settings, for every client
  std::map<std::string, std::string> kafka_producer;  // producer.*
  // producer.batch.size and producer.linger.ms, for the embedded log's producers (Kafka's take
  // them from kafka_producer).
  ProducerBatching batching;
  std::map<std::string, std::string> kafka_consumer;  // consumer.*
  // task.timeout.ms: how long a Kafka call failing for a while is tried again (KafkaOptions).
  std::chrono::milliseconds task_timeout{300'000};
  // application.server: host:port this instance serves interactive queries on (empty: none).
  std::string application_server;
  // topology.optimization, if given: what the topology must have been built with.
  std::optional<Optimizations> optimizations;
  std::map<std::string, std::string> serve;  // serve.* settings, read by the serve layer
  // Set by Streams::start(), not parsed: what tells this instance's transactional producers
  // from those of other instances of the application (empty on the embedded log).
  std::string process_id;
};

// What the consumers of this instance's stream threads are named by ("<application.id>-<process
// id>", Kafka Streams' client id; the application id alone on the embedded log): their client
// ids are "<instance name>-StreamThread-<n>".
std::string instance_name(const StreamsConfig& config);
// The client id of stream thread `thread`'s clients.
std::string thread_client_id(const StreamsConfig& config, int thread);
// The group.instance.id of stream thread `thread`'s consumer: "<group.instance.id>-<thread>",
// or empty without static membership.
std::string thread_group_instance_id(const StreamsConfig& config, int thread);
// The instance name in a stream thread's client id.
std::string instance_of_client(std::string_view client_id);

// Every unknown key and bad value is reported, all in one Status.
Result<StreamsConfig> parse_streams_config(const std::map<std::string, std::string>& config);

}  // namespace brook::internal
