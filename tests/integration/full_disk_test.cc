// A full disk: the count app of crash_app.cc runs with its state dir, or its whole data dir, on
// a tmpfs too small for what it writes. It must stop with the error naming what failed and a
// non-zero exit code, not a signal; and a restart on a copy of that disk with room to spare
// must continue exactly: under exactly_once_v2 every count equals a recomputation from the
// input, under at_least_once no record is lost.
//
// Mounting a tmpfs needs root; the test mounts it in a user and mount namespace of its own
// (`unshare --user --map-root-user --mount`), which an unprivileged process may create.
//
// A failing fsync, which no disk produces on request, is preloaded into the app instead
// (tests/faults/failing_fsync.cc): the same count app, with log.fsync, must stop naming the file
// and the error, and continue the same way on a restart where fsync works.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "brook/state_store.h"
#include "count_app_results.h"
#include "embedded_fixture.h"
#include "run_process.h"

namespace brook::testing {
namespace {

constexpr int kKeys = 30'000;
constexpr int kFullDiskRecords = 3 * kKeys;
constexpr int kPartitions = 4;
constexpr std::uintmax_t kMiB = 1 << 20;
constexpr std::uintmax_t kRoom = 2 * kMiB;  // the distinct keys alone take 3 MB

// Key i: 100 hex digits, pseudo-random so that the stores cannot compress them away.
std::string key_of(int i) {
  std::string out;
  std::uint64_t x = static_cast<std::uint64_t>(i) + 1;
  while (out.size() < 100) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out += fmt::format("{:016x}", x);
  }
  out.resize(100);
  return out;
}

// The count of every key, recomputed from the input.
std::map<std::string, std::int64_t> expected() {
  std::map<std::string, std::int64_t> counts;
  for (int i = 0; i < kFullDiskRecords; ++i) ++counts[key_of(i % kKeys)];
  return counts;
}

// How `counts` differs from expected(): "" if not at all, else how many keys are missing,
// counted too often and too rarely, and the first few.
std::string differences(const std::map<std::string, std::int64_t>& counts) {
  int missing = 0, high = 0, low = 0;
  std::string first;
  for (const auto& [key, n] : expected()) {
    auto it = counts.find(key);
    const std::int64_t got = it == counts.end() ? 0 : it->second;
    if (got == n) continue;
    ++(it == counts.end() ? missing : got > n ? high : low);
    if (missing + high + low <= 5)
      first += fmt::format(" {}...: {} not {};", key.substr(0, 8), got, n);
  }
  const auto extra = counts.size() - (expected().size() - missing);
  if (missing + high + low == 0 && extra == 0) return "";
  return fmt::format("{} missing, {} too high, {} too low, {} unknown keys;{}", missing, high, low,
                     extra, first);
}

// Every key of the input is in `counts`, counted at least as often as in the input.
void expect_at_least_expected(const std::map<std::string, std::int64_t>& counts) {
  const auto minimum = expected();
  ASSERT_EQ(counts.size(), minimum.size()) << "keys were lost";
  for (const auto& [key, n] : minimum) EXPECT_GE(counts.at(key), n) << key;
}

// The bytes the files under `dir` take on a tmpfs: whole 4 KiB pages.
std::uintmax_t tmpfs_bytes(const std::filesystem::path& dir) {
  std::uintmax_t total = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) total += (entry.file_size() + 4095) / 4096 * 4096;
  }
  return total;
}

// sh -c: mounts a tmpfs of $1 bytes on $2, copies the files of $3 (if not empty) into it, runs
// the command, copies what the tmpfs holds to $4 and exits with the command's code.
constexpr const char* kOnTmpfs = R"(
size=$1 mnt=$2 seed=$3 copy=$4
shift 4
mount -t tmpfs -o "size=$size" tmpfs "$mnt" || exit 200
if [ -n "$seed" ]; then cp -a "$seed/." "$mnt/" || exit 201; fi
"$@"
rc=$?
cp -a "$mnt/." "$copy/" || exit 202
exit $rc
)";

