#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "backend/kafka/kafka_clients.h"

namespace brook::internal {
namespace {

struct AdminOptionsDeleter {
  void operator()(rd_kafka_AdminOptions_t* options) const {
    rd_kafka_AdminOptions_destroy(options);
  }
};
using AdminOptions = std::unique_ptr<rd_kafka_AdminOptions_t, AdminOptionsDeleter>;

// The error of the one topic a CreateTopics/DeleteTopics result holds.
Status topic_result_status(const rd_kafka_topic_result_t* const* results, std::size_t count,
                           std::string_view what) {
  if (count != 1) return Status::io_error(fmt::format("{}: no result", what));
  const rd_kafka_resp_err_t code = rd_kafka_topic_result_error(results[0]);
  if (code == RD_KAFKA_RESP_ERR_NO_ERROR) return {};
  const char* message = rd_kafka_topic_result_error_string(results[0]);
  return kafka_status(code, fmt::format("{} ({})", what, message ? message : ""));
}

constexpr std::chrono::milliseconds kOffsetTry{5'000};

}  // namespace

Result<std::unique_ptr<KafkaAdmin>> KafkaAdmin::open(const KafkaClientSettings& settings) {
  auto properties = settings.common;
  properties["client.id"] = "brook-admin";
  std::unique_ptr<KafkaAdmin> admin(new KafkaAdmin(std::move(properties), settings));
  auto committed = admin->make_client("read_committed");
  if (!committed) return error(committed.error());
  auto uncommitted = admin->make_client("read_uncommitted");
  if (!uncommitted) return error(uncommitted.error());
  admin->handle_ = std::shared_ptr<rd_kafka_t>(committed->release(), HandleDeleter());
  admin->offset_clients_[0] = admin->handle_;
  admin->offset_clients_[1] = std::shared_ptr<rd_kafka_t>(uncommitted->release(), HandleDeleter());
  return admin;
}

std::shared_ptr<rd_kafka_t> KafkaAdmin::offset_client(bool uncommitted) const {
  std::lock_guard lock(offset_clients_mutex_);
  return offset_clients_[uncommitted ? 1 : 0];
}

void KafkaAdmin::replace_offset_client(bool uncommitted, std::shared_ptr<rd_kafka_t> client) {
  std::lock_guard lock(offset_clients_mutex_);
  offset_clients_[uncommitted ? 1 : 0] = std::move(client);
}

Result<KafkaHandle> KafkaAdmin::make_client(const char* isolation) const {
  auto properties = properties_;
  properties["isolation.level"] = isolation;
  return make_handle(RD_KAFKA_CONSUMER, properties);
}

template <class Send>
Result<KafkaEvent> KafkaAdmin::run_request(std::string_view what, Send send) {
  KafkaQueue queue(rd_kafka_queue_new(handle_.get()));
  AdminOptions options(rd_kafka_AdminOptions_new(handle_.get(), RD_KAFKA_ADMIN_OP_ANY));
  std::array<char, 256> problem{};
  const auto timeout = static_cast<int>(timeout_.count());
  (void)rd_kafka_AdminOptions_set_request_timeout(options.get(), timeout, problem.data(),
                                                  problem.size());
  (void)rd_kafka_AdminOptions_set_operation_timeout(options.get(), timeout, problem.data(),
                                                    problem.size());
  send(options.get(), queue.get());
  // The request's own timeouts bound the wait; the extra second covers their delivery.
  KafkaEvent event(rd_kafka_queue_poll(queue.get(), timeout + 1000));
  if (!event) return error(Status::io_error(fmt::format("{}: no answer from Kafka", what)));
  if (auto code = rd_kafka_event_error(event.get()); code != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return error(
        kafka_status(code, fmt::format("{} ({})", what, rd_kafka_event_error_string(event.get()))));
  }
  return event;
}

Status KafkaAdmin::create_topic(const NewTopic& topic) {
  const std::string what = "creating topic " + topic.name;
  std::array<char, 256> problem{};
  rd_kafka_NewTopic_t* request = rd_kafka_NewTopic_new(topic.name.c_str(), topic.partitions, -1,
                                                       problem.data(), problem.size());
  if (request == nullptr) {
    return Status::invalid_argument(fmt::format("{}: {}", what, problem.data()));
  }
  for (const auto& [name, value] : topic.configs) {
    (void)rd_kafka_NewTopic_set_config(request, name.c_str(), value.c_str());
  }
  auto event = run_request(what, [&](rd_kafka_AdminOptions_t* options, rd_kafka_queue_t* queue) {
    rd_kafka_CreateTopics(handle_.get(), &request, 1, options, queue);
  });
  rd_kafka_NewTopic_destroy(request);
  if (!event) return event.error();
  std::size_t count = 0;
  const auto* results =
      rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event->get()), &count);
  const Status created = topic_result_status(results, count, what);
  if (!created.ok() && created.code() != StatusCode::kAlreadyExists) return created;
  // Created (now, or by another client) on the controller: wait, up to the timeout, until
  // metadata, what clients see, has it too, so a describe_topic() that follows finds it.
  auto partitions = topic_partitions(handle_.get(), topic.name, timeout_, timeout_);
  if (partitions) return created;
  if (partitions.error().code() != StatusCode::kNotFound || created.ok()) {
    return partitions.error();
  }
  return created;  // it existed, and is gone or going: one being deleted, say
}

