// A failed fsync of the embedded log, injected by failing_fsync.cc, which this binary links so
// that its fsync() comes before the C library's (it fails only while BROOK_FAIL_FSYNC_PATH is
// set). Once an fsync failed, what it covered may be gone from the page cache and a later
// fsync could succeed without it: the log must take nothing more until it is reopened.
#include <gmock/gmock.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "backend/embedded/partition_log.h"
#include "scratch_dir.h"

namespace brook::internal {
namespace {

using ::testing::HasSubstr;

std::vector<StoredRecord> one_record(const std::string& value) {
  std::vector<StoredRecord> records(1);
  records[0].timestamp = Timestamp(1);
  records[0].value = value;
  return records;
}

// Fails every fsync under `dir` while in scope.
class FailingFsync {
 public:
  explicit FailingFsync(const std::string& dir) {
    ::setenv("BROOK_FAIL_FSYNC_PATH", dir.c_str(), 1);
  }
  ~FailingFsync() { ::unsetenv("BROOK_FAIL_FSYNC_PATH"); }
  FailingFsync(const FailingFsync&) = delete;
  FailingFsync& operator=(const FailingFsync&) = delete;
};

TEST(PartitionLogFsyncFault, AFailedFsyncRefusesEveryWriteUntilTheLogIsReopened) {
  testing::ScratchDir dir("brook-fsync-fault");
  const PartitionLogConfig config{.fsync_on_flush = true};
  auto log = PartitionLog::open(dir.path(), config);
  ASSERT_TRUE(log) << log.error().to_string();
  ASSERT_TRUE((*log)->append(one_record("a")));
  ASSERT_TRUE((*log)->flush().ok());

  ASSERT_TRUE((*log)->append(one_record("b")));
  {
    FailingFsync failing(dir.path().string());
    const Status failed = (*log)->flush();
    EXPECT_EQ(failed.code(), StatusCode::kIoError);
    EXPECT_THAT(failed.message(), HasSubstr("fsync " + dir.path().string()));
    EXPECT_THAT(failed.message(), HasSubstr("Input/output error"));
  }
  // fsync works again, but this log instance cannot know what the failed one lost.
  const Status later = (*log)->flush();
  EXPECT_EQ(later.code(), StatusCode::kIoError);
  EXPECT_THAT(later.message(), HasSubstr("takes no more writes until it is reopened"));
  const auto refused = (*log)->append(one_record("c"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), StatusCode::kIoError);

  log->reset();
  auto reopened = PartitionLog::open(dir.path(), config);
  ASSERT_TRUE(reopened) << reopened.error().to_string();
  auto read = (*reopened)->read(Offset(0), 1 << 20);
  ASSERT_TRUE(read) << read.error().to_string();
  ASSERT_EQ(read->records.size(), 2u);
  EXPECT_EQ(read->records[1].value, "b");
  ASSERT_TRUE((*reopened)->append(one_record("c")));
  EXPECT_TRUE((*reopened)->flush().ok());
}

}  // namespace
}  // namespace brook::internal