class FullDiskTest : public EmbeddedFixture {
 protected:
  void SetUp() override {
    for (const auto& d : {io_, mount_point_, copy_}) std::filesystem::create_directories(d);
    // Fail, never skip, where namespaces are unavailable: the test would prove nothing.
    const auto probe =
        run_process({"unshare", "--user", "--map-root-user", "--mount", "true"}, "", io_);
    ASSERT_EQ(probe.exit_code, 0)
        << "this test mounts a tmpfs in a user and mount namespace of its own and needs "
           "`unshare --user --map-root-user --mount` (util-linux, with unprivileged user "
           "namespaces enabled): "
        << probe.err;
    create_topics({{"in", kPartitions}, {"out", kPartitions}});
    produce_input(0, first_input_records());
  }

  // How many of the input's records SetUp() writes to "in" (the others: produce_input()).
  virtual int first_input_records() const { return kFullDiskRecords; }

  // Records [from, to) of the input to "in".
  void produce_input(int from, int to) {
    std::vector<std::pair<std::string, std::string>> input;
    for (int i = from; i < to; ++i) input.emplace_back(key_of(i % kKeys), "v");
    produce("in", input);
  }

  // The count app's command line: crash_app DATA_DIR GUARANTEE -1 0 count [STATE_DIR], with a
  // RocksDB memory budget of 4 MiB: memtables of 256 KiB, so that the stores write to their
  // disk while the app runs (the stores have a changelog, so they write no WAL, and the default
  // 4 MiB memtables would first reach the disk at the close).
  static std::vector<std::string> count_app(const char* guarantee,
                                            const std::filesystem::path& data_dir,
                                            std::optional<std::filesystem::path> state_dir = {}) {
    std::vector<std::string> argv{BROOK_CRASH_APP, data_dir, guarantee, "-1", "0", "count"};
    if (state_dir) argv.push_back(*state_dir);
    argv.push_back("rocksdb.memory.max.bytes=4194304");
    return argv;
  }

  ProcessResult run(const std::vector<std::string>& argv) { return run_process(argv, "", io_); }

  // Runs `argv` (with `input` on stdin) with a tmpfs of `bytes` on mount_point_ that first
  // holds a copy of `seed`'s files (if not empty); its files are copied to copy_ when `argv`
  // ends.
  ProcessResult run_on_tmpfs(std::uintmax_t bytes, const std::filesystem::path& seed,
                             const std::vector<std::string>& argv, const std::string& input = "") {
    std::vector<std::string> command{
        "unshare", "--user", "--map-root-user",     "--mount",    "sh", "-c",
        kOnTmpfs,  "sh",     std::to_string(bytes), mount_point_, seed, copy_};
    command.insert(command.end(), argv.begin(), argv.end());
    return run_process(command, input, io_);
  }

  static void expect_stopped_on_a_full_disk(const ProcessResult& run, std::string_view what) {
    EXPECT_EQ(run.exit_code, 1) << run.err;  // brook::report()'s, not 128 + a signal
    EXPECT_THAT(run.err, ::testing::HasSubstr(what));
    EXPECT_THAT(run.err, ::testing::HasSubstr("No space left on device"));
  }

  std::map<std::string, std::int64_t> latest_out() { return latest_counts(read_all("out")); }

  // The state dir, on a tmpfs of kRoom, fills; the app stops. It then runs to the end with the
  // state copied to copy_, which has room. Returns the counts in the stores.
  std::map<std::string, std::int64_t> fill_state_dir_then_continue(const char* guarantee) {
    expect_stopped_on_a_full_disk(run_on_tmpfs(kRoom, {}, count_app(guarantee, dir_, mount_point_)),
                                  "RocksDB store 'counts'");
    const auto rest = run(count_app(guarantee, dir_, copy_));
    EXPECT_EQ(rest.exit_code, 0) << rest.err;
    return counts_on_disk(copy_, kPartitions);
  }