Status KafkaAdmin::delete_topic(const std::string& name) {
  const std::string what = "deleting topic " + name;
  rd_kafka_DeleteTopic_t* request = rd_kafka_DeleteTopic_new(name.c_str());
  auto event = run_request(what, [&](rd_kafka_AdminOptions_t* options, rd_kafka_queue_t* queue) {
    rd_kafka_DeleteTopics(handle_.get(), &request, 1, options, queue);
  });
  rd_kafka_DeleteTopic_destroy(request);
  if (!event) return event.error();
  std::size_t count = 0;
  const auto* results =
      rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(event->get()), &count);
  return topic_result_status(results, count, what);
}

Result<std::vector<std::string>> KafkaAdmin::list_topics() {
  const rd_kafka_metadata_t* metadata = nullptr;
  if (auto code = rd_kafka_metadata(handle_.get(), 1, nullptr, &metadata,
                                    static_cast<int>(timeout_.count()));
      code != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return error(kafka_status(code, "listing topics"));
  }
  std::vector<std::string> names;
  for (int i = 0; i < metadata->topic_cnt; ++i) {
    std::string name = metadata->topics[i].topic;
    if (!name.starts_with("__")) names.push_back(std::move(name));  // Kafka's own topics
  }
  rd_kafka_metadata_destroy(metadata);
  std::sort(names.begin(), names.end());
  return names;
}

Result<GroupDescription> KafkaAdmin::describe_group(const std::string& group) {
  const std::string what = "describing consumer group " + group;
  const char* groups[] = {group.c_str()};
  auto event = run_request(what, [&](rd_kafka_AdminOptions_t* options, rd_kafka_queue_t* queue) {
    rd_kafka_DescribeConsumerGroups(handle_.get(), groups, 1, options, queue);
  });
  if (!event) return error(event.error());
  const auto* result = rd_kafka_event_DescribeConsumerGroups_result(event->get());
  std::size_t count = 0;
  const auto* const* descriptions = rd_kafka_DescribeConsumerGroups_result_groups(result, &count);
  if (count != 1) return error(Status::io_error(fmt::format("{}: no result", what)));
  const auto* description = descriptions[0];
  if (const rd_kafka_error_t* problem = rd_kafka_ConsumerGroupDescription_error(description)) {
    return error(kafka_status(rd_kafka_error_code(problem),
                              fmt::format("{} ({})", what, rd_kafka_error_string(problem))));
  }
  const auto state = rd_kafka_ConsumerGroupDescription_state(description);
  GroupDescription out{.rebalancing = state == RD_KAFKA_CONSUMER_GROUP_STATE_PREPARING_REBALANCE ||
                                      state == RD_KAFKA_CONSUMER_GROUP_STATE_COMPLETING_REBALANCE};
  for (std::size_t i = 0; i < rd_kafka_ConsumerGroupDescription_member_count(description); ++i) {
    const auto* member = rd_kafka_ConsumerGroupDescription_member(description, i);
    const auto text = [](const char* s) { return std::string(s != nullptr ? s : ""); };
    const auto* assigned =
        rd_kafka_MemberAssignment_partitions(rd_kafka_MemberDescription_assignment(member));
    out.members.push_back(
        {.member_id = text(rd_kafka_MemberDescription_consumer_id(member)),
         .client_id = text(rd_kafka_MemberDescription_client_id(member)),
         .group_instance_id = text(rd_kafka_MemberDescription_group_instance_id(member)),
         .host = text(rd_kafka_MemberDescription_host(member)),
         .assignment =
             assigned != nullptr ? to_partitions(assigned) : std::vector<TopicPartition>()});
  }
  return out;
}

