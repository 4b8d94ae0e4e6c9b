#include "runtime/stream_task.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "brook/internal/coding.h"
#include "core/base64.h"
#include "core/log.h"
#include "core/transition_table.h"

namespace brook::internal {
namespace {

constexpr char kPartitionTimeVersion = 2;
constexpr std::int64_t kUnknownPartitionTime = -1;  // Kafka Streams' RecordQueue.UNKNOWN

}  // namespace

const char* to_string(TaskState state) {
  switch (state) {
    case TaskState::kCreated: return "CREATED";
    case TaskState::kRestoring: return "RESTORING";
    case TaskState::kRunning: return "RUNNING";
    case TaskState::kClosed: return "CLOSED";
  }
  return "UNKNOWN";
}

bool is_legal_transition(TaskState from, TaskState to) {
  using enum TaskState;
  static constexpr std::pair<TaskState, TaskState> kLegal[] = {
      {kCreated, kRestoring}, {kRestoring, kRunning}, {kCreated, kClosed},
      {kRestoring, kClosed},  {kRunning, kClosed},
  };
  return is_listed(kLegal, from, to);
}

std::string encode_partition_time(Timestamp partition_time) {
  const std::int64_t time =
      partition_time == Timestamp::min() ? kUnknownPartitionTime : partition_time.value();
  std::string bytes(1, kPartitionTimeVersion);
  append_big_endian(bytes, static_cast<std::uint64_t>(time), 8);
  return base64_encode(bytes);
}

Result<std::optional<Timestamp>> decode_partition_time(std::string_view metadata) {
  if (metadata.empty()) return std::optional<Timestamp>();
  const auto bytes = base64_decode(metadata);
  if (!bytes) return error(Status::invalid_argument("not base64"));
  if (bytes->size() < 9) {
    return error(Status::invalid_argument(
        fmt::format("{} bytes, too short for a version and a partition time", bytes->size())));
  }
  if ((*bytes)[0] != 1 && (*bytes)[0] != 2) {
    return error(Status::invalid_argument(
        fmt::format("unknown version {} (1 and 2 are known)", int{(*bytes)[0]})));
  }
  const auto value = get_big_endian<std::int64_t>(bytes->data() + 1);
  if (value < 0) return std::optional<Timestamp>();  // unknown when committed
  return std::optional<Timestamp>(Timestamp(value));
}

StreamTask::StreamTask(TaskId id, std::shared_ptr<const TopologyData> topology, TaskConfig config,
                       RecordCollector& collector, Metrics& metrics)
    : id_(id),
      topology_(std::move(topology)),
      config_(std::move(config)),
      collector_(collector),
      boundary_("task " + id.to_string(), id.to_string(), config_.errors, &collector, metrics),
      stores_(id, config_.state),
      enforced_processing_(
          metrics.counter(task_metric("enforced-processing-total", id.to_string()))) {}

StreamTask::~StreamTask() { close(); }

Status StreamTask::init() {
  if (state_ != TaskState::kCreated) {
    return Status::failed_precondition(
        fmt::format("task {}: init() of a {} task", id_.to_string(), to_string(state_)));
  }
  if (auto s = validate(boundary_.errors()); !s.ok()) return s;
  auto opened = stores_.open(
      *topology_, config_.application_id,
      [this](const std::string& topic, const OutgoingRecord& record) {
        collector_.send(topic, record);
      },
      [this] {
        if (boundary_.current() != nullptr) return current_timestamp_;
        return stream_time_ == Timestamp::min() ? Timestamp(0) : stream_time_;
      });
  if (!opened.ok()) return opened;
  for (const auto& store : stores_.stores()) read_ahead_.add(store->spec(), *store);
  auto graph = instantiate(*topology_, id_.subtopology);
  if (!graph) return graph.error();
  graph_ = std::move(*graph);
  for (auto& node : graph_.nodes) {
    try {
      node->init(*this);
    } catch (const std::exception& e) {
      return Status::invalid_argument(fmt::format("task {}: node {} failed to initialise: {}",
                                                  id_.to_string(), node->name(), e.what()));
    }
  }
  if (config_.input_wait) {  // the partitions to wait for, before any of their records
    for (const auto& tp : config_.input_wait->partitions) input(tp);
  }
  transition_to(TaskState::kRestoring);
  return {};
}

void StreamTask::restored() { transition_to(TaskState::kRunning); }

void StreamTask::transition_to(TaskState next) {
  if (!is_legal_transition(state_, next)) {
    throw std::logic_error(fmt::format("task {}: no transition from {} to {}", id_.to_string(),
                                       to_string(state_), to_string(next)));
  }
  state_ = next;
}

StreamTask::Input& StreamTask::input(const TopicPartition& partition) {
  auto [it, fresh] = inputs_.try_emplace(partition);
  if (fresh) {
    auto source = graph_.sources_by_topic.find(partition.topic);
    it->second.source = source == graph_.sources_by_topic.end() ? nullptr : source->second;
  }
  return it->second;
}

void StreamTask::add_batch(RecordBatch batch) {
  if (batch.records.empty()) return;
  Input& in = input(batch.partition);
  in.buffered += batch.records.size();
  buffered_ += batch.records.size();
  in.batches.push_back(std::move(batch));
}

std::map<TopicPartition, std::size_t> StreamTask::buffered_per_input() const {
  std::map<TopicPartition, std::size_t> out;
  for (const auto& [partition, input] : inputs_) out.emplace(partition, input.buffered);
  return out;
}

bool StreamTask::inputs_ready() {
  bool enforced = false;
  for (auto& [partition, input] : inputs_) {
    if (input.buffered > 0) {
      input.idle_deadline.reset();
      continue;
    }
    const auto lag = config_.input_wait->lag(partition);
    if (!lag || *lag > 0) {  // its records are on their way
      input.idle_deadline.reset();
      return false;
    }
    const auto max_idle = config_.input_wait->max_idle;
    if (max_idle.count() > 0) {
      const Timestamp now = config_.clock();
      if (!input.idle_deadline) input.idle_deadline = now + max_idle;
      if (now < *input.idle_deadline) return false;
    }
    enforced = true;
  }
  if (enforced) ++enforced_processing_;
  return true;
}

std::map<TopicPartition, Offset> StreamTask::consumed() const {
  std::map<TopicPartition, Offset> out;
  for (const auto& [partition, input] : inputs_) {
    if (input.consumed) out.emplace(partition, *input.consumed);
  }
  return out;
}

std::string StreamTask::commit_metadata(const TopicPartition& partition) const {
  auto it = inputs_.find(partition);
  return encode_partition_time(it == inputs_.end() ? Timestamp::min() : it->second.partition_time);
}

void StreamTask::restore_partition_time(const TopicPartition& partition,
                                        std::string_view metadata) {
  auto time = decode_partition_time(metadata);
  if (!time) {
    log(LogLevel::kWarn,
        "task {}: the metadata committed for {} holds no partition time ({}): \"{}\"; its "
        "partition time starts unknown",
        id_.to_string(), partition.to_string(), time.error().message(), metadata.substr(0, 40));
    return;
  }
  if (!*time) return;
  Input& in = input(partition);
  in.partition_time = std::max(in.partition_time, **time);
  stream_time_ = std::max(stream_time_, **time);
}

Result<bool> StreamTask::process_one() {
  Input* next = nullptr;
  for (auto& [partition, input] : inputs_) {
    if (input.buffered > 0 &&
        (next == nullptr || input.front().timestamp < next->front().timestamp)) {
      next = &input;
    }
  }
  if (next == nullptr || (config_.input_wait && !inputs_ready())) return false;
  read_ahead(*next);
  const RecordBatch& batch = next->batches.front();
  const ConsumedRecord& consumed = next->front();
  const SourceRecord record{.topic = batch.partition.topic,
                            .partition = batch.partition.partition,
                            .offset = consumed.offset,
                            .timestamp = consumed.timestamp,
                            .key = consumed.key,
                            .value = consumed.value,
                            .headers = consumed.headers};
  Status outcome = process(*next, record);
  next->pop_front();  // its bytes may go now (record's views with them)
  --buffered_;
  if (!outcome.ok()) return error(std::move(outcome));
  next->consumed = Offset(record.offset.value() + 1);
  if (auto fired = punctuate(PunctuationType::kStreamTime, stream_time_); !fired) {
    return error(std::move(fired.error()));
  }
  return true;
}

void StreamTask::read_ahead(const Input& in) {
  if (read_ahead_.empty()) return;
  using Step = KeyValueBytesStore::PrefetchStep;
  if (const auto* record = in.ahead(ReadAhead::kDistance)) read_ahead_.hint(*record, Step::kSlot);
  if (const auto* record = in.ahead(ReadAhead::kDistance / 2)) {
    read_ahead_.hint(*record, Step::kEntry);
  }
}

Status StreamTask::process(Input& in, const SourceRecord& record) {
  if (in.source == nullptr) {
    return Status::not_found(
        fmt::format("task {}: no source reads topic '{}'", id_.to_string(), record.topic));
  }
  current_input_ = &in;
  current_timestamp_ = record.timestamp;
  Status outcome = boundary_.process(*in.source, record);
  current_input_ = nullptr;
  if (config_.idle_advance) idle_since_ = idle_advanced_to_ = config_.clock();
  return outcome;
}

std::optional<Timestamp> StreamTask::accept_timestamp(Timestamp timestamp,
                                                      InvalidTimestamp on_invalid) {
  if (current_input_ == nullptr) {
    throw std::logic_error("accept_timestamp() outside a record read by a source");
  }
  Input& input = *current_input_;
  auto accepted = boundary_.accept_timestamp(timestamp, on_invalid, input.partition_time);
  if (!accepted) return std::nullopt;
  input.partition_time = std::max(input.partition_time, *accepted);
  stream_time_ = std::max(stream_time_, *accepted);
  current_timestamp_ = *accepted;
  return accepted;
}

Result<int> StreamTask::punctuate_wall_clock() {
  const Timestamp now = config_.clock();
  int fired = 0;
  // Idle: nothing buffered, stream time started, and the last record at least idle_advance ago.
  if (config_.idle_advance && buffered_ == 0 && stream_time_ != Timestamp::min() &&
      idle_since_ != Timestamp::min() && now - idle_since_ >= *config_.idle_advance &&
      now > idle_advanced_to_) {
    stream_time_ = stream_time_ + (now - idle_advanced_to_);
    idle_advanced_to_ = now;
    auto stream_time = punctuate(PunctuationType::kStreamTime, stream_time_);
    if (!stream_time) return error(std::move(stream_time.error()));
    fired = *stream_time;
  }
  auto wall_clock = punctuate(PunctuationType::kWallClockTime, now);
  if (!wall_clock) return error(std::move(wall_clock.error()));
  return fired + *wall_clock;
}

Cancellable StreamTask::schedule(std::string_view node, std::chrono::milliseconds interval,
                                 PunctuationType type, Punctuator punctuator) {
  if (interval.count() <= 0) {
    throw std::invalid_argument(
        fmt::format("punctuation interval must be positive, got {} ms", interval.count()));
  }
  // Stream-time punctuations are aligned to 0 and fire on the first record; wall-clock ones
  // first fire one interval from now.
  const Timestamp first =
      type == PunctuationType::kStreamTime ? Timestamp(0) : config_.clock() + interval;
  auto cancelled = std::make_shared<bool>(false);
  schedules_.push_back(
      {std::string(node), interval, type, std::move(punctuator), first, cancelled});
  return Cancellable(cancelled);
}

Result<int> StreamTask::punctuate(PunctuationType type, Timestamp now) {
  std::erase_if(schedules_, [](const Schedule& s) { return *s.cancelled; });
  int fired = 0;
  // Index loop: a punctuator may schedule more punctuations.
  for (std::size_t i = 0; i < schedules_.size(); ++i) {
    if (schedules_[i].type != type || *schedules_[i].cancelled || now < schedules_[i].next) {
      continue;
    }
    // Fire once however many intervals were skipped; stay aligned to the first time.
    const auto interval = schedules_[i].interval;
    const auto missed = (now - schedules_[i].next) / interval;
    schedules_[i].next = schedules_[i].next + interval * (missed + 1);
    const std::string node = schedules_[i].node;
    Punctuator punctuator = schedules_[i].punctuator;
    if (auto s = boundary_.run_outside_record([&] { run_in_node(node, [&] { punctuator(now); }); });
        !s.ok()) {
      return error(std::move(s));
    }
    ++fired;
  }
  return fired;
}

Status StreamTask::flush_state() {
  Status flushed;
  if (auto s = boundary_.run_outside_record([&] { flushed = stores_.flush(); }); !s.ok()) return s;
  return flushed;
}

Status StreamTask::commit_state(
    const std::function<Result<Offset>(const TopicPartition&)>& changelog_end) {
  return stores_.commit([&](const TopicPartition& changelog) -> Result<Offset> {
    // A table's source topic as its store's changelog: the store holds what was processed.
    if (auto it = inputs_.find(changelog); it != inputs_.end() && it->second.consumed) {
      return *it->second.consumed;
    }
    return changelog_end(changelog);
  });
}

StoreAccess StreamTask::state_store(std::string_view node, std::string_view store) {
  LocalStore* local = stores_.find(store);
  const bool connected =
      std::any_of(topology_->nodes.begin(), topology_->nodes.end(), [&](auto& n) {
        return n.name == node &&
               std::find(n.stores.begin(), n.stores.end(), store) != n.stores.end();
      });
  if (local == nullptr || !connected) {
    throw std::invalid_argument(fmt::format(
        "node {} has no state store '{}'; connect it with Processed{{.stores = {{...}}}}", node,
        store));
  }
  return {*local, local->spec()};
}

void StreamTask::drop_record(std::string_view node, std::string_view reason) {
  boundary_.drop_record(node, reason);
}

void StreamTask::close() {
  if (state_ == TaskState::kClosed) return;
  const bool initialised = state_ != TaskState::kCreated;
  transition_to(TaskState::kClosed);
  for (auto& node : graph_.nodes) {  // empty unless init() instantiated them
    if (!initialised) break;
    try {
      node->close();
    } catch (const std::exception& e) {
      log(LogLevel::kWarn, "task {}: node {} failed to close: {}", id_.to_string(), node->name(),
          e.what());
    }
  }
  stores_.close();
}

}  // namespace brook::internal
