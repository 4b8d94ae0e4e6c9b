// Raw librdkafka (C API) for the Kafka benchmarks: the broker address, unique names, topic
// setup and cleanup, filling an input topic, and the hand-written baselines: a consume ->
// transform -> produce loop (at-least-once or transactional) and reading partitions up to
// given offsets (a restoration). The benchmarks are the only code outside src/backend/kafka that
// include librdkafka (DESIGN.md allows it nowhere else). Every helper throws std::runtime_error on
// a failure.
#pragma once

#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "compare.h"
#include "streams_timing.h"

namespace brook::bench {

// $BROOK_KAFKA_BOOTSTRAP; exits the program with instructions if it is unset.
inline const std::string& kafka_bootstrap() {
  static const std::string address = [] {
    const char* env = std::getenv("BROOK_KAFKA_BOOTSTRAP");
    if (env == nullptr || *env == '\0') {
      std::fprintf(stderr,
                   "BROOK_KAFKA_BOOTSTRAP is not set: start a broker and export its address:\n"
                   "  export BROOK_KAFKA_BOOTSTRAP=$(scripts/kafka.sh start | tail -1)\n");
      std::exit(2);
    }
    return std::string(env);
  }();
  return address;
}

// "<prefix>-<pid>-<milliseconds since the epoch>-<n>": topics and groups on a shared broker.
inline std::string unique_name(std::string_view prefix) {
  static int n = 0;
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  return std::string(prefix) + "-" + std::to_string(::getpid()) + "-" + std::to_string(ms) + "-" +
         std::to_string(++n);
}

struct RdKafkaDestroy {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
using RdKafka = std::unique_ptr<rd_kafka_t, RdKafkaDestroy>;
struct PartitionListDestroy {
  void operator()(rd_kafka_topic_partition_list_t* list) const {
    rd_kafka_topic_partition_list_destroy(list);
  }
};
using PartitionList = std::unique_ptr<rd_kafka_topic_partition_list_t, PartitionListDestroy>;

inline void check(rd_kafka_resp_err_t err, std::string_view what) {
  if (err) throw std::runtime_error(std::string(what) + ": " + rd_kafka_err2str(err));
}
inline void check(rd_kafka_error_t* error, std::string_view what) {
  if (error == nullptr) return;
  std::string message = std::string(what) + ": " + rd_kafka_error_string(error);
  rd_kafka_error_destroy(error);
  throw std::runtime_error(message);
}

// `settings` with the prefetch Brook's consumers use (src/backend/kafka/kafka_consumer.cc):
// with librdkafka 2.0's defaults a reader stops for up to a second each time 100 000 records
// are queued, which would make the baselines wait where Brook does not.
inline std::map<std::string, std::string> with_prefetch(
    std::map<std::string, std::string> settings) {
  settings.emplace("queued.min.messages", "500000");
  settings.emplace("queued.max.messages.kbytes", "32768");
  return settings;
}

// A client of the broker with `settings` (librdkafka names); `configure` may set callbacks.
inline RdKafka make_client(rd_kafka_type_t type, const std::map<std::string, std::string>& settings,
                           void (*configure)(rd_kafka_conf_t*) = nullptr, void* opaque = nullptr) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  auto set = [&](const std::string& name, const std::string& value) {
    if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      throw std::runtime_error(name + ": " + err);
    }
  };
  set("bootstrap.servers", kafka_bootstrap());
  for (const auto& [name, value] : settings) set(name, value);
  if (configure) configure(conf);
  rd_kafka_conf_set_opaque(conf, opaque);
  rd_kafka_t* rk = rd_kafka_new(type, conf, err, sizeof err);
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    throw std::runtime_error(std::string("rd_kafka_new: ") + err);
  }
  return RdKafka(rk);
}

