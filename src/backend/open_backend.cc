#include "backend/open_backend.h"

namespace brook::internal {

Result<std::unique_ptr<LogBackend>> open_backend(const KafkaOptions& kafka,
                                                 const EmbeddedLogOptions& embedded) {
  if (!kafka.bootstrap_servers.empty()) return open_kafka_backend(kafka);
  auto log = open_embedded_log(embedded);
  if (!log) return error(std::move(log.error()));
  return std::unique_ptr<LogBackend>(std::move(*log));
}

}  // namespace brook::internal
