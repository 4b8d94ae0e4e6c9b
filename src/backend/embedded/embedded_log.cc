#include "backend/embedded/embedded_log.h"

#include <fmt/format.h>

#include <algorithm>

#include "backend/embedded/embedded_clients.h"
#include "core/log.h"
#include "core/wall_clock.h"

namespace brook::internal {
namespace {

class EmbeddedLogImpl final : public EmbeddedLog {
 public:
  explicit EmbeddedLogImpl(std::unique_ptr<EmbeddedState> state, std::chrono::milliseconds every)
      : state_(std::move(state)), admin_(*state_) {
    if (every.count() > 0) {
      maintenance_ = std::jthread([this, every](std::stop_token stop) {
        std::mutex m;
        std::condition_variable_any cv;
        std::unique_lock lock(m);
        // wait_for returns early, with the predicate's value, once a stop is requested.
        while (!cv.wait_for(lock, stop, every, [&] { return stop.stop_requested(); })) {
          if (auto s = run_maintenance(wall_clock()); !s.ok()) {
            log(LogLevel::kError, "embedded log maintenance: {}", s.to_string());
          }
        }
      });
    }
  }
  ~EmbeddedLogImpl() override {
    if (maintenance_.joinable()) {
      maintenance_.request_stop();
      maintenance_.join();
    }
  }

  Admin& admin() override { return admin_; }
  Result<std::unique_ptr<Producer>> make_producer(const ProducerConfig& config) override {
    std::uint64_t epoch = 0;
    if (!config.transactional_id.empty()) {
      std::lock_guard lock(state_->epochs_mutex);
      epoch = ++state_->epochs[config.transactional_id];  // fences the previous producer
    }
    return std::unique_ptr<Producer>(std::make_unique<EmbeddedProducer>(*state_, config, epoch));
  }
  Result<std::unique_ptr<Consumer>> make_consumer(const ConsumerConfig& config) override {
    return std::unique_ptr<Consumer>(std::make_unique<EmbeddedConsumer>(*state_, config));
  }
  Status run_maintenance(Timestamp now) override { return state_->topics->run_maintenance(now); }

