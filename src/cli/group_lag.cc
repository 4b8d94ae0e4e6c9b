#include "cli/group_lag.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace brook::cli {

std::optional<std::int64_t> PartitionLag::lag() const {
  if (!end) return std::nullopt;
  return end->value() - committed.value();
}

Result<std::vector<PartitionLag>> group_lag(internal::LogBackend& log, const std::string& group) {
  auto committed = log.admin().committed_offsets(group);
  if (!committed) return error(committed.error());
  std::vector<PartitionLag> lags;
  for (const auto& [tp, offset] : *committed) {
    PartitionLag lag{.partition = tp, .committed = offset.offset};
    auto end = log.admin().list_offset(tp, {.kind = internal::OffsetSpec::Kind::kLatest});
    if (end) {
      lag.end = *end;
    } else if (end.error().code() != StatusCode::kNotFound) {
      return error(end.error());
    }
    lags.push_back(std::move(lag));
  }
  return lags;
}

std::int64_t total_lag(const std::vector<PartitionLag>& lags) {
  std::int64_t total = 0;
  for (const auto& lag : lags) total += lag.lag().value_or(0);
  return total;
}

void print_lag(const std::vector<PartitionLag>& lags) {
  for (const auto& lag : lags) {
    fmt::print("\tTopic: {}\tPartition: {}\tCommitted: {}\tEnd: {}\tLag: {}\n", lag.partition.topic,
               lag.partition.partition.value(), lag.committed.value(),
               lag.end ? std::to_string(lag.end->value()) : "-",
               lag.lag() ? std::to_string(*lag.lag()) : "-");
  }
}

std::vector<std::string> member_names(const std::vector<internal::GroupMember>& members) {
  std::vector<std::string> names;
  for (const auto& member : members) {
    names.push_back(member.host.empty() ? member.client_id
                                        : fmt::format("{}@{}", member.client_id, member.host));
  }
  return names;
}

std::string members_text(const std::vector<internal::GroupMember>& members) {
  if (members.empty()) return "none";
  return fmt::format("{}: {}", members.size(), fmt::join(member_names(members), ", "));
}

}  // namespace brook::cli
