#include "runtime/instance_directory.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/log.h"
#include "core/wall_clock.h"

namespace brook::internal {

std::string encode_announcement(const Announcement& a) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& task : a.metadata.tasks) tasks.push_back({task.subtopology, task.partition});
  return nlohmann::json{{"server", a.metadata.server},
                        {"state", a.metadata.state},
                        {"stores", a.metadata.store_partitions},
                        {"standby_stores", a.metadata.standby_store_partitions},
                        {"tasks", std::move(tasks)},
                        {"sent_ms", a.sent_ms}}
      .dump();
}

Result<Announcement> decode_announcement(std::string_view json) {
  try {
    const auto j = nlohmann::json::parse(json);
    Announcement a;
    a.metadata.server = j.at("server").get<std::string>();
    a.metadata.state = j.at("state").get<std::string>();
    a.metadata.store_partitions =
        j.at("stores").get<std::map<std::string, std::vector<std::int32_t>>>();
    if (j.contains("standby_stores")) {  // absent from the announcements of earlier versions
      a.metadata.standby_store_partitions =
          j.at("standby_stores").get<std::map<std::string, std::vector<std::int32_t>>>();
    }
    for (const auto& task : j.at("tasks")) {
      a.metadata.tasks.push_back({task.at(0).get<int>(), task.at(1).get<std::int32_t>()});
    }
    a.sent_ms = j.at("sent_ms").get<std::int64_t>();
    return a;
  } catch (const nlohmann::json::exception& e) {
    return error(
        Status::invalid_argument(fmt::format("not an instance announcement: {}", e.what())));
  }
}

namespace {

bool holds(const std::map<std::string, std::vector<std::int32_t>>& partitions,
           const std::string& store, std::int32_t partition) {
  auto it = partitions.find(store);
  return it != partitions.end() &&
         std::find(it->second.begin(), it->second.end(), partition) != it->second.end();
}

}  // namespace

std::optional<std::string> owner_of(const StreamsMetadata& local,
                                    const std::vector<Announcement>& others,
                                    const std::string& store, std::int32_t partition) {
  if (holds(local.store_partitions, store, partition)) return local.server;
  for (const auto& other : others) {  // newest first
    if (holds(other.metadata.store_partitions, store, partition)) return other.metadata.server;
  }
  return std::nullopt;
}

std::vector<std::string> standbys_of(const StreamsMetadata& local,
                                     const std::vector<Announcement>& others,
                                     const std::string& store, std::int32_t partition) {
  std::vector<std::string> out;
  if (holds(local.standby_store_partitions, store, partition)) out.push_back(local.server);
  for (const auto& other : others) {
    if (holds(other.metadata.standby_store_partitions, store, partition)) {
      out.push_back(other.metadata.server);
    }
  }
  return out;
}

InstanceDirectory::InstanceDirectory(LogBackend& backend, Options options, LocalView local,
                                     Version version)
    : backend_(backend),
      options_(std::move(options)),
      local_(std::move(local)),
      version_(std::move(version)) {}

InstanceDirectory::~InstanceDirectory() { stop(); }

Status InstanceDirectory::start() {
  auto producer = backend_.make_producer({.client_id = "instances-" + options_.server});
  if (!producer) return producer.error();
  producer_ = std::move(*producer);
  auto consumer = backend_.make_consumer(
      {.client_id = "instances-reader-" + options_.server, .read_committed = false});
  if (!consumer) return consumer.error();
  consumer_ = std::move(*consumer);
  if (auto s = consumer_->assign({{options_.topic, Partition(0)}}); !s.ok()) return s;
  if (auto s = announce(false); !s.ok()) return s;
  thread_ = std::thread([this] { run(); });
  return {};
}

void InstanceDirectory::stop() {
  if (!thread_.joinable()) return;
  stop_.store(true);
  thread_.join();
  if (auto s = announce(true); !s.ok()) {
    log(LogLevel::kWarn, "instance {}: could not withdraw its announcement from {}: {}",
        options_.server, options_.topic, s.to_string());
  }
}

Status InstanceDirectory::announce(bool tombstone) {
  const auto now = wall_clock_ms();
  ProducerRecord record{
      .topic = options_.topic, .timestamp = Timestamp(now), .key = options_.server};
  if (!tombstone) record.value = encode_announcement({local_(), now});
  if (auto s = producer_->send(std::move(record)); !s.ok()) return s;
  return producer_->flush();
}

void InstanceDirectory::apply(const ConsumerRecord& record) {
  if (!record.key || *record.key == options_.server) return;
  std::lock_guard lock(mutex_);
  if (!record.value) {
    heard_.erase(*record.key);
    return;
  }
  auto announcement = decode_announcement(*record.value);
  if (!announcement) {
    log(LogLevel::kWarn, "instance {}: ignored a record of {}: {}", options_.server, options_.topic,
        announcement.error().to_string());
    return;
  }
  // Fresh for the expiry after it was sent: an old one (read at start) is forgotten at once.
  const auto age =
      std::chrono::milliseconds(std::max<std::int64_t>(0, wall_clock_ms() - announcement->sent_ms));
  heard_[*record.key] = {std::move(*announcement),
                         std::chrono::steady_clock::now() + options_.expiry - age};
}

void InstanceDirectory::run() {
  auto announced_version = version_();
  auto announced_at = std::chrono::steady_clock::now();
  while (!stop_.load()) {
    auto records = consumer_->poll(std::chrono::milliseconds(50));
    if (!records) {
      log(LogLevel::kWarn, "instance {}: reading {}: {}", options_.server, options_.topic,
          records.error().to_string());
    } else {
      for (const auto& record : *records) apply(record);
    }
    const auto version = version_();
    const auto now = std::chrono::steady_clock::now();
    if (version == announced_version && now - announced_at < options_.heartbeat) continue;
    if (auto s = announce(false); !s.ok()) {
      log(LogLevel::kWarn, "instance {}: announcing itself on {}: {}", options_.server,
          options_.topic, s.to_string());
      continue;
    }
    announced_version = version;
    announced_at = now;
  }
}

std::vector<Announcement> InstanceDirectory::others() const {
  const auto now = std::chrono::steady_clock::now();
  std::vector<Announcement> out;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [server, heard] : heard_) {
      if (now <= heard.fresh_until) out.push_back(heard.announcement);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Announcement& a, const Announcement& b) { return a.sent_ms > b.sent_ms; });
  return out;
}

}  // namespace brook::internal