// Runs an admin request on `rk` and waits for its result event; throws on any error.
template <class Request>
void admin_request(rd_kafka_t* rk, rd_kafka_event_type_t result_type, Request request) {
  rd_kafka_queue_t* queue = rd_kafka_queue_new(rk);
  request(queue);
  rd_kafka_event_t* event = rd_kafka_queue_poll(queue, 60'000);
  rd_kafka_queue_destroy(queue);
  if (event == nullptr) throw std::runtime_error("admin request timed out");
  std::string failure;
  if (rd_kafka_event_error(event)) failure = rd_kafka_event_error_string(event);
  const rd_kafka_topic_result_t* const* results = nullptr;
  std::size_t n = 0;
  if (result_type == RD_KAFKA_EVENT_CREATETOPICS_RESULT) {
    results = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event), &n);
  } else {
    results = rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(event), &n);
  }
  for (std::size_t i = 0; i < n && failure.empty(); ++i) {
    if (rd_kafka_topic_result_error(results[i])) {
      failure = std::string(rd_kafka_topic_result_name(results[i])) + ": " +
                rd_kafka_topic_result_error_string(results[i]);
    }
  }
  rd_kafka_event_destroy(event);
  if (!failure.empty()) throw std::runtime_error(failure);
}

// Creates `name` and waits until every partition has a leader.
inline void create_topic(const std::string& name, int partitions) {
  auto rk = make_client(RD_KAFKA_PRODUCER, {});
  char err[512];
  rd_kafka_NewTopic_t* topic = rd_kafka_NewTopic_new(name.c_str(), partitions, 1, err, sizeof err);
  if (topic == nullptr) throw std::runtime_error(name + ": " + err);
  admin_request(rk.get(), RD_KAFKA_EVENT_CREATETOPICS_RESULT, [&](rd_kafka_queue_t* queue) {
    rd_kafka_CreateTopics(rk.get(), &topic, 1, nullptr, queue);
  });
  rd_kafka_NewTopic_destroy(topic);
  // Waits until every partition has a leader, so that the benchmark's clients find it ready.
  rd_kafka_topic_t* handle = rd_kafka_topic_new(rk.get(), name.c_str(), nullptr);
  for (auto deadline = Clock::now() + std::chrono::seconds(30);;) {
    const rd_kafka_metadata_t* metadata = nullptr;
    bool ready = false;
    if (rd_kafka_metadata(rk.get(), 0, handle, &metadata, 5'000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      const auto& t = metadata->topics[0];
      ready = t.err == RD_KAFKA_RESP_ERR_NO_ERROR && t.partition_cnt == partitions;
      for (int p = 0; ready && p < t.partition_cnt; ++p) {
        ready = t.partitions[p].err == RD_KAFKA_RESP_ERR_NO_ERROR && t.partitions[p].leader >= 0;
      }
      rd_kafka_metadata_destroy(metadata);
    }
    if (ready) break;
    if (Clock::now() > deadline) {
      rd_kafka_topic_destroy(handle);
      throw std::runtime_error(name + ": no leader after 30 s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  rd_kafka_topic_destroy(handle);
}

// Deletes every topic whose name starts with `prefix`.
inline void delete_topics_with_prefix(const std::string& prefix) {
  auto rk = make_client(RD_KAFKA_PRODUCER, {});
  const rd_kafka_metadata_t* metadata = nullptr;
  check(rd_kafka_metadata(rk.get(), 1, nullptr, &metadata, 30'000), "listing topics");
  std::vector<rd_kafka_DeleteTopic_t*> doomed;
  for (int i = 0; i < metadata->topic_cnt; ++i) {
    if (std::string_view(metadata->topics[i].topic).starts_with(prefix)) {
      doomed.push_back(rd_kafka_DeleteTopic_new(metadata->topics[i].topic));
    }
  }
  rd_kafka_metadata_destroy(metadata);
  if (doomed.empty()) return;
  admin_request(rk.get(), RD_KAFKA_EVENT_DELETETOPICS_RESULT, [&](rd_kafka_queue_t* queue) {
    rd_kafka_DeleteTopics(rk.get(), doomed.data(), doomed.size(), nullptr, queue);
  });
  rd_kafka_DeleteTopic_destroy_array(doomed.data(), doomed.size());
}

// Makes `client` fetch the metadata of `topic` now: librdkafka (2.0) otherwise learns a topic
// it has not seen on its next 1-second timer, delaying the first record sent to it.
inline void learn_topic(rd_kafka_t* client, const std::string& topic) {
  rd_kafka_topic_t* handle = rd_kafka_topic_new(client, topic.c_str(), nullptr);
  const rd_kafka_metadata_t* metadata = nullptr;
  const auto err = rd_kafka_metadata(client, 0, handle, &metadata, 30'000);
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR) rd_kafka_metadata_destroy(metadata);
  rd_kafka_topic_destroy(handle);
  check(err, "reading the metadata of " + topic);
}

// The topics of one benchmark process, named "<prefix>-<pid>-<time>-<n>-<what><n>", and the
// internal topics of the applications whose ids name() made: all deleted on destruction.
class BenchTopics {
 public:
  explicit BenchTopics(std::string_view prefix) : prefix_(unique_name(prefix)) {}
  ~BenchTopics() {
    try {
      delete_topics_with_prefix(prefix_);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "deleting the topics %s-*: %s\n", prefix_.c_str(), e.what());
    }
  }
  BenchTopics(const BenchTopics&) = delete;
  BenchTopics& operator=(const BenchTopics&) = delete;

  // A fresh name under the prefix (a topic, a group, an application id).
  std::string name(std::string_view what) {
    return prefix_ + "-" + std::string(what) + std::to_string(++names_);
  }
  // A fresh topic with `partitions` partitions.
  std::string create(std::string_view what, int partitions) {
    auto topic = name(what);
    create_topic(topic, partitions);
    return topic;
  }

 private:
  std::string prefix_;
  int names_ = 0;
};

// Counts delivery failures of a producer (its opaque is a std::int64_t counter).
inline void count_failed_deliveries(rd_kafka_conf_t* conf) {
  rd_kafka_conf_set_dr_msg_cb(conf, [](rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    if (m->err) ++*static_cast<std::int64_t*>(opaque);
  });
}

// Sends one record, waiting while the producer's queue is full.
// `timestamp_ms` 0: the time of sending (librdkafka's default).
inline void send(rd_kafka_t* producer, const std::string& topic, std::int32_t partition,
                 std::string_view key, std::string_view value, std::int64_t timestamp_ms = 0) {
  while (true) {
    const auto err =
        rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(topic.c_str()),
                          RD_KAFKA_V_PARTITION(partition), RD_KAFKA_V_KEY(key.data(), key.size()),
                          RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                          RD_KAFKA_V_TIMESTAMP(timestamp_ms),
                          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
    if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) return check(err, "producing to " + topic);
    rd_kafka_poll(producer, 10);
  }
}

inline void flush(rd_kafka_t* producer, const std::int64_t& failures) {
  check(rd_kafka_flush(producer, 60'000), "flushing");
  if (failures > 0) throw std::runtime_error(std::to_string(failures) + " records not delivered");
}

// Writes `records` records to `topic`: `make(i, key, value)` fills record i and returns its
// partition (RD_KAFKA_PARTITION_UA: murmur2 of the key, as Brook and the Java client partition);
// `timestamp_of(i)`, if given, is record i's timestamp in ms (else the time of sending).
template <class Make>
void produce_records(const std::string& topic, std::int64_t records, Make make,
                     const std::function<std::int64_t(std::int64_t)>& timestamp_of = {}) {
  std::int64_t failures = 0;
  auto producer =
      make_client(RD_KAFKA_PRODUCER, {{"partitioner", "murmur2_random"}, {"linger.ms", "20"}},
                  count_failed_deliveries, &failures);
  std::string key, value;
  for (std::int64_t i = 0; i < records; ++i) {
    const std::int32_t partition = make(i, key, value);
    send(producer.get(), topic, partition, key, value, timestamp_of ? timestamp_of(i) : 0);
    rd_kafka_poll(producer.get(), 0);
  }
  flush(producer.get(), failures);
}

// The hand-written application (one thread): subscribe to `input` in a fresh group, poll one
// record at a time, `process(key, value, emit)` calls emit(key, value) for each output record
// (produced to `output`, partitioned by murmur2 of the key), and every `commit_interval`: at
// least once, flush the producer then commit the offsets reached; transactional, send the
// offsets to the transaction, commit it and begin the next. Ends once `records` input records
// were read, with a last flush and commit. Returns the seconds from the partitions' assignment
// to that last commit.
struct LoopOptions {
  std::string input;
  std::string output;
  std::int64_t records = 0;
  bool transactional = false;
  std::chrono::milliseconds commit_interval{100};
};

template <class Process>
double consume_transform_produce(const LoopOptions& options, Process process) {
  std::int64_t failures = 0;
  std::map<std::string, std::string> producer_settings = {{"enable.idempotence", "true"},
                                                          {"partitioner", "murmur2_random"}};
  if (options.transactional) {
    producer_settings["transactional.id"] = unique_name("bench-txn");
  }
  auto producer =
      make_client(RD_KAFKA_PRODUCER, producer_settings, count_failed_deliveries, &failures);
  learn_topic(producer.get(), options.output);
  if (options.transactional) {
    check(rd_kafka_init_transactions(producer.get(), 30'000), "init_transactions");
    check(rd_kafka_begin_transaction(producer.get()), "begin_transaction");
  }
  Clock::time_point assigned{};
  auto consumer = make_client(
      RD_KAFKA_CONSUMER,
      with_prefetch(
          {{"group.id", unique_name("bench-loop")},
           {"enable.auto.commit", "false"},
           {"auto.offset.reset", "earliest"},
           {"isolation.level", options.transactional ? "read_committed" : "read_uncommitted"}}),
      [](rd_kafka_conf_t* conf) {
        rd_kafka_conf_set_rebalance_cb(conf, [](rd_kafka_t* rk, rd_kafka_resp_err_t err,
                                                rd_kafka_topic_partition_list_t* partitions,
                                                void* opaque) {
          auto& at = *static_cast<Clock::time_point*>(opaque);
          if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS && at == Clock::time_point{}) {
            at = Clock::now();
          }
          rd_kafka_assign(rk, err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS ? partitions : nullptr);
        });
      },
      &assigned);
  PartitionList subscription(rd_kafka_topic_partition_list_new(1));
  rd_kafka_topic_partition_list_add(subscription.get(), options.input.c_str(),
                                    RD_KAFKA_PARTITION_UA);
  check(rd_kafka_subscribe(consumer.get(), subscription.get()), "subscribing");

  std::map<std::int32_t, std::int64_t> next;  // per input partition, the offset to commit
  auto commit = [&] {
    PartitionList offsets(rd_kafka_topic_partition_list_new(static_cast<int>(next.size())));
    for (auto [partition, offset] : next) {
      rd_kafka_topic_partition_list_add(offsets.get(), options.input.c_str(), partition)->offset =
          offset;
    }
    if (!options.transactional) {
      flush(producer.get(), failures);
      return check(rd_kafka_commit(consumer.get(), offsets.get(), 0), "committing");
    }
    auto* group = rd_kafka_consumer_group_metadata(consumer.get());
    rd_kafka_error_t* error =
        rd_kafka_send_offsets_to_transaction(producer.get(), offsets.get(), group, 30'000);
    rd_kafka_consumer_group_metadata_destroy(group);
    check(error, "send_offsets_to_transaction");
    check(rd_kafka_commit_transaction(producer.get(), 30'000), "commit_transaction");
    if (failures > 0) throw std::runtime_error("records not delivered");
  };

  auto emit = [&](std::string_view key, std::string_view value) {
    send(producer.get(), options.output, RD_KAFKA_PARTITION_UA, key, value);
  };
  auto last_commit = Clock::now();
  for (std::int64_t seen = 0; seen < options.records;) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer.get(), 100);
    rd_kafka_poll(producer.get(), 0);
    if (m != nullptr) {
      if (m->err) {
        std::string message = rd_kafka_message_errstr(m);
        rd_kafka_message_destroy(m);
        throw std::runtime_error("consuming: " + message);
      }
      process(std::string_view(static_cast<const char*>(m->key), m->key_len),
              std::string_view(static_cast<const char*>(m->payload), m->len), emit);
      next[m->partition] = m->offset + 1;
      ++seen;
      rd_kafka_message_destroy(m);
    }
    if (Clock::now() - last_commit >= options.commit_interval && !next.empty()) {
      commit();
      if (options.transactional) check(rd_kafka_begin_transaction(producer.get()), "begin");
      last_commit = Clock::now();
    }
  }
  commit();
  const double seconds = seconds_since(assigned);
  rd_kafka_consumer_close(consumer.get());
  return seconds;
}

// The next offset of `partition` of `topic` after its last record: the high watermark, as a
// read_uncommitted consumer sees it (librdkafka's default, read_committed, would give the last
// stable offset, which trails a just-committed transaction until its markers are written).
inline std::int64_t end_offset(const std::string& topic, std::int32_t partition) {
  auto rk = make_client(RD_KAFKA_CONSUMER, {{"isolation.level", "read_uncommitted"}});
  std::int64_t low = 0, high = 0;
  check(rd_kafka_query_watermark_offsets(rk.get(), topic.c_str(), partition, &low, &high, 30'000),
        "querying offsets of " + topic);
  return high;
}

// Reads partitions of `topic` from their beginning up to an offset each (`ends`: partition ->
// end offset, exclusive), in batches of up to `batch` records: `on_batch(std::span<const
// rd_kafka_message_t* const>)` per poll.
struct ReadResult {
  std::int64_t records = 0;
  double seconds = 0;  // from the assignment to the end of the last on_batch
};
template <class OnBatch>
ReadResult read_partitions(const std::string& topic, std::map<std::int32_t, std::int64_t> ends,
                           OnBatch on_batch, std::size_t batch = 10'000) {
  auto consumer = make_client(
      RD_KAFKA_CONSUMER,
      with_prefetch({{"group.id", unique_name("bench-reader")}, {"enable.auto.commit", "false"}}));
  PartitionList assignment(rd_kafka_topic_partition_list_new(static_cast<int>(ends.size())));
  for (auto [p, end] : ends) {
    rd_kafka_topic_partition_list_add(assignment.get(), topic.c_str(), p)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
  }
  std::erase_if(ends, [](const auto& e) { return e.second <= 0; });
  const auto start = Clock::now();
  check(rd_kafka_assign(consumer.get(), assignment.get()), "assigning");
  rd_kafka_queue_t* queue = rd_kafka_queue_get_consumer(consumer.get());
  std::vector<rd_kafka_message_t*> messages(batch);
  std::vector<const rd_kafka_message_t*> wanted;
  ReadResult result;
  while (!ends.empty()) {
    const ssize_t n = rd_kafka_consume_batch_queue(queue, 100, messages.data(), batch);
    std::string failure;
    wanted.clear();
    for (ssize_t i = 0; i < n; ++i) {
      const rd_kafka_message_t* m = messages[i];
      auto it = ends.find(m->partition);
      if (m->err) failure = rd_kafka_message_errstr(m);
      if (it == ends.end() || m->offset >= it->second) continue;
      wanted.push_back(m);
      if (m->offset + 1 >= it->second) ends.erase(it);
    }
    if (failure.empty()) on_batch(std::span<const rd_kafka_message_t* const>(wanted));
    for (ssize_t i = 0; i < n; ++i) rd_kafka_message_destroy(messages[i]);
    if (!failure.empty()) {
      rd_kafka_queue_destroy(queue);
      throw std::runtime_error("reading " + topic + ": " + failure);
    }
    result.records += static_cast<std::int64_t>(wanted.size());
  }
  result.seconds = seconds_since(start);
  rd_kafka_queue_destroy(queue);
  return result;
}

// main() of a Kafka benchmark: exits with instructions without a broker, runs `prepare` (e.g.
// writes the input, untimed), then the benchmarks with 3 repetitions of one timed iteration.
template <class Prepare>
int run_kafka_benchmarks(int argc, char** argv, Prepare prepare) {
  kafka_bootstrap();
  try {
    prepare();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "preparing the benchmarks: %s\n", e.what());
    return 1;
  }
  return run_and_compare(argc, argv, {"--benchmark_repetitions=3"});
}

}  // namespace brook::bench
