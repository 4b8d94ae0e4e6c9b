// The Prometheus text exposition format (version 0.0.4) of an application's metrics, under
// Kafka Streams' metric names (docs/metrics.md): kafka_streams_<group>_<name>, with the tags
// as labels, '-' turned into '_'.
#pragma once

#include <string>

#include "brook/streams.h"

namespace brook::internal {

// "kafka_streams_" + group + "_" + name, each '-' (and anything else Prometheus does not allow
// in a name) as '_'.
std::string prometheus_name(const MetricName& name);
// Every counter of app.metrics(), the application's state, the lag of each input partition
// and each local store's changelog lag and restoration.
std::string prometheus_text(const Streams& app);

}  // namespace brook::internal
