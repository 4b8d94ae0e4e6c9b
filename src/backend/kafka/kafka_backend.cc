#include "backend/kafka/kafka_backend.h"

#include <fmt/format.h>

#include "backend/kafka/kafka_clients.h"

namespace brook::internal {
namespace {

class KafkaBackend final : public LogBackend {
 public:
  KafkaBackend(KafkaClientSettings settings, std::unique_ptr<KafkaAdmin> admin)
      : settings_(std::move(settings)), admin_(std::move(admin)) {}
  Admin& admin() override { return *admin_; }
  Result<std::unique_ptr<Producer>> make_producer(const ProducerConfig& config) override {
    return KafkaProducer::open(settings_, config);
  }
  Result<std::unique_ptr<Consumer>> make_consumer(const ConsumerConfig& config) override {
    return KafkaConsumer::open(settings_, config);
  }

 private:
  KafkaClientSettings settings_;
  std::unique_ptr<KafkaAdmin> admin_;
};

}  // namespace

Result<std::unique_ptr<LogBackend>> open_kafka_backend(const KafkaOptions& options) {
  if (options.bootstrap_servers.empty()) {
    return error(Status::invalid_argument("bootstrap.servers is empty"));
  }
  KafkaClientSettings settings{.common = options.common,
                               .producer = options.producer,
                               .consumer = options.consumer,
                               .timeout = options.timeout,
                               .retry_timeout = options.retry_timeout};
  settings.common["bootstrap.servers"] = options.bootstrap_servers;
  auto admin = KafkaAdmin::open(settings);
  if (!admin) return error(admin.error());
  if (auto topics = (*admin)->list_topics(); !topics) {
    return error(Status::io_error(fmt::format(
        "cannot reach Kafka at {}: {}", options.bootstrap_servers, topics.error().message())));
  }
  return std::make_unique<KafkaBackend>(std::move(settings), std::move(*admin));
}

}  // namespace brook::internal
