// kill -9 in the middle of a stream, then restart: at_least_once loses nothing,
// exactly_once_v2 loses nothing and duplicates nothing.
#include <gmock/gmock.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "brook/state_store.h"
#include "count_app_results.h"
#include "embedded_fixture.h"
#include "state/rocksdb/rocksdb_store.h"

namespace brook::testing {
namespace {

constexpr int kRecords = 60'000;

// Runs crash_app; if `kill_after` > 0, SIGKILLs it once it reports that many records.
// `config`: KEY=VALUE settings for the app. Returns the exit status (or -SIGKILL).
int run_app(const std::filesystem::path& dir, const char* guarantee, long kill_after,
            const char* mode = "copy", const std::vector<std::string>& config = {}) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  std::vector<std::string> args{BROOK_CRASH_APP,
                                dir.string(),
                                guarantee,
                                std::to_string(kill_after > 0 ? fds[1] : -1),
                                std::to_string(kill_after),
                                mode};
  args.insert(args.end(), config.begin(), config.end());
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    ::execv(BROOK_CRASH_APP, argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  if (kill_after > 0) {
    pollfd ready{.fd = fds[0], .events = POLLIN, .revents = 0};
    EXPECT_EQ(::poll(&ready, 1, 60'000), 1) << "the app never reported progress";
    ::kill(child, SIGKILL);
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
}

class CrashTest : public EmbeddedFixture {
 protected:
  void SetUp() override { produce_input(kRecords, 101); }

  // Topics "in" and "out" (4 partitions each); "in" holds `records` records, key i % `keys`.
  void produce_input(int records, int keys) {
    create_topics({{"in", 4}, {"out", 4}});
    std::vector<std::pair<std::string, std::string>> input;
    for (int i = 0; i < records; ++i)
      input.emplace_back(std::to_string(i % keys), "v" + std::to_string(i));
    produce("in", input);
  }

  // How often each expected output value appears in "out".
  std::map<std::string, int> output_counts() {
    std::map<std::string, int> counts;
    for (const auto& r : read_all("out")) ++counts[*r.value];
    return counts;
  }

  void crash_and_recover(const char* guarantee) {
    EXPECT_EQ(run_app(dir_, guarantee, kRecords / 3), -SIGKILL);
    const auto partial = output_counts().size();
    EXPECT_LT(partial, static_cast<std::size_t>(kRecords)) << "killed too late to test anything";
    EXPECT_EQ(run_app(dir_, guarantee, 0), 0);
  }
};

TEST_F(CrashTest, AtLeastOnceLosesNothingAcrossKill9) {
  crash_and_recover("at_least_once");
  const auto counts = output_counts();
  ASSERT_EQ(counts.size(), static_cast<std::size_t>(kRecords)) << "records were lost";
  for (int i = 0; i < kRecords; ++i) {
    ASSERT_GE(counts.at("v" + std::to_string(i) + "!"), 1);
  }
}

TEST_F(CrashTest, ExactlyOnceLosesAndDuplicatesNothingAcrossKill9) {
  crash_and_recover("exactly_once_v2");
  const auto counts = output_counts();
  ASSERT_EQ(counts.size(), static_cast<std::size_t>(kRecords)) << "records were lost";
  for (const auto& [value, n] : counts)
    ASSERT_EQ(n, 1) << value << " was written " << n << " times";
}

// The stateful case: the count per key survives kill -9. Under exactly_once_v2 the RocksDB
// stores (which keep the state of their last flushed commit and resume restoring from its
// offset, not from scratch) hold exactly the counts a recomputation from the input gives, and so
// does the latest count per key in "out".
//
// The stores must reach their disk while the app runs, as a large store's do: 20 011 keys, so
// that the record cache collapses few updates and the changelog gets about one record per
// input record, and memtables of 64 KiB (a RocksDB memory budget of 1 MiB), which flush every
// 1 500 or so updates as the default 4 MiB ones do every several tens of thousands.
class StatefulCrashTest : public CrashTest {
 protected:
  static constexpr int kStatefulRecords = 150'000;
  // Enough keys that each store's writes outgrow the 1 MiB of memtables several times
  // however many updates the record cache collapses (a faster app collapses more).
  static constexpr int kStatefulKeys = 60'013;
  // Late enough that each store has flushed several times (its tail then is a small part of
  // its changelog), early enough to leave a third of the input for the restart.
  static constexpr int kKillAfter = kStatefulRecords * 2 / 3;
  static inline const std::vector<std::string> kSmallMemtables{"rocksdb.memory.max.bytes=1048576"};

  void SetUp() override { produce_input(kStatefulRecords, kStatefulKeys); }

  static std::map<std::string, std::int64_t> expected() {
    std::map<std::string, std::int64_t> counts;
    for (int i = 0; i < kStatefulRecords; ++i) ++counts[std::to_string(i % kStatefulKeys)];
    return counts;
  }

  std::map<std::string, std::int64_t> latest_out() { return latest_counts(read_all("out")); }

  // Per task (= changelog partition), the changelog offset each "counts" store on disk holds
  // the state of (its last flushed commit); 0 for a store that holds none.
  std::map<std::int32_t, std::int64_t> flushed_offsets() {
    std::map<std::int32_t, std::int64_t> out;
    auto memory = std::make_shared<internal::RocksDbMemory>(16 << 20);
    for (std::int32_t p = 0; p < 4; ++p) {
      auto store = internal::open_rocksdb_store(
          "counts", dir_ / "state" / "crash-app" / ("0_" + std::to_string(p)) / "counts", memory);
      EXPECT_TRUE(store) << store.error().to_string();
      const auto committed = store ? (*store)->committed_offset() : std::nullopt;
      out[p] = committed ? committed->value() : 0;
    }
    return out;
  }

  // The records the app's store restorations read, in all.
  std::int64_t restored() {
    std::ifstream file(dir_ / "restored.txt");
    std::int64_t total = 0;
    for (std::int64_t n; file >> n;) total += n;
    return total;
  }
};

TEST_F(StatefulCrashTest, ExactlyOnceCountsAreExactInStoresAndOutputAcrossKill9) {
  EXPECT_EQ(run_app(dir_, "exactly_once_v2", kKillAfter, "count", kSmallMemtables), -SIGKILL);
  // Every store kept the state of its last flushed commit...
  const auto flushed = flushed_offsets();
  std::int64_t changelog = 0;
  std::int64_t tail = 0;  // the changelog records after what the stores hold
  for (const auto& r : read_all("crash-app-counts-changelog")) {
    ++changelog;
    tail += r.offset.value() >= flushed.at(r.partition.value()) ? 1 : 0;
  }
  for (const auto& [partition, offset] : flushed) EXPECT_GT(offset, 0) << "task 0_" << partition;
  EXPECT_EQ(run_app(dir_, "exactly_once_v2", 0, "count", kSmallMemtables), 0);
  EXPECT_EQ(counts_on_disk(dir_ / "state", 4), expected());
  EXPECT_EQ(latest_out(), expected());
  // ...so restoration read only the tail after it: a small part of the changelog.
  EXPECT_LE(restored(), tail) << "of " << changelog << " changelog records";
  EXPECT_LT(restored(), changelog / 2) << "of " << changelog << " changelog records";
}

TEST_F(StatefulCrashTest, AtLeastOnceCountsLoseNothingAcrossKill9) {
  EXPECT_EQ(run_app(dir_, "at_least_once", kKillAfter, "count", kSmallMemtables), -SIGKILL);
  EXPECT_EQ(run_app(dir_, "at_least_once", 0, "count", kSmallMemtables), 0);
  const auto on_disk = counts_on_disk(dir_ / "state", 4);
  ASSERT_EQ(on_disk.size(), expected().size());
  for (const auto& [key, n] : expected()) EXPECT_GE(on_disk.at(key), n) << key;
}

}  // namespace
}  // namespace brook::testing