Result<std::vector<std::string>> KafkaAdmin::list_groups() {
  auto event = run_request("listing consumer groups",
                           [&](rd_kafka_AdminOptions_t* options, rd_kafka_queue_t* queue) {
                             rd_kafka_ListConsumerGroups(handle_.get(), options, queue);
                           });
  if (!event) return error(event.error());
  const auto* result = rd_kafka_event_ListConsumerGroups_result(event->get());
  std::size_t count = 0;
  const auto* const* problems = rd_kafka_ListConsumerGroups_result_errors(result, &count);
  if (count > 0) {  // a broker that did not answer: the list would be incomplete
    return error(kafka_status(
        rd_kafka_error_code(problems[0]),
        fmt::format("listing consumer groups ({})", rd_kafka_error_string(problems[0]))));
  }
  const auto* const* listings = rd_kafka_ListConsumerGroups_result_valid(result, &count);
  std::vector<std::string> groups;
  for (std::size_t i = 0; i < count; ++i) {
    groups.emplace_back(rd_kafka_ConsumerGroupListing_group_id(listings[i]));
  }
  std::sort(groups.begin(), groups.end());
  return groups;
}

Result<std::map<TopicPartition, OffsetAndMetadata>> KafkaAdmin::committed_offsets(
    const std::string& group) {
  const std::string what = "reading the committed offsets of consumer group " + group;
  rd_kafka_ListConsumerGroupOffsets_t* request =
      rd_kafka_ListConsumerGroupOffsets_new(group.c_str(), nullptr);  // every partition
  auto event = run_request(what, [&](rd_kafka_AdminOptions_t* options, rd_kafka_queue_t* queue) {
    rd_kafka_ListConsumerGroupOffsets(handle_.get(), &request, 1, options, queue);
  });
  rd_kafka_ListConsumerGroupOffsets_destroy(request);
  if (!event) return error(event.error());
  std::size_t count = 0;
  const auto* const* groups = rd_kafka_ListConsumerGroupOffsets_result_groups(
      rd_kafka_event_ListConsumerGroupOffsets_result(event->get()), &count);
  if (count != 1) return error(Status::io_error(fmt::format("{}: no result", what)));
  if (const rd_kafka_error_t* problem = rd_kafka_group_result_error(groups[0])) {
    return error(kafka_status(rd_kafka_error_code(problem),
                              fmt::format("{} ({})", what, rd_kafka_error_string(problem))));
  }
  return to_committed(rd_kafka_group_result_partitions(groups[0]));
}

Result<std::int32_t> KafkaAdmin::partition_count(const std::string& topic) {
  return topic_partitions(handle_.get(), topic, timeout_);
}

Result<std::map<std::string, std::string>> KafkaAdmin::topic_configs(const std::string& name) {
  const std::string what = "reading the configs of topic " + name;
  rd_kafka_ConfigResource_t* resource =
      rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, name.c_str());
  auto event = run_request(what, [&](rd_kafka_AdminOptions_t* options, rd_kafka_queue_t* queue) {
    rd_kafka_DescribeConfigs(handle_.get(), &resource, 1, options, queue);
  });
  rd_kafka_ConfigResource_destroy(resource);
  if (!event) return error(event.error());
  std::size_t count = 0;
  const auto* resources = rd_kafka_DescribeConfigs_result_resources(
      rd_kafka_event_DescribeConfigs_result(event->get()), &count);
  if (count != 1) return error(Status::io_error(what + ": no result"));
  if (auto code = rd_kafka_ConfigResource_error(resources[0]); code != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return error(kafka_status(code, what));
  }
  std::map<std::string, std::string> configs;  // the ones set on the topic itself
  std::size_t entries = 0;
  const auto* config = rd_kafka_ConfigResource_configs(resources[0], &entries);
  for (std::size_t i = 0; i < entries; ++i) {
    if (rd_kafka_ConfigEntry_source(config[i]) != RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG) {
      continue;
    }
    const char* value = rd_kafka_ConfigEntry_value(config[i]);
    configs[rd_kafka_ConfigEntry_name(config[i])] = value ? value : "";
  }
  return configs;
}

