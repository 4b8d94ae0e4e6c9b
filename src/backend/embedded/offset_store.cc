#include "backend/embedded/offset_store.h"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "backend/embedded/checksummed_file.h"

namespace brook::internal {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kExtension = ".json";

// The committed offsets in the file of `group`; kCorruption naming the file unless it is one
// Brook wrote for that group.
Result<CommittedOffsets> read_offsets(const fs::path& path, const std::string& group) {
  auto text = read_checksummed_file(path);
  if (!text) return error(text.error());
  auto corrupt = [&](std::string_view what) {
    return error(Status::corruption(fmt::format("committed offsets {}: {}", path.string(), what)));
  };
  const auto json = nlohmann::json::parse(*text, nullptr, false);
  if (!json.is_object() || !json.contains("group") || !json["group"].is_string() ||
      !json.contains("offsets") || !json["offsets"].is_array()) {
    return corrupt("not an object with a group and its offsets");
  }
  if (json["group"].get<std::string>() != group) {
    return corrupt(
        fmt::format("it holds the offsets of group '{}'", json["group"].get<std::string>()));
  }
  CommittedOffsets offsets;
  for (const auto& row : json["offsets"]) {
    if (!row.is_object() || !row.contains("topic") || !row["topic"].is_string() ||
        !row.contains("partition") || !row["partition"].is_number_integer() ||
        !row.contains("offset") || !row["offset"].is_number_integer() ||
        !row.contains("metadata") || !row["metadata"].is_string()) {
      return corrupt(
          "an offset is not an object with a topic, a partition, an offset and metadata");
    }
    const auto partition = row["partition"].get<std::int64_t>();
    const auto offset = row["offset"].get<std::int64_t>();
    if (partition < 0 || partition > std::numeric_limits<std::int32_t>::max() || offset < 0) {
      return corrupt(fmt::format("partition {} at offset {}", partition, offset));
    }
    TopicPartition tp{row["topic"].get<std::string>(),
                      Partition(static_cast<std::int32_t>(partition))};
    if (!offsets.emplace(tp, OffsetAndMetadata{Offset(offset), row["metadata"].get<std::string>()})
             .second) {
      return corrupt(fmt::format("{} is there twice", tp.to_string()));
    }
  }
  return offsets;
}

}  // namespace

Result<std::unique_ptr<OffsetStore>> OffsetStore::open(fs::path data_dir) {
  std::unique_ptr<OffsetStore> store(new OffsetStore(data_dir / "groups"));
  std::error_code ec;
  fs::create_directories(store->dir_, ec);
  if (ec) {
    return error(
        Status::io_error(fmt::format("cannot create {}: {}", store->dir_.string(), ec.message())));
  }
  for (const auto& entry : fs::directory_iterator(store->dir_)) {
    if (entry.path().extension() != kExtension) continue;
    const std::string group = entry.path().stem().string();
    auto offsets = read_offsets(entry.path(), group);
    if (!offsets) return error(offsets.error());
    store->groups_.emplace(group, std::move(*offsets));
  }
  return store;
}

Status OffsetStore::commit(const std::string& group, const CommittedOffsets& offsets) {
  if (auto s = check_commit_metadata(offsets); !s.ok()) return s;
  std::lock_guard lock(mutex_);
  auto it = groups_.find(group);
  CommittedOffsets updated = it == groups_.end() ? CommittedOffsets() : it->second;
  for (const auto& [tp, committed] : offsets) updated[tp] = committed;
  if (auto s = persist(group, updated); !s.ok()) return s;
  groups_[group] = std::move(updated);
  return {};
}

Status OffsetStore::forget_topic(const std::string& topic) {
  std::lock_guard lock(mutex_);
  for (auto& [group, offsets] : groups_) {
    CommittedOffsets kept = offsets;
    std::erase_if(kept, [&](const auto& entry) { return entry.first.topic == topic; });
    if (kept.size() == offsets.size()) continue;
    if (auto s = persist(group, kept); !s.ok()) return s;
    offsets = std::move(kept);
  }
  return {};
}

std::optional<OffsetAndMetadata> OffsetStore::committed(const std::string& group,
                                                        const TopicPartition& tp) const {
  std::lock_guard lock(mutex_);
  auto g = groups_.find(group);
  if (g == groups_.end()) return std::nullopt;
  auto it = g->second.find(tp);
  if (it == g->second.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> OffsetStore::groups() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [group, offsets] : groups_) {
    if (!offsets.empty()) out.push_back(group);
  }
  return out;
}

CommittedOffsets OffsetStore::offsets(const std::string& group) const {
  std::lock_guard lock(mutex_);
  auto g = groups_.find(group);
  return g == groups_.end() ? CommittedOffsets{} : g->second;
}

Status OffsetStore::persist(const std::string& group, const CommittedOffsets& offsets) const {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [tp, committed] : offsets) {
    rows.push_back({{"topic", tp.topic},
                    {"partition", tp.partition.value()},
                    {"offset", committed.offset.value()},
                    {"metadata", committed.metadata}});
  }
  const nlohmann::json file = {{"group", group}, {"offsets", std::move(rows)}};
  std::string text;
  try {
    text = file.dump();
  } catch (const nlohmann::json::type_error& e) {  // a group id or topic that is not UTF-8
    return Status::invalid_argument(
        fmt::format("cannot write the committed offsets of group {}: {}", group, e.what()));
  }
  return write_checksummed_file(dir_ / (group + std::string(kExtension)), text);
}

}  // namespace brook::internal
