// InstanceDirectory: what one instance of an application knows about the others, for routing
// interactive queries. Every instance with an application.server announces itself on the
// application's compacted topic <application.id>-instances (one partition, keyed by
// application.server): its state, its active tasks, the store partitions they hold and those
// its standby replicas keep. It announces again whenever these or its state change and at
// every heartbeat, and deletes its announcement (a tombstone) when it closes. Every instance
// reads the whole topic.
//
// An instance not heard from within the expiry (killed) is forgotten; an announcement's age
// counts from the wall-clock time it was sent (the instances' clocks are assumed in sync to
// well within the expiry). When two announcements
// claim one store partition (an instance killed before it could take its claim back, its task
// already moved), the newer one wins: the live owner re-announces at every heartbeat.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backend/log_backend.h"
#include "brook/streams_metadata.h"

namespace brook::internal {

// One instance's announcement: its metadata, stamped with the wall-clock time it was sent.
struct Announcement {
  StreamsMetadata metadata;
  std::int64_t sent_ms = 0;
};
std::string encode_announcement(const Announcement& announcement);
// kInvalidArgument if `json` is not an announcement.
Result<Announcement> decode_announcement(std::string_view json);

// The application.server of the instance whose active task holds `partition` of `store`:
// `local` if it holds it, else the newest of `others` claiming it; nullopt if none does.
std::optional<std::string> owner_of(const StreamsMetadata& local,
                                    const std::vector<Announcement>& others,
                                    const std::string& store, std::int32_t partition);
// The application.server of the instances keeping a standby replica of `partition` of `store`:
// `local` first if it keeps one, then `others` in their order.
std::vector<std::string> standbys_of(const StreamsMetadata& local,
                                     const std::vector<Announcement>& others,
                                     const std::string& store, std::int32_t partition);

class InstanceDirectory {
 public:
  struct Options {
    std::string topic;   // <application.id>-instances
    std::string server;  // this instance's application.server: the key of its announcements
    std::chrono::milliseconds heartbeat{1000};
    std::chrono::milliseconds expiry{5000};  // forget an instance not heard from for this long
  };
  // This instance's metadata now, and a number that changes whenever it does.
  using LocalView = std::function<StreamsMetadata()>;
  using Version = std::function<std::uint64_t()>;

  InstanceDirectory(LogBackend& backend, Options options, LocalView local, Version version);
  ~InstanceDirectory();  // stop()s

  // Creates the clients and starts the thread that announces and reads announcements.
  Status start();
  // Deletes this instance's announcement and stops the thread. Idempotent.
  void stop();

  // The other instances heard from within the expiry, newest announcement first.
  std::vector<Announcement> others() const;

 private:
  void run();
  Status announce(bool tombstone);
  void apply(const ConsumerRecord& record);

  LogBackend& backend_;
  Options options_;
  LocalView local_;
  Version version_;
  std::unique_ptr<Producer> producer_;
  std::unique_ptr<Consumer> consumer_;

  struct Heard {
    Announcement announcement;
    std::chrono::steady_clock::time_point fresh_until;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Heard> heard_;  // by application.server, this instance's excluded
  std::atomic<bool> stop_ = false;
  std::thread thread_;
};

}  // namespace brook::internal
