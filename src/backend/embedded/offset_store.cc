#include "backend/embedded/offset_store.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "backend/embedded/file_io.h"

namespace brook::internal {

namespace fs = std::filesystem;

Result<std::unique_ptr<OffsetStore>> OffsetStore::open(fs::path data_dir) {
  std::unique_ptr<OffsetStore> store(new OffsetStore(data_dir / "groups"));
  std::error_code ec;
  fs::create_directories(store->dir_, ec);
  if (ec) {
    return error(
        Status::io_error(fmt::format("cannot create {}: {}", store->dir_.string(), ec.message())));
  }
  for (const auto& entry : fs::directory_iterator(store->dir_)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    auto json = nlohmann::json::parse(in, nullptr, false);
    if (json.is_discarded() || !json.is_array()) {
      return error(Status::corruption("cannot read committed offsets " + entry.path().string()));
    }
    auto& offsets = store->groups_[entry.path().stem().string()];
    for (const auto& row : json) {
      offsets[{row.at("topic").get<std::string>(), Partition(row.at("partition").get<int>())}] =
          Offset(row.at("offset").get<std::int64_t>());
    }
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
  return write_file_atomically(dir_ / (group + ".json"), rows.dump());
}

}  // namespace brook::internal
