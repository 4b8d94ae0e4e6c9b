#include "runtime/standby_placement.h"

#include <gtest/gtest.h>

namespace brook::internal {
namespace {

using Placement = std::map<TaskId, std::vector<std::string>>;

// A member of instance `instance` (thread `thread`), holding partitions `held` of topic "in".
GroupMember member(std::string id, std::string instance, std::vector<int> held, int thread = 0,
                   std::string static_id = "") {
  GroupMember m{.member_id = std::move(id),
                .client_id = instance + "-StreamThread-" + std::to_string(thread),
                .group_instance_id = std::move(static_id)};
  for (int p : held) m.assignment.push_back({"in", Partition(p)});
  return m;
}

Placement place(const std::vector<GroupMember>& members, int replicas) {
  return place_standbys(
      members, replicas,
      [](const TopicPartition& tp) -> std::optional<TaskId> {
        if (tp.topic != "in") return std::nullopt;
        return TaskId{0, tp.partition.value()};
      },
      [](const GroupMember& m) { return m.client_id.substr(0, m.client_id.find('-')); });
}

TEST(StandbyPlacement, TwoInstancesKeepEachOthersTasks) {
  EXPECT_EQ(place({member("m1", "a", {0, 1}), member("m2", "b", {2, 3})}, 1),
            (Placement{{{0, 0}, {"b"}}, {{0, 1}, {"b"}}, {{0, 2}, {"a"}}, {{0, 3}, {"a"}}}));
}

// Three instances, six partitions, ranked m1 < m2 < m3: a (0, 1), b (2, 3), c (4, 5). If c
// fails, the range over a and b gives 0-2 to a and 3-5 to b: c's tasks go to b. If b fails, a
// gets 0-2 and c 3-5: b's task 2 goes to a, task 3 to c.
TEST(StandbyPlacement, EachStandbyIsWhereTheRangeAssignorMovesTheTask) {
  const std::vector<GroupMember> members{member("m1", "a", {0, 1}), member("m2", "b", {2, 3}),
                                         member("m3", "c", {4, 5})};
  EXPECT_EQ(place(members, 1), (Placement{{{0, 0}, {"b"}},
                                          {{0, 1}, {"b"}},
                                          {{0, 2}, {"a"}},
                                          {{0, 3}, {"c"}},
                                          {{0, 4}, {"b"}},
                                          {{0, 5}, {"b"}}}));
  // The second standby: where the task goes once the first standby's instance fails too.
  const auto two = place(members, 2);
  EXPECT_EQ(two.at({0, 4}), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(two.at({0, 2}), (std::vector<std::string>{"a", "c"}));
  // No more standbys than other instances.
  EXPECT_EQ(place(members, 5).at({0, 0}).size(), 2u);
}

TEST(StandbyPlacement, MembersRankByMemberIdNotByListOrder) {
  // m3 ranks last whatever the order the group lists its members in.
  const std::vector<GroupMember> members{member("m3", "c", {4, 5}), member("m1", "a", {0, 1}),
                                         member("m2", "b", {2, 3})};
  EXPECT_EQ(place(members, 1).at({0, 3}), (std::vector<std::string>{"c"}));
}

TEST(StandbyPlacement, StaticMembersRankByGroupInstanceId) {
  // Member ids would rank c first; the group instance ids rank a, b, c.
  const std::vector<GroupMember> members{member("z", "a", {0, 1}, 0, "a-0"),
                                         member("y", "b", {2, 3}, 0, "b-0"),
                                         member("x", "c", {4, 5}, 0, "c-0")};
  EXPECT_EQ(place(members, 1).at({0, 3}), (std::vector<std::string>{"c"}));
}

TEST(StandbyPlacement, AnInstanceFailsWithAllItsThreads) {
  // a runs two threads; if a fails, b takes everything: no standby on a's other thread.
  const std::vector<GroupMember> members{member("m1", "a", {0}, 0), member("m2", "a", {1}, 1),
                                         member("m3", "b", {2})};
  EXPECT_EQ(place(members, 1), (Placement{{{0, 0}, {"b"}}, {{0, 1}, {"b"}}, {{0, 2}, {"a"}}}));
}

TEST(StandbyPlacement, AloneThereIsNoStandby) {
  EXPECT_EQ(place({member("m1", "a", {0, 1})}, 1), (Placement{{{0, 0}, {}}, {{0, 1}, {}}}));
}

TEST(StandbyPlacement, MoreMembersThanPartitions) {
  // Two partitions over three members: a 0, b 1, c none. If a fails: b 0, c 1.
  const std::vector<GroupMember> members{member("m1", "a", {0}), member("m2", "b", {1}),
                                         member("m3", "c", {})};
  EXPECT_EQ(place(members, 1), (Placement{{{0, 0}, {"b"}}, {{0, 1}, {"c"}}}));
}

std::set<TaskId> after_join(const std::vector<GroupMember>& members, const GroupMember& joining,
                            const std::string& instance) {
  return tasks_after_join(
      members, {joining}, instance,
      [](const TopicPartition& tp) -> std::optional<TaskId> {
        return TaskId{0, tp.partition.value()};
      },
      [](const GroupMember& m) { return m.client_id.substr(0, m.client_id.find('-')); });
}

TEST(TasksAfterJoin, AJoiningInstanceGetsTheRangeItsMemberIdRanksFor) {
  // a and c hold three tasks each; b joins and ranks between them: 0-1 a, 2-3 b, 4-5 c.
  const std::vector<GroupMember> members{member("a-StreamThread-0-x", "a", {0, 1, 2}),
                                         member("c-StreamThread-0-x", "c", {3, 4, 5})};
  EXPECT_EQ(after_join(members, member("b-StreamThread-0-", "b", {}), "b"),
            (std::set<TaskId>{{0, 2}, {0, 3}}));
  // Ranked last, d gets the last range.
  EXPECT_EQ(after_join(members, member("d-StreamThread-0-", "d", {}), "d"),
            (std::set<TaskId>{{0, 4}, {0, 5}}));
}

TEST(TasksAfterJoin, ARestartingInstanceReplacesItsOldMembers) {
  // b's old member is still listed (killed, its session not yet over).
  const std::vector<GroupMember> members{member("a-StreamThread-0-x", "a", {0, 1}),
                                         member("b-StreamThread-0-old", "b", {2, 3})};
  EXPECT_EQ(after_join(members, member("b-StreamThread-0-", "b", {}), "b"),
            (std::set<TaskId>{{0, 2}, {0, 3}}));
}

TEST(TasksAfterJoin, NothingToGetFromAnEmptyGroup) {
  EXPECT_TRUE(after_join({}, member("a-StreamThread-0-", "a", {}), "a").empty());
}

}  // namespace
}  // namespace brook::internal