 private:
  std::unique_ptr<EmbeddedState> state_;
  EmbeddedAdmin admin_;
  std::jthread maintenance_;
};

}  // namespace

Result<std::unique_ptr<EmbeddedLog>> open_embedded_log(const EmbeddedLogOptions& options) {
  auto state = std::make_unique<EmbeddedState>();
  state->data_dir = options.data_dir;
  state->batching = options.batching;
  auto lock = DirLock::acquire(options.data_dir);
  if (!lock) return error(lock.error());
  state->lock.emplace(std::move(*lock));
  auto topics = TopicStore::open(options.data_dir, options.fsync);
  if (!topics) return error(topics.error());
  state->topics = std::move(*topics);
  auto offsets = OffsetStore::open(options.data_dir);
  if (!offsets) return error(offsets.error());
  state->offsets = std::move(*offsets);
  auto transactions = TransactionLog::open(options.data_dir, options.fsync);
  if (!transactions) return error(transactions.error());
  state->transactions = std::move(*transactions);
  auto pending = state->transactions->pending();
  if (!pending) return error(pending.error());
  if (*pending) {
    log(LogLevel::kInfo,
        "embedded log {}: completing a transaction of '{}' interrupted by a crash or a failed "
        "write",
        options.data_dir.string(), (*pending)->transactional_id);
    if (auto s = state->apply(**pending); !s.ok()) return error(s);
  } else if (auto s = state->transactions->clear(); !s.ok()) {
    return error(s);  // what a write that did not finish left, discarded by pending()
  }
  TopicStore* store = state->topics.get();
  state->groups = std::make_unique<GroupCoordinator>([store](const std::string& topic) {
    auto t = store->find(topic);
    return t ? (*t)->description.partitions : 0;
  });
  return std::unique_ptr<EmbeddedLog>(
      std::make_unique<EmbeddedLogImpl>(std::move(state), options.maintenance_interval));
}

// ---- EmbeddedState -------------------------------------------------------------------------

Status EmbeddedState::commit(TransactionEntry& entry) {
  std::lock_guard transaction(transaction_mutex);
  if (auto s = check_writable(); !s.ok()) return s;
  std::vector<std::shared_ptr<PartitionSlot>> slots;
  std::vector<std::unique_lock<std::mutex>> locks;  // in TopicPartition order: no deadlock
  for (auto& [tp, batch] : entry.batches) {
    auto slot = topics->partition(tp);
    if (!slot) return slot.error();
    locks.emplace_back((*slot)->write_mutex);
    batch.base = (*slot)->log->end_offset();
    slots.push_back(std::move(*slot));
  }
  if (auto s = transactions->write(entry); !s.ok()) return s;
  // Committed from here on. If applying it fails, its entry must stay as it is, and its
  // partitions and offsets untouched, for the next open to complete it: poisoned before the
  // partition locks are released, so no writer gets in.
  if (auto s = finish(entry, slots); !s.ok()) {
    poison(entry, s);
    return check_writable();
  }
  locks.clear();
  topics->notify_appended();
  return {};
}

Status EmbeddedState::apply(const TransactionEntry& entry) {
  std::vector<std::shared_ptr<PartitionSlot>> slots;
  for (const auto& [tp, batch] : entry.batches) {
    auto slot = topics->partition(tp);
    if (!slot) return slot.error();
    slots.push_back(std::move(*slot));
  }
  return finish(entry, slots);
}

Status EmbeddedState::finish(const TransactionEntry& entry,
                             const std::vector<std::shared_ptr<PartitionSlot>>& slots) {
  std::size_t i = 0;
  for (const auto& [tp, batch] : entry.batches) {
    PartitionLog& log = *slots[i++]->log;
    // Records [base, end) are this entry's own: nothing else was appended since its write.
    const auto end = log.end_offset().value();
    const auto base = batch.base.value();
    const auto count = static_cast<std::int64_t>(batch.records.size());
    if (end < base || end > base + count) {
      return Status::corruption(fmt::format(
          "partition {} ends at offset {} but the interrupted transaction wrote offsets {}..{}",
          tp.to_string(), end, base, base + count - 1));
    }
    auto missing = batch.records.records().subspan(static_cast<std::size_t>(end - base));
    if (!missing.empty()) {
      if (auto appended = log.append(missing); !appended) return appended.error();
    }
    // Durable before the entry is cleared (with log.fsync; else a no-op).
    if (auto s = log.flush(); !s.ok()) return s;
  }
  for (const auto& [group, offsets_of_group] : entry.offsets) {
    if (auto s = offsets->commit(group, offsets_of_group); !s.ok()) return s;
  }
  return transactions->clear();
}

void EmbeddedState::poison(const TransactionEntry& entry, const Status& cause) {
  std::lock_guard guard(poison_mutex_);
  poisoned_ = Status(
      cause.code(),
      fmt::format("embedded log {} takes no more writes until it is reopened: the commit of "
                  "transactional id '{}' failed after it was written to the transaction log ({}); "
                  "reopening completes that transaction",
                  data_dir.string(), entry.transactional_id, cause.message()));
  log(LogLevel::kError, "{}", poisoned_.message());
}

Status EmbeddedState::check_writable() const {
  std::lock_guard guard(poison_mutex_);
  return poisoned_;
}

// ---- EmbeddedAdmin -------------------------------------------------------------------------

Status EmbeddedAdmin::delete_topic(const std::string& name) {
  // A transaction the next open must complete may need the topic.
  std::lock_guard transaction(state_.transaction_mutex);
  if (auto s = state_.check_writable(); !s.ok()) return s;
  if (auto s = state_.topics->remove(name); !s.ok()) return s;
  return state_.offsets->forget_topic(name);
}

Result<TopicDescription> EmbeddedAdmin::describe_topic(const std::string& name) {
  auto topic = state_.topics->find(name);
  if (!topic) return error(topic.error());
  return (*topic)->description;
}

Result<Offset> EmbeddedAdmin::list_offset(const TopicPartition& tp, OffsetSpec spec) {
  auto slot = state_.topics->partition(tp);
  if (!slot) return error(slot.error());
  const auto& log = *(*slot)->log;
  switch (spec.kind) {
    case OffsetSpec::Kind::kEarliest: return log.start_offset();
    case OffsetSpec::Kind::kLatest:  // transactions land whole at commit: nothing is open
    case OffsetSpec::Kind::kHighWatermark: return log.end_offset();
    case OffsetSpec::Kind::kTimestamp: return log.offset_for_timestamp(spec.timestamp);
  }
  return error(Status::internal("unknown offset spec"));
}

Status EmbeddedAdmin::delete_records_before(const TopicPartition& tp, Offset offset) {
  auto slot = state_.topics->partition(tp);
  if (!slot) return slot.error();
  std::lock_guard lock((*slot)->write_mutex);
  if (auto s = state_.check_writable(); !s.ok()) return s;
  return (*slot)->log->delete_records_before(offset);
}

Result<std::vector<std::string>> EmbeddedAdmin::list_groups() {
  std::vector<std::string> groups = state_.offsets->groups();
  for (auto& group : state_.groups->groups()) groups.push_back(std::move(group));
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  return groups;
}

// ---- EmbeddedProducer ----------------------------------------------------------------------

EmbeddedProducer::~EmbeddedProducer() {
  if (!transactional()) (void)flush();
}

Result<EmbeddedProducer::TopicBuffers::iterator> EmbeddedProducer::buffer_of(
    const std::string& topic) {
  if (last_topic_ != topics_.end() && last_topic_->first == topic) return last_topic_;
  auto it = topics_.find(topic);
  if (it == topics_.end()) {
    auto found = state_.topics->find(topic);
    if (!found) return error(found.error());
    const std::int32_t partitions = (*found)->description.partitions;
    it = topics_
             .emplace(topic, TopicBuffer{partitions, std::vector<TransactionEntry::Batch*>(
                                                         partitions, nullptr)})
             .first;
  }
  return last_topic_ = it;
}

void EmbeddedProducer::clear_pending() {
  pending_ = {};
  oldest_.reset();
  for (auto& [topic, buffer] : topics_)
    std::fill(buffer.batches.begin(), buffer.batches.end(), nullptr);
}

Result<std::int32_t> EmbeddedProducer::partitions(const std::string& topic) {
  auto buffer = buffer_of(topic);
  if (!buffer) return error(buffer.error());
  return (*buffer)->second.partitions;
}

Status EmbeddedProducer::send(const std::string& topic_name, const OutgoingRecord& record) {
  if (transactional() && !in_transaction_) {
    return Status::failed_precondition(
        fmt::format("producer {}: send() outside a transaction", config_.transactional_id));
  }
  auto buffer = buffer_of(topic_name);
  if (!buffer) return refuse(config_, buffer.error());
  TopicBuffer& topic = (*buffer)->second;
  Partition partition;
  if (record.partition) {
    partition = *record.partition;
    if (partition.value() < 0 || partition.value() >= topic.partitions) {
      return refuse(config_, Status::invalid_argument(
                                 fmt::format("topic '{}' has no partition {} (it has {})",
                                             topic_name, partition.value(), topic.partitions)));
    }
  } else if (record.key) {
    partition = partition_for_key(*record.key, topic.partitions);
  } else {
    partition = Partition(static_cast<std::int32_t>(round_robin_++ % topic.partitions));
  }
  auto*& batch = topic.batches[partition.value()];
  if (batch == nullptr) batch = &pending_.batches[{topic_name, partition}];
  batch->records.add(record.timestamp, record.key, record.value, record.headers);
  if (transactional()) return {};  // lands at commit_transaction()
  if (!oldest_) oldest_ = std::chrono::steady_clock::now();
  if (batch->records.bytes() >= state_.batching.batch_bytes) {
    return append_batch(*buffer, partition);
  }
  return {};
}

Status EmbeddedProducer::append(const TopicPartition& tp, const PendingRecords& records) {
  auto slot = state_.topics->partition(tp);
  if (!slot) return slot.error();
  std::lock_guard lock((*slot)->write_mutex);
  if (auto s = state_.check_writable(); !s.ok()) return s;
  if (auto appended = (*slot)->log->append(records.records()); !appended) {
    return appended.error();
  }
  return (*slot)->log->flush();
}

Status EmbeddedProducer::append_batch(TopicBuffers::iterator topic, Partition partition) {
  auto*& batch = topic->second.batches[partition.value()];
  const TopicPartition tp{topic->first, partition};
  Status result = append(tp, batch->records);
  pending_.batches.erase(tp);
  batch = nullptr;
  if (pending_.batches.empty()) oldest_.reset();
  state_.topics->notify_appended();
  return result;
}

Status EmbeddedProducer::flush() {
  // Transactional records land at commit_transaction().
  if (transactional() || pending_.batches.empty()) return {};
  Status result;
  for (const auto& [tp, batch] : pending_.batches) {
    if (auto s = append(tp, batch.records); !s.ok()) result = s;
  }
  clear_pending();
  state_.topics->notify_appended();
  return result;
}

Status EmbeddedProducer::dispatch() {
  const auto linger = state_.batching.linger;
  if (oldest_ && linger.count() > 0 && std::chrono::steady_clock::now() - *oldest_ < linger) {
    return {};
  }
  return flush();
}

Status EmbeddedProducer::check_transaction(std::string_view call) const {
  if (!transactional()) {
    return Status::failed_precondition(fmt::format("{}: the producer is not transactional", call));
  }
  std::lock_guard lock(state_.epochs_mutex);
  if (state_.epochs.at(config_.transactional_id) != epoch_) {
    return Status::task_migrated(
        fmt::format("{}: producer {} was fenced by a newer producer with the same transactional id",
                    call, config_.transactional_id));
  }
  return {};
}

Status EmbeddedProducer::begin_transaction() {
  if (auto s = check_transaction("begin_transaction"); !s.ok()) return s;
  if (in_transaction_) return Status::failed_precondition("a transaction is already open");
  in_transaction_ = true;
  return {};
}

Status EmbeddedProducer::send_offsets_to_transaction(
    const std::map<TopicPartition, OffsetAndMetadata>& offsets, const GroupMetadata& group) {
  if (auto s = check_transaction("send_offsets_to_transaction"); !s.ok()) return s;
  if (!in_transaction_) return Status::failed_precondition("no open transaction");
  // Refused now: once in the transaction log, the offsets must be committable.
  if (auto s = check_commit_metadata(offsets); !s.ok()) return s;
  auto& stored = pending_.offsets[static_cast<const EmbeddedGroupMetadata&>(group).group_id];
  for (const auto& [tp, offset] : offsets) stored[tp] = offset;
  return {};
}

Status EmbeddedProducer::commit_transaction() {
  if (auto s = check_transaction("commit_transaction"); !s.ok()) return s;
  if (!in_transaction_) return Status::failed_precondition("no open transaction");
  pending_.transactional_id = config_.transactional_id;
  Status status = state_.commit(pending_);
  clear_pending();
  in_transaction_ = false;
  return status;
}

Status EmbeddedProducer::abort_transaction() {
  clear_pending();
  in_transaction_ = false;
  return {};
}

// ---- EmbeddedConsumer ----------------------------------------------------------------------

EmbeddedConsumer::~EmbeddedConsumer() { (void)close(); }

Status EmbeddedConsumer::subscribe(const std::vector<std::string>& topics,
                                   RebalanceListener* listener) {
  if (config_.group_id.empty()) {
    return Status::invalid_argument("subscribe() needs a consumer group id");
  }
  std::vector<std::string> missing;
  for (const auto& topic : topics) {
    if (!state_.topics->find(topic)) missing.push_back(topic);
  }
  if (!missing.empty()) {
    return Status::not_found(
        fmt::format("cannot subscribe to missing topic(s): {}", fmt::join(missing, ", ")));
  }
  if (member_) return Status::failed_precondition("already subscribed");
  listener_ = listener;
  member_ = state_.groups->join(config_.group_id, config_.client_id, topics);
  return {};
}

Status EmbeddedConsumer::assign(const std::vector<TopicPartition>& partitions) {
  if (member_) return Status::failed_precondition("assign() on a subscribed consumer");
  assigned_.clear();
  for (const auto& tp : partitions) {
    if (auto s = add(tp); !s.ok()) return s;
  }
  return {};
}

Status EmbeddedConsumer::add(const TopicPartition& tp) {
  auto slot = state_.topics->partition(tp);
  if (!slot) return slot.error();
  std::optional<Offset> start;
  if (!config_.group_id.empty()) {
    if (auto committed = state_.offsets->committed(config_.group_id, tp)) start = committed->offset;
  }
  const Offset earliest = (*slot)->log->start_offset();
  assigned_[tp] = {std::move(*slot), start ? std::max(*start, earliest) : earliest};
  return {};
}

std::vector<TopicPartition> EmbeddedConsumer::assignment() const {
  std::vector<TopicPartition> out;
  for (const auto& [tp, a] : assigned_) out.push_back(tp);
  return out;
}

Status EmbeddedConsumer::sync_group(std::chrono::milliseconds timeout) {
  const auto owned = assignment();
  auto revocation = state_.groups->to_revoke(config_.group_id, *member_, owned);
  if (revocation.generation == synced_generation_) return {};
  if (!revocation.revoked.empty()) {
    if (listener_) listener_->on_partitions_revoked(revocation.revoked);
    for (const auto& tp : revocation.revoked) assigned_.erase(tp);
  }
  auto added = state_.groups->to_assign(config_.group_id, *member_, revocation.generation,
                                        assignment(), timeout);
  if (!added) return {};  // not every member has let go yet: next poll
  for (const auto& tp : *added) {
    if (auto s = add(tp); !s.ok()) return s;
  }
  synced_generation_ = revocation.generation;
  if (listener_) listener_->on_partitions_assigned(*added);
  return {};
}

Result<std::vector<RecordBatch>> EmbeddedConsumer::fetch() {
  std::vector<RecordBatch> out;
  if (assigned_.empty()) return out;
  const std::size_t n = assigned_.size();
  const std::size_t per_partition = std::max<std::size_t>(1, config_.max_poll_records / n);
  std::size_t records = 0;
  auto it = assigned_.begin();
  std::advance(it, next_partition_ % n);
  for (std::size_t i = 0; i < n && records < config_.max_poll_records; ++i) {
    auto& [tp, a] = *it;
    if (++it == assigned_.end()) it = assigned_.begin();
    if (a.paused) continue;
    const Offset end = a.slot->log->end_offset();  // before the read: appends may follow
    auto batch = a.slot->log->read(a.position, per_partition * 256);
    if (!batch) {
      return error(
          Status(batch.error().code(), fmt::format("reading {} at offset {}: {}", tp.to_string(),
                                                   a.position.value(), batch.error().message())));
    }
    // Nothing left below the end (a compacted tail): the position moves to the end.
    if (batch->records.empty()) {
      if (a.position < end) a.position = end;
      continue;
    }
    if (batch->records.size() > config_.max_poll_records - records) {
      batch->records.resize(config_.max_poll_records - records);
    }
    records += batch->records.size();
    a.position = Offset(batch->records.back().offset.value() + 1);
    batch->partition = tp;
    out.push_back(std::move(*batch));
  }
  ++next_partition_;
  return out;
}

Result<std::vector<RecordBatch>> EmbeddedConsumer::poll_batches(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (member_) {
      if (auto s = sync_group(timeout); !s.ok()) return error(s);
    }
    const auto version = state_.topics->append_version();
    auto batches = fetch();
    if (!batches) return batches;
    const auto now = std::chrono::steady_clock::now();
    if (!batches->empty() || now >= deadline) return batches;
    state_.topics->wait_for_append(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now), version);
  }
}

