#include "runtime/standby_placement.h"

#include <algorithm>
#include <set>

namespace brook::internal {
namespace {

// The members in the order the range assignor ranks them.
std::vector<const GroupMember*> ranked(const std::vector<GroupMember>& members) {
  std::vector<const GroupMember*> out;
  for (const auto& member : members) out.push_back(&member);
  const bool all_static = std::all_of(members.begin(), members.end(), [](const GroupMember& m) {
    return !m.group_instance_id.empty();
  });
  std::sort(out.begin(), out.end(), [&](const GroupMember* a, const GroupMember* b) {
    return all_static ? a->group_instance_id < b->group_instance_id : a->member_id < b->member_id;
  });
  return out;
}

// Which of `members` consumers the range assignment of a topic of `partitions` partitions
// gives `partition`.
std::size_t range_owner(std::size_t members, std::int32_t partitions, std::int32_t partition) {
  const auto m = static_cast<std::int32_t>(members);
  const std::int32_t per = partitions / m, extra = partitions % m;
  // The first `extra` members hold per + 1 partitions, the others per.
  const std::int32_t long_ranges = extra * (per + 1);
  if (partition < long_ranges) return static_cast<std::size_t>(partition / (per + 1));
  return static_cast<std::size_t>(extra + (partition - long_ranges) / per);
}

// The partition count of each topic, as far as the members' assignments show.
std::map<std::string, std::int32_t> partition_counts(const std::vector<GroupMember>& members) {
  std::map<std::string, std::int32_t> out;
  for (const auto& member : members) {
    for (const auto& tp : member.assignment) {
      auto& count = out[tp.topic];
      count = std::max(count, tp.partition.value() + 1);
    }
  }
  return out;
}

}  // namespace

std::set<TaskId> tasks_after_join(const std::vector<GroupMember>& members,
                                  const std::vector<GroupMember>& joining,
                                  const std::string& instance, const TaskOfPartition& task_of,
                                  const InstanceOfMember& instance_of) {
  std::vector<GroupMember> all;
  for (const auto& member : members) {
    if (instance_of(member) != instance) all.push_back(member);
  }
  all.insert(all.end(), joining.begin(), joining.end());
  const auto order = ranked(all);
  std::set<TaskId> out;
  for (const auto& [topic, count] : partition_counts(members)) {
    for (std::int32_t p = 0; p < count; ++p) {
      const auto task = task_of({topic, Partition(p)});
      if (task && instance_of(*order[range_owner(order.size(), count, p)]) == instance) {
        out.insert(*task);
      }
    }
  }
  return out;
}

std::map<TaskId, std::vector<std::string>> place_standbys(const std::vector<GroupMember>& members,
                                                          int replicas,
                                                          const TaskOfPartition& task_of,
                                                          const InstanceOfMember& instance_of) {
  const auto order = ranked(members);
  const auto counts = partition_counts(members);
  struct Active {
    TopicPartition partition;  // one of the task's inputs
    std::string instance;
  };
  std::map<TaskId, Active> active;
  for (const GroupMember* member : order) {
    for (const auto& tp : member->assignment) {
      if (auto task = task_of(tp)) active.try_emplace(*task, Active{tp, instance_of(*member)});
    }
  }
  std::map<TaskId, std::vector<std::string>> out;
  for (const auto& [task, owner] : active) {
    std::set<std::string> failed{owner.instance};
    auto& standbys = out[task];
    while (static_cast<int>(standbys.size()) < replicas) {
      std::vector<const GroupMember*> survivors;
      for (const GroupMember* member : order) {
        if (!failed.contains(instance_of(*member))) survivors.push_back(member);
      }
      if (survivors.empty()) break;
      const auto next = range_owner(survivors.size(), counts.at(owner.partition.topic),
                                    owner.partition.partition.value());
      const std::string instance = instance_of(*survivors[next]);
      standbys.push_back(instance);
      failed.insert(instance);
    }
  }
  return out;
}

}  // namespace brook::internal
