// Streams: a running Brook application. Runs a Topology with several stream threads over a
// log backend (the embedded log on local disk by default) until closed.
//
//   brook::Streams app(*topology, {{"application.id", "log-router"}});
//   return app.run_until_signal();   // Ctrl-C or SIGTERM: commit, close, exit 0
//
// Configuration (all values strings; an unknown key or a bad value is an error naming it):
//   application.id            required; the consumer group and the prefix of internal topics
//   data.dir                  the embedded log's directory (default ./brook-data)
//   num.stream.threads        default 1
//   num.standby.replicas      standby copies of each task's RocksDB stores kept current on
//                             other instances, where the task goes if its instance fails
//                             (default 0; Kafka only)
//   max.warmup.replicas       an instance joining a group first warms up the RocksDB stores of
//                             this many of the tasks it will get at a time (default 2; 0: joins
//                             at once; Kafka only)
//   acceptable.recovery.lag   records a warm-up may lag by and count as caught up (default 10000)
//   processing.guarantee      at_least_once (default) | exactly_once_v2
//   commit.interval.ms        default 30000 (100 under exactly_once_v2)
//   poll.ms                   how long a thread waits for records (default 100)
//   max.poll.records          default 1000
//   max.task.idle.ms          0 (default): a task reading several partitions (a join's inputs)
//                             waits for one with nothing buffered while the log holds more
//                             for it, so it takes records in timestamp order across them; > 0:
//                             then waits up to this long for new ones; -1: never waits
//   buffered.records.per.partition  records a task buffers per input partition before its
//                             thread stops reading that partition for a while (default 1000)
//   default.deserialization.exception.handler   fail (default) | log-and-continue | dead-letter
//   processing.exception.handler                fail (default) | log-and-continue | dead-letter
//   default.production.exception.handler        fail (default) | log-and-continue
//   errors.dead.letter.queue.topic.name         required with dead-letter
//   log.fsync                 embedded log: fsync on every commit (default false)
//   state.dir                 where RocksDB stores live (default <data.dir>/state)
//   statestore.cache.max.bytes  record cache of all threads together (default 10485760)
//   rocksdb.memory.max.bytes  block cache + memtables of all RocksDB stores (default 268435456)
//   windowstore.changelog.additional.retention.ms  a window or session store's changelog keeps
//                             records this much longer than the store (default 86400000)
//   stream.time.idle.advance.ms  unset (default): stream time moves only with records; set:
//                             a task with nothing to process for this long moves its stream
//                             time with the wall clock (see docs/event_time.md)
//   bootstrap.servers         host:port,...: run on this Kafka cluster instead of the embedded
//                             log; instances with the same application.id share its partitions
//   group.instance.id         Kafka: static membership (a restart within the session timeout
//                             keeps its partitions); unique per instance; also names the
//                             instance's transactional producers
//   kafka.<name>              Kafka: a librdkafka setting for every client (security.protocol...)
//   producer.<name>, consumer.<name>   Kafka: a librdkafka setting for producers / consumers only
//   producer.batch.size, producer.linger.ms  also the embedded log's: a partition's output is
//                             appended once it holds this many bytes as the log encodes them
//                             (default 1048576), and all of it once the oldest record has
//                             waited this long, checked after each poll (default 0: every
//                             poll); under exactly_once_v2 output lands at each commit instead
//   application.server        host:port this instance answers interactive queries on: it is
//                             announced to the other instances (brook/streams_metadata.h) and
//                             brook::serve() listens there (brook/serve.h)
//   serve.<name>              settings of the HTTP server (brook/serve.h), kept for serve()
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "brook/interactive_query.h"
#include "brook/metrics.h"
#include "brook/restore_listener.h"
#include "brook/status.h"
#include "brook/streams_metadata.h"
#include "brook/topology.h"

namespace brook {
namespace internal {
class LogBackend;
}  // namespace internal

class Streams {
 public:
  enum class State { kCreated, kRebalancing, kRunning, kPendingShutdown, kNotRunning, kError };
  // Called on the thread that caused the change, after it happened; one change at a time, in
  // order (never from two threads at once). It must not wait for the application (close()).
  using StateListener = std::function<void(State new_state, State old_state)>;

