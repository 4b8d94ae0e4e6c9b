#include "backend/embedded/topic_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "backend/embedded/checksummed_file.h"
#include "core/log.h"
#include "core/text_numbers.h"

namespace brook::internal {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMetadataFile = "topic.json";

// The description in the metadata file of the topic in `dir`; kCorruption naming the file
// unless it is one Brook wrote for that topic.
Result<TopicDescription> read_metadata(const fs::path& dir) {
  const fs::path path = dir / kMetadataFile;
  auto text = read_checksummed_file(path);
  if (!text) return error(text.error());
  auto corrupt = [&](std::string_view what) {
    return error(Status::corruption(fmt::format("topic metadata {}: {}", path.string(), what)));
  };
  const auto json = nlohmann::json::parse(*text, nullptr, false);
  if (!json.is_object() || !json.contains("name") || !json["name"].is_string() ||
      !json.contains("partitions") || !json["partitions"].is_number_integer() ||
      !json.contains("configs") || !json["configs"].is_object()) {
    return corrupt("not an object with a name, a partition count and configs");
  }
  TopicDescription description{.name = json["name"].get<std::string>()};
  if (description.name != dir.filename().string()) {
    return corrupt(fmt::format("it describes topic '{}'", description.name));
  }
  const auto partitions = json["partitions"].get<std::int64_t>();
  if (partitions < 1 || partitions > std::numeric_limits<std::int32_t>::max()) {
    return corrupt(fmt::format("{} partitions", partitions));
  }
  description.partitions = static_cast<std::int32_t>(partitions);
  for (const auto& [key, value] : json["configs"].items()) {
    if (!value.is_string()) return corrupt(fmt::format("config {} is not a string", key));
    description.configs.emplace(key, value.get<std::string>());
  }
  if (auto config = parse_topic_configs(description.configs); !config) {
    return corrupt(config.error().message());
  }
  return description;
}

// kCorruption unless the topic directory `dir` holds exactly the partition directories its
// metadata lists ("0" .. "<partitions - 1>"): records never vanish with a directory or hide
// in one the metadata does not count.
Status check_partition_dirs(const fs::path& dir, std::int32_t partitions) {
  std::set<std::int32_t> present;
  std::vector<std::string> extra;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!it->is_directory() || name.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    const auto p = parse_number<std::int32_t>(name);
    if (p && *p < partitions && name == std::to_string(*p)) {
      present.insert(*p);
    } else {
      extra.push_back(name);
    }
  }
  if (ec) return Status::io_error(fmt::format("list directory {}: {}", dir.string(), ec.message()));
  std::vector<std::int32_t> missing;
  for (std::int32_t p = 0; p < partitions; ++p) {
    if (!present.contains(p)) missing.push_back(p);
  }
  if (extra.empty() && missing.empty()) return {};
  std::sort(extra.begin(), extra.end());
  std::string problems;
  if (!extra.empty()) {
    problems = fmt::format("partition directories beyond them: {}", fmt::join(extra, ", "));
  }
  if (!missing.empty()) {
    problems += fmt::format("{}missing partition directories: {}", problems.empty() ? "" : "; ",
                            fmt::join(missing, ", "));
  }
  return Status::corruption(
      fmt::format("topic directory {} does not match its metadata {} ({} partitions): {}",
                  dir.string(), (dir / kMetadataFile).string(), partitions, problems));
}

}  // namespace

Status check_topic_name(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.size() > 249) {
    return Status::invalid_argument(fmt::format("invalid topic name '{}'", name));
  }
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return Status::invalid_argument(fmt::format(
          "invalid topic name '{}': only ASCII letters, digits, '.', '_' and '-' are allowed",
          name));
    }
  }
  return {};
}