  // The data dir (the state dir within it), on a tmpfs with kRoom beyond the input, fills; the
  // app stops. It then runs to the end on the data dir copied back to dir_. Returns the counts
  // in the stores.
  std::map<std::string, std::int64_t> fill_data_dir_then_continue(const char* guarantee) {
    expect_stopped_on_a_full_disk(
        run_on_tmpfs(tmpfs_bytes(dir_) + kRoom, dir_, count_app(guarantee, mount_point_)), "");
    std::filesystem::remove_all(dir_);
    std::filesystem::rename(copy_, dir_);
    const auto rest = run(count_app(guarantee, dir_));
    EXPECT_EQ(rest.exit_code, 0) << rest.err;
    return counts_on_disk(dir_ / "state", kPartitions);
  }

  // The count app with log.fsync on, every fsync of the "out" topic's files failing (EIO) after
  // its first 8, stops naming the file and the error, after commits of its own; it then runs to
  // the end with fsync working. Returns the counts in the stores.
  std::map<std::string, std::int64_t> fail_fsync_then_continue(const char* guarantee) {
    auto app = count_app(guarantee, dir_);
    app.push_back("log.fsync=true");
    const char* asan = std::getenv("ASAN_OPTIONS");
    std::vector<std::string> failing{
        "env", std::string("LD_PRELOAD=") + BROOK_FAILING_FSYNC,
        "BROOK_FAIL_FSYNC_PATH=/topics/out/", "BROOK_FAIL_FSYNC_AFTER=8",
        // A preloaded library comes before the sanitizer runtime (in the sanitizer build).
        std::string("ASAN_OPTIONS=verify_asan_link_order=0") +
            (asan ? std::string(":") + asan : "")};
    failing.insert(failing.end(), app.begin(), app.end());
    const auto failed = run(failing);
    EXPECT_EQ(failed.exit_code, 1) << failed.err;
    EXPECT_THAT(failed.err, ::testing::HasSubstr("fsync"));
    EXPECT_THAT(failed.err, ::testing::HasSubstr("/topics/out/"));
    EXPECT_THAT(failed.err, ::testing::HasSubstr("Input/output error"));
    EXPECT_FALSE(latest_out().empty()) << "the app failed before its first commits";
    const auto rest = run(app);
    EXPECT_EQ(rest.exit_code, 0) << rest.err;
    return counts_on_disk(dir_ / "state", kPartitions);
  }

  ScratchDir work_{"brook-full-disk"};
  const std::filesystem::path io_ = work_.path() / "io";
  const std::filesystem::path mount_point_ = work_.path() / "tmpfs";
  const std::filesystem::path copy_ = work_.path() / "copy";
};

TEST_F(FullDiskTest, ExactlyOnceStopsOnAFullStateDirAndContinuesExactly) {
  EXPECT_EQ(differences(fill_state_dir_then_continue("exactly_once_v2")), "");
  EXPECT_EQ(differences(latest_out()), "");
}

TEST_F(FullDiskTest, AtLeastOnceStopsOnAFullStateDirAndLosesNothing) {
  expect_at_least_expected(fill_state_dir_then_continue("at_least_once"));
  expect_at_least_expected(latest_out());
}

// Appending a committed transaction's records can fail here (write <partition segment>: No
// space left on device) after its entry is in transactions.wal: the log then refuses every
// other write, so the entry stays for the restart to complete exactly.
TEST_F(FullDiskTest, ExactlyOnceStopsOnAFullDataDirAndContinuesExactly) {
  EXPECT_EQ(differences(fill_data_dir_then_continue("exactly_once_v2")), "");
  EXPECT_EQ(differences(latest_out()), "");
}

TEST_F(FullDiskTest, AtLeastOnceStopsOnAFullDataDirAndLosesNothing) {
  expect_at_least_expected(fill_data_dir_then_continue("at_least_once"));
  expect_at_least_expected(latest_out());
}

TEST_F(FullDiskTest, ExactlyOnceStopsOnAFailingFsyncAndContinuesExactly) {
  EXPECT_EQ(differences(fail_fsync_then_continue("exactly_once_v2")), "");
  EXPECT_EQ(differences(latest_out()), "");
}

TEST_F(FullDiskTest, AtLeastOnceStopsOnAFailingFsyncAndLosesNothing) {
  expect_at_least_expected(fail_fsync_then_continue("at_least_once"));
  expect_at_least_expected(latest_out());
}