Result<std::vector<ConsumerRecord>> EmbeddedConsumer::poll(std::chrono::milliseconds timeout) {
  auto batches = poll_batches(timeout);
  if (!batches) return error(std::move(batches.error()));
  return to_consumer_records(std::move(*batches));
}

Status EmbeddedConsumer::seek(const TopicPartition& tp, Offset offset) {
  auto it = assigned_.find(tp);
  if (it == assigned_.end()) {
    return Status::failed_precondition("seek() on unassigned partition " + tp.to_string());
  }
  it->second.position = offset;
  return {};
}

Status EmbeddedConsumer::set_paused(const std::vector<TopicPartition>& partitions, bool paused) {
  for (const auto& tp : partitions) {
    auto it = assigned_.find(tp);
    if (it == assigned_.end()) {
      return Status::failed_precondition("pause/resume of unassigned partition " + tp.to_string());
    }
    it->second.paused = paused;
  }
  return {};
}

Result<Offset> EmbeddedConsumer::position(const TopicPartition& tp) const {
  auto it = assigned_.find(tp);
  if (it == assigned_.end()) {
    return error(
        Status::failed_precondition("position() of unassigned partition " + tp.to_string()));
  }
  return it->second.position;
}

std::optional<std::int64_t> EmbeddedConsumer::lag(const TopicPartition& tp) const {
  auto it = assigned_.find(tp);
  if (it == assigned_.end()) return std::nullopt;
  // The log holds committed records only (a transaction's are appended when it commits).
  return std::max<std::int64_t>(
      0, it->second.slot->log->end_offset().value() - it->second.position.value());
}

Status EmbeddedConsumer::commit_with_metadata(
    const std::map<TopicPartition, OffsetAndMetadata>& offsets) {
  if (config_.group_id.empty()) return Status::invalid_argument("commit() needs a group id");
  std::lock_guard transaction(state_.transaction_mutex);
  if (auto s = state_.check_writable(); !s.ok()) return s;
  return state_.offsets->commit(config_.group_id, offsets);
}

Result<std::map<TopicPartition, OffsetAndMetadata>> EmbeddedConsumer::committed_with_metadata(
    const std::vector<TopicPartition>& partitions) {
  std::map<TopicPartition, OffsetAndMetadata> out;
  for (const auto& tp : partitions) {
    if (auto committed = state_.offsets->committed(config_.group_id, tp)) {
      out.emplace(tp, std::move(*committed));
    }
  }
  return out;
}

Status EmbeddedConsumer::close() {
  if (member_) {
    state_.groups->leave(config_.group_id, *member_);
    member_.reset();
  }
  assigned_.clear();
  return {};
}

}  // namespace brook::internal
