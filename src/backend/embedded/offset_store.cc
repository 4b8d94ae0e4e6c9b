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
Result<std::map<TopicPartition, Offset>> read_offsets(const fs::path& path,
                                                      const std::string& group) {
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
  std::map<TopicPartition, Offset> offsets;
  for (const auto& row : json["offsets"]) {
    if (!row.is_object() || !row.contains("topic") || !row["topic"].is_string() ||
        !row.contains("partition") || !row["partition"].is_number_integer() ||
        !row.contains("offset") || !row["offset"].is_number_integer()) {
      return corrupt("an offset is not an object with a topic, a partition and an offset");
    }
    const auto partition = row["partition"].get<std::int64_t>();
    const auto offset = row["offset"].get<std::int64_t>();
    if (partition < 0 || partition > std::numeric_limits<std::int32_t>::max() || offset < 0) {
      return corrupt(fmt::format("partition {} at offset {}", partition, offset));
    }
    TopicPartition tp{row["topic"].get<std::string>(),
                      Partition(static_cast<std::int32_t>(partition))};
    if (!offsets.emplace(tp, Offset(offset)).second) {
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

Status OffsetStore::commit(const std::string& group,
                           const std::map<TopicPartition, Offset>& offsets) {
  std::lock_guard lock(mutex_);
  auto& stored = groups_[group];
  for (const auto& [tp, offset] : offsets) stored[tp] = offset;
  return persist(group);
}

std::optional<Offset> OffsetStore::committed(const std::string& group,
                                             const TopicPartition& tp) const {
  std::lock_guard lock(mutex_);
  auto g = groups_.find(group);
  if (g == groups_.end()) return std::nullopt;
  auto it = g->second.find(tp);
  if (it == g->second.end()) return std::nullopt;
  return it->second;
}

Status OffsetStore::persist(const std::string& group) const {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [tp, offset] : groups_.at(group)) {
    rows.push_back(
        {{"topic", tp.topic}, {"partition", tp.partition.value()}, {"offset", offset.value()}});
  }
  const nlohmann::json file = {{"group", group}, {"offsets", std::move(rows)}};
  return write_checksummed_file(dir_ / (group + std::string(kExtension)), file.dump());
}

}  // namespace brook::internal
