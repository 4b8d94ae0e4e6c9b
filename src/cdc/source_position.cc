#include "cdc/source_position.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace brook::internal {

ProducerRecord position_record(const std::string& topic, const std::string& slot,
                               const SourcePosition& position) {
  const nlohmann::json value{{"snapshot_done", position.snapshot_done},
                             {"commit_lsn", position.commit_lsn},
                             {"changes", position.changes},
                             {"complete", position.complete}};
  return ProducerRecord{
      .topic = topic, .partition = Partition(0), .key = slot, .value = value.dump()};
}

Result<std::optional<SourcePosition>> read_position(LogBackend& log, const std::string& topic,
                                                    const std::string& slot) {
  const TopicPartition partition{topic, Partition(0)};
  auto end = log.admin().list_offset(partition, {.kind = OffsetSpec::Kind::kLatest});
  if (!end && end.error().code() == StatusCode::kNotFound) return std::optional<SourcePosition>();
  if (!end) return error(end.error());
  auto consumer = log.make_consumer({.client_id = "brook-cdc-position", .read_committed = true});
  if (!consumer) return error(consumer.error());
  if (auto s = (*consumer)->assign({partition}); !s.ok()) return error(s);
  std::optional<std::string> latest;
  while (end->value() > 0) {
    auto at = (*consumer)->position(partition);
    if (at && *at >= *end) break;
    auto records = (*consumer)->poll(std::chrono::milliseconds(500));
    if (!records) return error(records.error());
    for (const auto& record : *records) {
      if (record.key == slot) latest = record.value;  // a null value: none
    }
  }
  if (!latest) return std::optional<SourcePosition>();
  const auto json = nlohmann::json::parse(*latest, nullptr, /*allow_exceptions=*/false);
  const auto bad = [&] {
    return error(Status::corruption(fmt::format(
        "cdc: the position of slot {} in topic {} cannot be read: {}", slot, topic, *latest)));
  };
  if (!json.is_object()) return bad();
  try {
    return std::optional<SourcePosition>(
        SourcePosition{.snapshot_done = json.at("snapshot_done").get<bool>(),
                       .commit_lsn = json.at("commit_lsn").get<Lsn>(),
                       .changes = json.at("changes").get<std::int64_t>(),
                       .complete = json.at("complete").get<bool>()});
  } catch (const nlohmann::json::exception&) {
    return bad();
  }
}

}  // namespace brook::internal