  Streams(Topology topology, std::map<std::string, std::string> config);
  ~Streams();  // close()s
  Streams(const Streams&) = delete;
  Streams& operator=(const Streams&) = delete;

  // Checks the configuration and the topics (every mistake at once), opens the backend and
  // starts the threads. kFailedPrecondition if already started.
  Status start();
  // Stops the threads after a final commit, waiting up to `timeout` for them. Returns the
  // error that stopped the application, if one did; kFailedPrecondition if the threads are
  // still finishing after `timeout` (they go on; call close() again to wait for them).
  // Idempotent.
  Status close(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // start() (unless started: then block SIGINT and SIGTERM in every thread before start()),
  // then wait for SIGINT or SIGTERM (or a fatal error), then close(). Returns the process exit
  // code: 0 after a clean shutdown, 1 after an error (printed to stderr).
  int run_until_signal();
  // Runs until every record in the input topics (repartition topics too) is processed and
  // committed (lag() == 0), then close()s: for batch jobs, reprocessing, demos and tests.
  // start()s first unless started. Returns the error that stopped the application, if one
  // did, else kDeadlineExceeded if it had not caught up within `timeout` (it is closed all the
  // same), else close()'s status. Warns on stderr about source topics that hold no records
  // (empty, or emptied by retention), so an input that expired does not go unnoticed. The
  // commit interval sets how soon the end is seen: a batch job wants a short one.
  Status run_until_idle(std::chrono::milliseconds timeout = std::chrono::hours(24));
  // Deletes this instance's local state (its stores under state.dir/<application.id>), as
  // Kafka Streams' cleanUp(): the next start() restores every store from its changelog.
  // Only before start() or after close() (kFailedPrecondition otherwise), and not while
  // another process runs the application on the same state dir (kFailedPrecondition naming
  // its pid: a started application locks state.dir/<application.id>). The log and its topics
  // are untouched.
  Status cleanup();

  State state() const;
  void set_state_listener(StateListener listener);
  // Waits until state() == `state`: ok once it is. Returns at once when the application can no
  // longer get there (the transitions above): the error that stopped it in ERROR, else
  // kFailedPrecondition; kDeadlineExceeded after `timeout`.
  Status wait_for_state(State state, std::chrono::milliseconds timeout) const;

  // Told about every store restoration. Call before start().
  void set_restore_listener(std::shared_ptr<StateRestoreListener> listener);

  // A read-only view of the store `name` over this instance's tasks (see
  // brook/interactive_query.h). kNotFound if the topology has no such store; kInvalidArgument
  // if its types are not <K, V> (or <K, ValueAndTimestamp<V>>) or it is a window or session
  // store; kFailedPrecondition before start(). `options`: whether it may answer from standby
  // replicas and restoring tasks (stale).
  template <class K, class V>
  Result<ReadOnlyKeyValueStore<K, V>> store(std::string_view name,
                                            StoreQueryOptions options = {}) const {
    auto query = store_query(name, options);
    if (!query) return error(std::move(query.error()));
    const auto& spec = (*query)->spec();
    auto decode = internal::query_value_decoder<K, V>(spec, internal::StoreKind::kKeyValue);
    if (!decode) return error(std::move(decode.error()));
    return ReadOnlyKeyValueStore<K, V>(
        *query, std::static_pointer_cast<const Serde<K>>(spec.key_serde), std::move(*decode));
  }
  // The same for a window store (of a windowed aggregation): kInvalidArgument also if `name` is
  // not a window store.
  template <class K, class V>
  Result<ReadOnlyWindowStore<K, V>> window_store(std::string_view name,
                                                 StoreQueryOptions options = {}) const {
    auto query = store_query(name, options);
    if (!query) return error(std::move(query.error()));
    const auto& spec = (*query)->spec();
    auto decode = internal::query_value_decoder<K, V>(spec, internal::StoreKind::kWindow);
    if (!decode) return error(std::move(decode.error()));
    return ReadOnlyWindowStore<K, V>(*query,
                                     std::static_pointer_cast<const Serde<K>>(spec.key_serde),
                                     std::move(*decode), spec.window_size);
  }
  // The same for a session store.
  template <class K, class V>
  Result<ReadOnlySessionStore<K, V>> session_store(std::string_view name,
                                                   StoreQueryOptions options = {}) const {
    auto query = store_query(name, options);
    if (!query) return error(std::move(query.error()));
    const auto& spec = (*query)->spec();
    auto decode = internal::query_value_decoder<K, V>(spec, internal::StoreKind::kSession);
    if (!decode) return error(std::move(decode.error()));
    return ReadOnlySessionStore<K, V>(
        *query, std::static_pointer_cast<const Serde<K>>(spec.key_serde), std::move(*decode));
  }

  // Instance metadata, for sending a query to the instance that holds its key. Instances
  // with an application.server announce themselves to each other (docs/architecture.md);
  // without one, an instance knows only itself. Empty before start().
  //
  // Every instance of the application known now, this one first.
  std::vector<StreamsMetadata> metadata_for_all_clients() const;
  // The instances that host a partition of `store` now, active or standby; kNotFound if there
  // is no such store.
  Result<std::vector<StreamsMetadata>> metadata_for_store(std::string_view store) const;
  // The instance whose active task holds `key` of `store`, and those keeping standbys of it.
  // kNotFound for an unknown store; kInvalidArgument if its keys are not K; kUnavailable (retry)
  // if no instance holds the key's partition now, active or standby (a rebalance is moving it);
  // kFailedPrecondition before start().
  template <class K>
  Result<KeyQueryMetadata> query_metadata_for_key(std::string_view store, const K& key) const {
    auto query = store_query(store);
    if (!query) return error(std::move(query.error()));
    const auto& spec = (*query)->spec();
    if (spec.key_type != typeid(K)) {
      return error(Status::invalid_argument("store " + spec.name + " has keys of type " +
                                            spec.key_type_name + ", not " +
                                            internal::type_name<K>()));
    }
    auto bytes = std::static_pointer_cast<const Serde<K>>(spec.key_serde)->serialize(key);
    if (!bytes) return error(std::move(bytes.error()));
    return query_metadata_for_serialized_key(store, *bytes);
  }
  // The same for a key already serialised with the store's key serde.
  Result<KeyQueryMetadata> query_metadata_for_serialized_key(std::string_view store,
                                                             std::string_view key) const;
  // How far each local store partition (of the tasks here, and of the standby replicas here,
  // marked `standby`) is behind its changelog, by store and partition; kUnavailable while
  // tasks move; kFailedPrecondition before start(). A task's store asks the log for its
  // changelog's end; a standby's counts from the end its consumer saw in its last fetch.
  Result<std::map<std::string, std::map<std::int32_t, LagInfo>>> local_store_lags() const;
  // The same for one local store partition: the active task's if it runs here, else the
  // standby's; kNotFound if this instance holds neither.
  Result<LagInfo> local_store_lag(std::string_view store, std::int32_t partition) const;

  // The topology it runs, and its configuration as given.
  const Topology& topology() const;
  const std::map<std::string, std::string>& config() const;
  // The untyped query of store `name` (errors as store()): for the serve layer, which finds
  // the types from the store's spec. Not for applications.
  Result<std::shared_ptr<internal::StoreQuery>> store_query(std::string_view name,
                                                            StoreQueryOptions options = {}) const;
  // The log this application runs on, from start() to close() (null otherwise): for a source
  // in the same process that writes into it (brook/postgres_source.h), as the embedded log's
  // data dir is one process's. Not for applications.
  std::shared_ptr<internal::LogBackend> log_backend() const;

  // Records in the source topics, repartition topics included, not yet processed and
  // committed by this application: 0 once it has caught up with its input.
  Result<std::int64_t> lag() const;
  // The same per source (and repartition) topic and partition.
  Result<std::map<std::string, std::map<std::int32_t, std::int64_t>>> partition_lags() const;
  const Metrics& metrics() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

std::string_view to_string(Streams::State state);

}  // namespace brook