// The state dir fills while a store is restored. A first run, with room, counts the first half
// of the input (every key); a second one, on a fresh state dir on a tmpfs of kRoom, must restore
// the store from its changelog before the second half, and runs out of space doing so; a third,
// on a copy of that state dir with room, restores it and counts the rest.
class RestorationFullDiskTest : public FullDiskTest {
 protected:
  int first_input_records() const override { return kFullDiskRecords / 2; }

  std::map<std::string, std::int64_t> fill_state_dir_while_restoring(const char* guarantee) {
    const auto first = run(count_app(guarantee, dir_, work_.path() / "first-state"));
    EXPECT_EQ(first.exit_code, 0) << first.err;
    produce_input(kFullDiskRecords / 2, kFullDiskRecords);
    const auto filled = run_on_tmpfs(kRoom, {}, count_app(guarantee, dir_, mount_point_));
    expect_stopped_on_a_full_disk(filled, "RocksDB store 'counts'");
    EXPECT_THAT(filled.err, ::testing::HasSubstr("loading restored writes"));
    const auto rest = run(count_app(guarantee, dir_, copy_));
    EXPECT_EQ(rest.exit_code, 0) << rest.err;
    return counts_on_disk(copy_, kPartitions);
  }
};

TEST_F(RestorationFullDiskTest, ExactlyOnceStopsOnAStateDirFilledByRestorationAndContinuesExactly) {
  EXPECT_EQ(differences(fill_state_dir_while_restoring("exactly_once_v2")), "");
  EXPECT_EQ(differences(latest_out()), "");
}

TEST_F(RestorationFullDiskTest, AtLeastOnceStopsOnAStateDirFilledByRestorationAndLosesNothing) {
  expect_at_least_expected(fill_state_dir_while_restoring("at_least_once"));
  expect_at_least_expected(latest_out());
}

// `brook produce` onto a data dir that fills up stops at the line it could not write, saying how
// many records it sent before it and how many of them the topic took: the log holds exactly
// that prefix of the lines.
TEST_F(FullDiskTest, ProduceStopsAtTheFirstLineItCouldNotWrite) {
  const auto seed = work_.path() / "seed";
  ASSERT_EQ(run({BROOK_CLI_PATH, "topics", "create", "t", "--partitions", "1", "--data-dir", seed})
                .exit_code,
            0);
  std::string lines;
  for (int i = 0; i < 40'000; ++i) lines += fmt::format("{:0100}\n", i);  // about 5.7 MB framed
  const auto produced =
      run_on_tmpfs(tmpfs_bytes(seed) + 3 * kMiB, seed,
                   {BROOK_CLI_PATH, "produce", "t", "--data-dir", mount_point_}, lines);
  expect_stopped_on_a_full_disk(produced, "");
  std::smatch m;
  const std::regex message(
      R"(brook: \w+: line (\d+): .*No space left on device.*; sent (\d+) records to t \(the )"
      R"(lines before it\), of which t took (\d+); line (\d+) and the lines after it not written)");
  ASSERT_TRUE(std::regex_search(produced.err, m, message)) << produced.err;
  const int line = std::stoi(m[1]);
  const int sent = std::stoi(m[2]);
  EXPECT_EQ(sent, line - 1);
  EXPECT_EQ(std::stoi(m[4]), line);

  const auto consumed = run({BROOK_CLI_PATH, "consume", "t", "--from-beginning", "--timeout-ms",
                             "0", "--data-dir", copy_});
  ASSERT_EQ(consumed.exit_code, 0) << consumed.err;
  std::string prefix;
  int written = 0;
  while (prefix.size() < consumed.out.size()) prefix += fmt::format("{:0100}\n", written++);
  EXPECT_EQ(consumed.out, prefix);  // lines 1..written, in order
  EXPECT_GT(written, 0);
  EXPECT_LE(written, sent);
  EXPECT_EQ(std::stoi(m[3]), written);
}

}  // namespace
}  // namespace brook::testing
