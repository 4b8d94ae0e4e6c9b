#include "backend/embedded/group_coordinator.h"

#include <algorithm>

namespace brook::internal {

std::uint64_t GroupCoordinator::join(const std::string& group, const std::string& client_id,
                                     std::vector<std::string> topics) {
  std::lock_guard lock(mutex_);
  const std::uint64_t id = next_member_++;
  auto& g = groups_[group];
  g.members.emplace(id, Member{.client_id = client_id, .topics = std::move(topics)});
  rebalance(g);
  changed_.notify_all();
  return id;
}

void GroupCoordinator::leave(const std::string& group, std::uint64_t member) {
  std::lock_guard lock(mutex_);
  auto& g = groups_[group];
  g.members.erase(member);
  rebalance(g);
  changed_.notify_all();
}

GroupDescription GroupCoordinator::describe(const std::string& group) {
  std::lock_guard lock(mutex_);
  GroupDescription out;
  if (auto g = groups_.find(group); g != groups_.end()) {
    out.rebalancing = !all_revoked(g->second);
    for (const auto& [id, member] : g->second.members) {
      out.members.push_back({.member_id = std::to_string(id),
                             .client_id = member.client_id,
                             .assignment = member.target});
    }
  }
  return out;
}

std::vector<std::string> GroupCoordinator::groups() {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [name, group] : groups_) {
    if (!group.members.empty()) out.push_back(name);
  }
  return out;
}

void GroupCoordinator::rebalance(Group& group) {
  ++group.generation;
  std::vector<Member*> members;
  std::int32_t numbers = 0;  // partition numbers in use: the largest partition count
  for (auto& [id, m] : group.members) {
    m.target.clear();
    m.revoked = false;
    members.push_back(&m);
    for (const auto& topic : m.topics) numbers = std::max(numbers, counts_(topic));
  }
  std::stable_sort(members.begin(), members.end(),
                   [](const Member* a, const Member* b) { return a->client_id < b->client_id; });
  // Range assignment of partition numbers: every partition p of every topic goes to the member
  // owning number p, so co-partitioned topics stay aligned (each task sees all its inputs).
  const auto m = static_cast<std::int32_t>(members.size());
  for (std::int32_t i = 0; i < m; ++i) {
    const std::int32_t per = numbers / m, extra = numbers % m;
    const std::int32_t start = i * per + std::min(i, extra);
    const std::int32_t end = start + per + (i < extra ? 1 : 0);
    for (const auto& topic : members[i]->topics) {
      const std::int32_t count = counts_(topic);
      for (std::int32_t p = start; p < std::min(end, count); ++p) {
        members[i]->target.push_back({topic, Partition(p)});
      }
    }
  }
}

bool GroupCoordinator::all_revoked(const Group& group) {
  return std::all_of(group.members.begin(), group.members.end(),
                     [](const auto& entry) { return entry.second.revoked; });
}

GroupCoordinator::Revocation GroupCoordinator::to_revoke(const std::string& group,
                                                         std::uint64_t member,
                                                         const std::vector<TopicPartition>& owned) {
  std::lock_guard lock(mutex_);
  auto& g = groups_[group];
  auto it = g.members.find(member);
  if (it == g.members.end()) return {.generation = g.generation, .revoked = owned};
  Revocation revocation{.generation = g.generation};
  const auto& target = it->second.target;
  for (const auto& tp : owned) {
    if (std::find(target.begin(), target.end(), tp) == target.end()) {
      revocation.revoked.push_back(tp);
    }
  }
  return revocation;
}

std::optional<std::vector<TopicPartition>> GroupCoordinator::to_assign(
    const std::string& group, std::uint64_t member, std::uint64_t generation,
    const std::vector<TopicPartition>& owned, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  auto& g = groups_[group];
  auto it = g.members.find(member);
  if (it == g.members.end() || g.generation != generation) return std::nullopt;
  if (!it->second.revoked) {
    it->second.revoked = true;
    changed_.notify_all();
  }
  changed_.wait_for(lock, timeout, [&] { return g.generation != generation || all_revoked(g); });
  if (g.generation != generation || !all_revoked(g)) return std::nullopt;
  std::vector<TopicPartition> added;
  for (const auto& tp : it->second.target) {
    if (std::find(owned.begin(), owned.end(), tp) == owned.end()) added.push_back(tp);
  }
  return added;
}

}  // namespace brook::internal
