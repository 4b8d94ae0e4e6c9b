// Compaction of the embedded log on a full disk: the partition lives on a tmpfs filled to its
// last byte, so compaction cannot write its output. It must fail naming the file and the
// system's error, leave every record readable as before (also after a reopen), and compact
// once there is room again.
//
// Mounting a tmpfs needs root: the test runs itself again, alone, in a user and mount namespace
// of its own (`unshare --user --map-root-user --mount`), where it is root, and checks that this
// inner run passed.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "backend/embedded/partition_log.h"
#include "integration/run_process.h"
#include "scratch_dir.h"

namespace brook::internal {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr const char* kInsideNamespace = "BROOK_TEST_INSIDE_MOUNT_NAMESPACE";

// A tmpfs of `size` mounted on `dir` while in scope.
class Tmpfs {
 public:
  Tmpfs(const fs::path& dir, const char* size) : dir_(dir) {
    fs::create_directories(dir);
    mounted_ = ::mount("tmpfs", dir.c_str(), "tmpfs", 0, size) == 0;
    EXPECT_TRUE(mounted_) << "mount tmpfs on " << dir << ": " << std::strerror(errno);
  }
  ~Tmpfs() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  Tmpfs(const Tmpfs&) = delete;
  Tmpfs& operator=(const Tmpfs&) = delete;
  bool mounted() const { return mounted_; }

 private:
  fs::path dir_;
  bool mounted_ = false;
};

// Writes `path` until the filesystem has no byte left.
void fill(const fs::path& path) {
  std::ofstream out(path, std::ios::binary);
  const std::string block(64 << 10, 'f');
  while (out.write(block.data(), static_cast<std::streamsize>(block.size()))) out.flush();
}

using Row = std::tuple<std::int64_t, std::string, std::string>;  // offset, key, value

std::vector<Row> read_all(const PartitionLog& log) {
  std::vector<Row> rows;
  Offset next = log.start_offset();
  while (next < log.end_offset()) {
    auto batch = log.read(next, 1 << 20);
    EXPECT_TRUE(batch) << batch.error().to_string();
    if (!batch || batch->records.empty()) break;
    for (const auto& r : batch->records) {
      rows.emplace_back(r.offset.value(), std::string(r.key.value_or("")),
                        std::string(r.value.value_or("")));
      next = Offset(r.offset.value() + 1);
    }
  }
  return rows;
}

void run_inside_a_mount_namespace() {
  testing::ScratchDir io("brook-compaction-full-disk-io");
  fs::create_directories(io.path());
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  ::setenv(kInsideNamespace, "1", 1);
  const auto ran = testing::run_process(
      {"unshare", "--user", "--map-root-user", "--mount", fs::read_symlink("/proc/self/exe"),
       fmt::format("--gtest_filter={}.{}", test->test_suite_name(), test->name())},
      "", io.path());
  ::unsetenv(kInsideNamespace);
  EXPECT_EQ(ran.exit_code, 0)
      << "the run in a mount namespace failed (it needs `unshare --user --map-root-user "
         "--mount`: util-linux, with unprivileged user namespaces enabled):\n"
      << ran.out << ran.err;
  EXPECT_THAT(ran.out, HasSubstr("[  PASSED  ] 1 test"));
}

TEST(CompactionFullDisk, FailsNamingTheFileLosesNothingAndCompactsOnceThereIsRoom) {
  if (std::getenv(kInsideNamespace) == nullptr) return run_inside_a_mount_namespace();

  testing::ScratchDir dir("brook-compaction-full-disk");
  const Tmpfs tmpfs(dir.path(), "size=4m");
  ASSERT_TRUE(tmpfs.mounted());
  const fs::path partition = dir.path() / "partition";
  const PartitionLogConfig config{.segment_bytes = 64 << 10,
                                  .cleanup_policy = CleanupPolicy::kCompact};
  auto log = PartitionLog::open(partition, config);
  ASSERT_TRUE(log) << log.error().to_string();
  // About 1 MiB of updates of 20 keys: 15 closed segments, nearly all of it superseded.
  std::map<std::string, std::string> latest;
  for (int i = 0; i < 1000; ++i) {
    const StoredRecord record{.timestamp = Timestamp(i),
                              .key = fmt::format("key-{}", i % 20),
                              .value = fmt::format("{:04}{}", i, std::string(1000, 'v'))};
    ASSERT_TRUE((*log)->append({&record, 1}));
    latest[*record.key] = *record.value;
  }
  const auto before = read_all(**log);
  ASSERT_EQ(before.size(), 1000u);

  fill(dir.path() / "filler");
  const Status full = (*log)->run_maintenance(Timestamp(2000));
  EXPECT_EQ(full.code(), StatusCode::kIoError) << full.to_string();
  EXPECT_THAT(full.message(), HasSubstr(partition.string()));
  EXPECT_THAT(full.message(), HasSubstr("No space left on device"));
  EXPECT_EQ(read_all(**log), before);
  log->reset();
  log = PartitionLog::open(partition, config);
  ASSERT_TRUE(log) << log.error().to_string();
  EXPECT_EQ(read_all(**log), before) << "after a reopen";

  fs::remove(dir.path() / "filler");
  const Status compacted = (*log)->run_maintenance(Timestamp(2000));
  ASSERT_TRUE(compacted.ok()) << compacted.to_string();
  const auto after = read_all(**log);
  EXPECT_LT(after.size(), before.size() / 4);
  std::map<std::string, std::string> latest_after;
  for (const auto& [offset, key, value] : after) latest_after[key] = value;
  EXPECT_EQ(latest_after, latest);
}

}  // namespace
}  // namespace brook::internal
