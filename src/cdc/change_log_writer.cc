#include "cdc/change_log_writer.h"

#include <fmt/format.h>

#include "cdc/postgres_source.h"

namespace brook::internal {

ChangeLogWriter::ChangeLogWriter(LogBackend& log, const PostgresSourceConfig& config,
                                 std::unique_ptr<Producer> producer, SourcePosition committed)
    : log_(&log),
      slot_(config.slot),
      offsets_topic_(offsets_topic(config)),
      partitions_(config.partitions),
      producer_(std::move(producer)),
      committed_(committed),
      written_(committed) {}

Result<ChangeLogWriter> ChangeLogWriter::open(LogBackend& log, const PostgresSourceConfig& config,
                                              SourcePosition committed,
                                              std::chrono::milliseconds transaction_timeout) {
  auto producer = log.make_producer({.client_id = "brook-cdc-" + config.slot,
                                     .transactional_id = "brook-cdc-" + config.slot,
                                     .transaction_timeout = transaction_timeout});
  if (!producer) return error(producer.error());
  ChangeLogWriter writer(log, config, std::move(*producer), committed);
  auto created = log.admin().create_topic(NewTopic{
      .name = writer.offsets_topic_, .partitions = 1, .configs = {{"cleanup.policy", "compact"}}});
  if (!created.ok() && created.code() != StatusCode::kAlreadyExists) return error(created);
  writer.topics_.insert(writer.offsets_topic_);
  return writer;
}

Status ChangeLogWriter::create_topic(const std::string& topic) {
  auto created = log_->admin().create_topic(NewTopic{
      .name = topic, .partitions = partitions_, .configs = {{"cleanup.policy", "compact"}}});
  if (!created.ok() && created.code() != StatusCode::kAlreadyExists) return created;
  topics_.insert(topic);
  return Status();
}

Status ChangeLogWriter::write(std::vector<ProducerRecord>& records, std::int64_t changes,
                              const SourcePosition& written) {
  if (!in_transaction_) {
    if (auto s = producer_->begin_transaction(); !s.ok()) return s;
    in_transaction_ = true;
    batch_changes_ = 0;
    batch_start_ = std::chrono::steady_clock::now();
  }
  for (auto& record : records) {
    if (!topics_.contains(record.topic)) {
      if (auto s = create_topic(record.topic); !s.ok()) return s;
    }
    if (auto s = producer_->send(std::move(record)); !s.ok()) return s;
  }
  batch_changes_ += changes;
  written_ = written;
  return Status();
}

Status ChangeLogWriter::commit() {
  if (!in_transaction_) return Status();
  if (auto s = producer_->send(position_record(offsets_topic_, slot_, written_)); !s.ok()) {
    return s;
  }
  if (auto s = producer_->commit_transaction(); !s.ok()) return s;
  in_transaction_ = false;
  batch_changes_ = 0;
  committed_ = written_;
  return Status();
}

Status ChangeLogWriter::abort() {
  written_ = committed_;
  if (!in_transaction_) return Status();
  in_transaction_ = false;
  batch_changes_ = 0;
  return producer_->abort_transaction();
}

}  // namespace brook::internal
