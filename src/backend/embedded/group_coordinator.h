// GroupCoordinator: consumer-group membership and partition assignment for the embedded log.
//
// Members of a group subscribe to topics; on every join or leave the coordinator computes a
// new range assignment of partition *numbers* over the members sorted by client id: member i
// gets partition p of every topic it reads when p falls in its range. So all partitions with
// one number (the inputs of one task) land on one member. Hand-over is cooperative: a member first
// gives up the partitions it is losing; it receives new ones only once every member has given up
// theirs, so no partition is ever owned by two members. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backend/log_backend.h"

namespace brook::internal {

class GroupCoordinator {
 public:
  // What a member owning some partitions must give up in the current generation.
  struct Revocation {
    std::uint64_t generation = 0;
    std::vector<TopicPartition> revoked;
  };
  // Partition counts of the subscribed topics, read when an assignment is computed.
  using PartitionCounts = std::function<std::int32_t(const std::string& topic)>;

  explicit GroupCoordinator(PartitionCounts counts) : counts_(std::move(counts)) {}

  // Adds a member and returns its id.
  std::uint64_t join(const std::string& group, const std::string& client_id,
                     std::vector<std::string> topics);
  void leave(const std::string& group, std::uint64_t member);
  // The group's members with the partitions of the current generation; rebalancing until
  // every member has given up what it loses.
  GroupDescription describe(const std::string& group);
  // The groups with members, sorted.
  std::vector<std::string> groups();

  // Step 1 of each poll: what `member`, owning `owned`, must give up.
  Revocation to_revoke(const std::string& group, std::uint64_t member,
                       const std::vector<TopicPartition>& owned);
  // Step 2, once the member has given those up (committed and closed them): records that,
  // waits up to `timeout` for every other member to do the same, and returns the partitions
  // to add. nullopt if that did not happen in time or the generation moved on: poll again.
  std::optional<std::vector<TopicPartition>> to_assign(const std::string& group,
                                                       std::uint64_t member,
                                                       std::uint64_t generation,
                                                       const std::vector<TopicPartition>& owned,
                                                       std::chrono::milliseconds timeout);

 private:
  struct Member {
    std::string client_id;
    std::vector<std::string> topics;
    std::vector<TopicPartition> target;  // the member's partitions in the current generation
    bool revoked = false;                // has given up what it loses in this generation
  };
  struct Group {
    std::uint64_t generation = 0;
    std::map<std::uint64_t, Member> members;
  };

  void rebalance(Group& group);
  static bool all_revoked(const Group& group);

  PartitionCounts counts_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, Group> groups_;
  std::uint64_t next_member_ = 1;
};

}  // namespace brook::internal
