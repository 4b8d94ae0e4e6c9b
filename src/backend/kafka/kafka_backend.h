// The Kafka backend: Brook on an Apache Kafka cluster (or any Kafka-protocol broker) through
// librdkafka. Several instances of an application share its partitions in one consumer group.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "backend/log_backend.h"

namespace brook::internal {

struct KafkaOptions {
  std::string bootstrap_servers;  // host:port[,host:port...]
  // librdkafka settings (its names) for every client, for producers only, for consumers only.
  std::map<std::string, std::string> common;
  std::map<std::string, std::string> producer;
  std::map<std::string, std::string> consumer;
  // The longest a blocking call (admin request, flush, transaction step) may take.
  std::chrono::milliseconds timeout{30'000};
  // How long a call that fails for a while (a coordinator or partition leader moving, a broker
  // down, the cluster out of reach) is tried again before its error stands: a transaction
  // step, listing offsets, reading committed offsets. Kafka Streams' task.timeout.ms.
  std::chrono::milliseconds retry_timeout{300'000};
};

// Connects and checks that the cluster answers within the timeout: kIoError naming the
// bootstrap servers if not, kInvalidArgument naming a setting librdkafka refuses.
Result<std::unique_ptr<LogBackend>> open_kafka_backend(const KafkaOptions& options);

}  // namespace brook::internal
