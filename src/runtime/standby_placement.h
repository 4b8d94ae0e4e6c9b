// Standby placement: which instances keep a standby copy of each task's stores
// (num.standby.replicas). A standby pays off only where its task goes when the task's instance
// fails, and on Kafka that place is computable: the group assigns partitions with librdkafka's
// range assignor, per topic, over the members in a fixed order (by group.instance.id when every
// member has one, else by member id). So the first standby of a task is the instance that the
// range over the members of every other instance gives the task's partition; the k-th, the one
// it gives with the instances of the first k-1 standbys left out too. The same ranking tells a
// joining instance which tasks it will get, so that it can warm their stores up first. Pure:
// the caller describes the group.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backend/log_backend.h"

namespace brook::internal {

// The task reading `partition`, if any.
using TaskOfPartition = std::function<std::optional<TaskId>(const TopicPartition& partition)>;
// The application instance a member (one stream thread's consumer) belongs to.
using InstanceOfMember = std::function<std::string(const GroupMember& member)>;

// For each task assigned in `members`, up to `replicas` standby instances, first the one that
// takes the task over if its active instance fails. Fewer when there are fewer other
// instances; none for a task whose partitions no member holds.
std::map<TaskId, std::vector<std::string>> place_standbys(const std::vector<GroupMember>& members,
                                                          int replicas,
                                                          const TaskOfPartition& task_of,
                                                          const InstanceOfMember& instance_of);

// The tasks the range assignment gives instance `instance` once its members `joining` (member
// ids that sort as theirs will: the client id followed by the coordinator's suffix) join the
// group of `members`, replacing any of its members still there (a restart). Only tasks with
// partitions assigned now.
std::set<TaskId> tasks_after_join(const std::vector<GroupMember>& members,
                                  const std::vector<GroupMember>& joining,
                                  const std::string& instance, const TaskOfPartition& task_of,
                                  const InstanceOfMember& instance_of);

}  // namespace brook::internal
