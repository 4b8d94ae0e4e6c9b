// Where an application's, a command's or a CDC source's records live: the one place that
// chooses the concrete backend.
#pragma once

#include <memory>

#include "backend/embedded/embedded_log.h"
#include "backend/kafka/kafka_backend.h"
#include "backend/log_backend.h"

namespace brook::internal {

// The Kafka cluster of `kafka` if it names one (bootstrap_servers), else the embedded log of
// `embedded`. Errors as open_kafka_backend() and open_embedded_log() report them.
Result<std::unique_ptr<LogBackend>> open_backend(const KafkaOptions& kafka,
                                                 const EmbeddedLogOptions& embedded);

}  // namespace brook::internal