Result<TopicDescription> KafkaAdmin::describe_topic(const std::string& name) {
  auto partitions = partition_count(name);
  if (!partitions) return error(partitions.error());
  auto configs = topic_configs(name);
  if (!configs) return error(configs.error());
  return TopicDescription{.name = name, .partitions = *partitions, .configs = std::move(*configs)};
}

Result<Offset> KafkaAdmin::list_offset(const TopicPartition& partition, OffsetSpec spec) {
  // ListOffsets' timestamps for the first offset and the end (the last stable offset to the
  // read_committed client, the high watermark to the read_uncommitted one).
  constexpr std::int64_t kEarliest = -2;
  constexpr std::int64_t kEnd = -1;
  const std::int64_t timestamp = spec.kind == OffsetSpec::Kind::kTimestamp  ? spec.timestamp.value()
                                 : spec.kind == OffsetSpec::Kind::kEarliest ? kEarliest
                                                                            : kEnd;
  const bool uncommitted = spec.kind == OffsetSpec::Kind::kHighWatermark;
  // Asked of the partition's leader as the client knows it. After a failure that may pass, the
  // next try goes through a new client, which then serves the calls that follow: the leader
  // may have moved or died, and a client that knew it keeps asking it (librdkafka refreshes
  // its metadata only every few minutes). A try lasts up to 5 s: a leader answers in
  // milliseconds, and one that died is better asked again through a new client.
  const std::shared_ptr<rd_kafka_t> known = offset_client(uncommitted);
  std::shared_ptr<rd_kafka_t> client = known;
  PartitionList list;
  const auto code = retry_transient(retry_timeout_, [&] {
    list = make_offset_list({{partition, Offset(timestamp)}});
    auto answer = rd_kafka_offsets_for_times(
        client.get(), list.get(), static_cast<int>(std::min(timeout_, kOffsetTry).count()));
    if (answer == RD_KAFKA_RESP_ERR_NO_ERROR) answer = list->elems[0].err;
    if (is_transient(answer)) {
      if (auto made = make_client(uncommitted ? "read_uncommitted" : "read_committed")) {
        client = std::shared_ptr<rd_kafka_t>(made->release(), HandleDeleter());
      }
    } else if (answer == RD_KAFKA_RESP_ERR_NO_ERROR && client != known) {
      replace_offset_client(uncommitted, client);
    }
    return answer;
  });
  if (code != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return error(kafka_status(code, "listing offsets of " + partition.to_string()));
  }
  const std::int64_t offset = list->elems[0].offset;
  if (offset < 0 && spec.kind == OffsetSpec::Kind::kTimestamp) {  // no record at or after it
    return list_offset(partition, {.kind = OffsetSpec::Kind::kLatest});
  }
  return Offset(offset);
}

Status KafkaAdmin::delete_records_before(const TopicPartition& partition, Offset offset) {
  const std::string what =
      fmt::format("deleting records of {} before {}", partition.to_string(), offset.value());
  PartitionList list = make_offset_list({{partition, offset}});
  rd_kafka_DeleteRecords_t* request = rd_kafka_DeleteRecords_new(list.get());
  auto event = run_request(what, [&](rd_kafka_AdminOptions_t* options, rd_kafka_queue_t* queue) {
    rd_kafka_DeleteRecords(handle_.get(), &request, 1, options, queue);
  });
  rd_kafka_DeleteRecords_destroy(request);
  if (!event) return event.error();
  const auto* offsets =
      rd_kafka_DeleteRecords_result_offsets(rd_kafka_event_DeleteRecords_result(event->get()));
  if (offsets == nullptr || offsets->cnt != 1) return Status::io_error(what + ": no result");
  return kafka_status(offsets->elems[0].err, what);
}

}  // namespace brook::internal
