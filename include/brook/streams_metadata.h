// Instance metadata: which instance of an application hosts which store partitions, so that
// a query for a key can be sent to the instance that owns it (Kafka Streams' StreamsMetadata,
// KeyQueryMetadata and LagInfo). From Streams::metadata_for_all_clients(),
// metadata_for_store(), query_metadata_for_key() and local_store_lags().
//
// An instance announces itself under its `application.server` (host:port); every instance
// of the application learns every other's announcements (docs/architecture.md). Plain values,
// copied out: they describe one moment and go stale with the next rebalance.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "brook/types.h"

namespace brook {

// One instance of the application.
struct StreamsMetadata {
  std::string server;  // its application.server, "host:port"; empty if it has none
  std::string state;   // its Streams::State as text: "RUNNING", "REBALANCING", ...
  bool local = false;  // this is the instance that answered
  // The partitions of each store whose active task runs there (restoring or not).
  std::map<std::string, std::vector<std::int32_t>> store_partitions;
  // The partitions of each store it keeps a standby replica of (num.standby.replicas).
  std::map<std::string, std::vector<std::int32_t>> standby_store_partitions;
  std::vector<TaskId> tasks;  // its active tasks
  friend bool operator==(const StreamsMetadata&, const StreamsMetadata&) = default;
};

// Where a key of a store lives.
struct KeyQueryMetadata {
  // application.server of the instance with the key's active task; empty if no instance has it
  // now but standby replicas of it are known (a rebalance is moving it).
  std::string active_server;
  bool local = false;  // that instance is this one
  // application.server of the instances keeping a standby replica of the key's partition, for
  // stale reads (StoreQueryOptions::allow_stale), this one first if it keeps one.
  std::vector<std::string> standby_servers;
  Partition partition;  // the key's partition of the store
  friend bool operator==(const KeyQueryMetadata&, const KeyQueryMetadata&) = default;
};

// How far one local store partition is behind its changelog.
struct LagInfo {
  std::int64_t current_offset = 0;  // changelog offset the store holds up to (restored/committed)
  std::int64_t end_offset = 0;      // the changelog's end
  std::int64_t lag = 0;             // end_offset - current_offset, at least 0
  bool restoring = false;           // its task restores it now
  bool standby = false;             // a standby replica's copy (num.standby.replicas)
  friend bool operator==(const LagInfo&, const LagInfo&) = default;
};

}  // namespace brook
