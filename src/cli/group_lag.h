// A consumer group's committed offsets beside the ends of their partitions: what
// `brook groups describe` and `brook app describe` print.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend/log_backend.h"

namespace brook::cli {

struct PartitionLag {
  internal::TopicPartition partition;
  Offset committed;
  std::optional<Offset> end;  // nullopt: the topic no longer exists

  // end - committed; nullopt without an end.
  std::optional<std::int64_t> lag() const;
};

// Every partition `group` has committed an offset for, sorted, with its end (the end
// read_committed consumers reach).
Result<std::vector<PartitionLag>> group_lag(internal::LogBackend& log, const std::string& group);

// The sum of the lags that are known.
std::int64_t total_lag(const std::vector<PartitionLag>& lags);

// One line per partition, indented by a tab, fields tab-separated:
//   "\tTopic: words\tPartition: 0\tCommitted: 10\tEnd: 12\tLag: 2" ("End: -\tLag: -" for a
// deleted topic).
void print_lag(const std::vector<PartitionLag>& lags);

// Each member as "client-id@host" (the client id alone without a host).
std::vector<std::string> member_names(const std::vector<internal::GroupMember>& members);
// "none" or "2: a@host, b@host": a group's active members.
std::string members_text(const std::vector<internal::GroupMember>& members);

}  // namespace brook::cli