Result<PartitionLogConfig> parse_topic_configs(const std::map<std::string, std::string>& configs) {
  PartitionLogConfig config;
  for (const auto& [key, value] : configs) {
    if (key == "cleanup.policy") {
      if (value == "delete") {
        config.cleanup_policy = CleanupPolicy::kDelete;
      } else if (value == "compact") {
        config.cleanup_policy = CleanupPolicy::kCompact;
      } else if (value == "compact,delete" || value == "delete,compact") {
        config.cleanup_policy = CleanupPolicy::kCompactDelete;
      } else {
        return error(Status::invalid_argument(fmt::format(
            "topic config cleanup.policy: '{}' is not delete, compact or compact,delete", value)));
      }
      continue;
    }
    if (key == "min.cleanable.dirty.ratio") {
      const auto ratio = parse_number<double>(value);
      if (!ratio || !(*ratio >= 0 && *ratio <= 1)) {
        return error(Status::invalid_argument(fmt::format(
            "topic config min.cleanable.dirty.ratio: '{}' is not a number from 0 to 1", value)));
      }
      config.min_cleanable_dirty_ratio = *ratio;
      continue;
    }
    std::int64_t* target = key == "retention.ms"          ? &config.retention_ms
                           : key == "retention.bytes"     ? &config.retention_bytes
                           : key == "delete.retention.ms" ? &config.delete_retention_ms
                           : key == "segment.bytes"       ? &config.segment_bytes
                           : key == "segment.ms"          ? &config.segment_ms
                                                          : nullptr;
    if (target == nullptr) {
      return error(Status::invalid_argument(fmt::format(
          "unknown topic config '{}' (known: cleanup.policy, retention.ms, retention.bytes, "
          "delete.retention.ms, segment.bytes, segment.ms, min.cleanable.dirty.ratio)",
          key)));
    }
    auto number = parse_integer_in(fmt::format("topic config {}", key), value);
    if (!number) return error(number.error());
    if (key == "segment.bytes" && *number < 1024) {
      return error(Status::invalid_argument("topic config segment.bytes must be >= 1024"));
    }
    if (key == "segment.ms" && *number < 1) {
      return error(Status::invalid_argument("topic config segment.ms must be >= 1"));
    }
    *target = *number;
  }
  return config;
}

Result<std::unique_ptr<TopicStore>> TopicStore::open(fs::path data_dir, bool fsync) {
  std::unique_ptr<TopicStore> store(new TopicStore(data_dir, fsync));
  const fs::path topics = data_dir / "topics";
  std::error_code ec;
  fs::create_directories(topics, ec);
  if (ec)
    return error(
        Status::io_error(fmt::format("cannot create {}: {}", topics.string(), ec.message())));
  for (const auto& entry : fs::directory_iterator(topics)) {
    if (!entry.is_directory()) continue;
    if (!fs::exists(entry.path() / kMetadataFile)) {
      // What a creation (the metadata is written last) or a deletion (it goes first) that did
      // not finish leaves. Creating the topic again replaces the directory.
      log(LogLevel::kWarn,
          "embedded log: {} is not a topic: it has no {} (its creation or deletion did not "
          "finish)",
          entry.path().string(), kMetadataFile);
      continue;
    }
    auto description = read_metadata(entry.path());
    if (!description) return error(description.error());
    if (auto s = check_partition_dirs(entry.path(), description->partitions); !s.ok()) {
      return error(std::move(s));
    }
    auto topic = store->open_topic(entry.path(), std::move(*description));
    if (!topic) return error(topic.error());
    store->topics_.emplace((*topic)->description.name, std::move(*topic));
  }
  return store;
}

Result<std::shared_ptr<Topic>> TopicStore::open_topic(const fs::path& dir,
                                                      TopicDescription description) {
  auto config = parse_topic_configs(description.configs);
  if (!config) return error(config.error());
  config->fsync_on_flush = fsync_;
  auto topic = std::make_shared<Topic>();
  for (std::int32_t p = 0; p < description.partitions; ++p) {
    auto log = PartitionLog::open(dir / std::to_string(p), *config);
    if (!log) return error(log.error());
    auto slot = std::make_unique<PartitionSlot>();
    slot->log = std::move(*log);
    topic->partitions.push_back(std::move(slot));
  }
  topic->description = std::move(description);
  return topic;
}

Status TopicStore::create(const NewTopic& request) {
  if (auto s = check_topic_name(request.name); !s.ok()) return s;
  if (request.partitions < 1) {
    return Status::invalid_argument(
        fmt::format("topic {}: partitions must be >= 1, got {}", request.name, request.partitions));
  }
  if (auto config = parse_topic_configs(request.configs); !config) {
    return Status::invalid_argument(
        fmt::format("topic {}: {}", request.name, config.error().message()));
  }
  std::unique_lock lock(mutex_);
  if (topics_.contains(request.name)) {
    return Status::already_exists(fmt::format("topic '{}' already exists", request.name));
  }
  const fs::path dir = dir_ / "topics" / request.name;
  std::error_code ec;
  fs::remove_all(dir, ec);  // leftovers of an unfinished creation or deletion
  fs::create_directories(dir, ec);
  if (ec) return Status::io_error(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  TopicDescription description{request.name, request.partitions, request.configs};
  auto topic = open_topic(dir, description);
  if (!topic) return topic.error();
  // The metadata file is written last: its presence means the topic exists.
  nlohmann::json meta = {
      {"name", request.name}, {"partitions", request.partitions}, {"configs", request.configs}};
  if (auto s = write_checksummed_file(dir / kMetadataFile, meta.dump()); !s.ok()) return s;
  topics_.emplace(request.name, std::move(*topic));
  return {};
}

Status TopicStore::remove(const std::string& name) {
  std::unique_lock lock(mutex_);
  auto it = topics_.find(name);
  if (it == topics_.end()) return Status::not_found(fmt::format("topic '{}' does not exist", name));
  const fs::path dir = dir_ / "topics" / name;
  std::error_code ec;
  fs::remove(dir / kMetadataFile, ec);  // first: a crash midway leaves no half topic
  if (ec) return Status::io_error(fmt::format("cannot delete topic {}: {}", name, ec.message()));
  topics_.erase(it);
  fs::remove_all(dir, ec);
  return {};
}

std::vector<std::string> TopicStore::names() const {
  std::shared_lock lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [name, topic] : topics_) out.push_back(name);
  return out;
}

Result<std::shared_ptr<Topic>> TopicStore::find(const std::string& name) const {
  std::shared_lock lock(mutex_);
  auto it = topics_.find(name);
  if (it == topics_.end())
    return error(Status::not_found(fmt::format("topic '{}' does not exist", name)));
  return it->second;
}

Result<std::shared_ptr<PartitionSlot>> TopicStore::partition(const TopicPartition& tp) const {
  auto topic = find(tp.topic);
  if (!topic) return error(topic.error());
  const auto p = tp.partition.value();
  if (p < 0 || p >= static_cast<std::int32_t>((*topic)->partitions.size())) {
    return error(Status::not_found(fmt::format("topic '{}' has no partition {} (it has {})",
                                               tp.topic, p, (*topic)->partitions.size())));
  }
  return std::shared_ptr<PartitionSlot>(*topic, (*topic)->partitions[p].get());
}

void TopicStore::wait_for_append(std::chrono::milliseconds timeout, std::uint64_t seen_version) {
  std::unique_lock lock(append_mutex_);
  appended_.wait_for(lock, timeout, [&] { return append_version_ != seen_version; });
}

std::uint64_t TopicStore::append_version() const {
  std::lock_guard lock(append_mutex_);
  return append_version_;
}

void TopicStore::notify_appended() {
  {
    std::lock_guard lock(append_mutex_);
    ++append_version_;
  }
  appended_.notify_all();
}

Status TopicStore::run_maintenance(Timestamp now) {
  std::vector<std::shared_ptr<Topic>> topics;
  {
    std::shared_lock lock(mutex_);
    for (const auto& [name, topic] : topics_) topics.push_back(topic);
  }
  for (const auto& topic : topics) {
    for (const auto& slot : topic->partitions) {
      std::lock_guard lock(slot->write_mutex);
      if (auto s = slot->log->run_maintenance(now); !s.ok()) return s;
    }
  }
  return {};
}

}  // namespace brook::internal
