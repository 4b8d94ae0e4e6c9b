#include "backend/embedded/dir_lock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

#include "scratch_dir.h"

namespace brook::internal {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class DirLockTest : public ::testing::Test {
 protected:
  brook::testing::ScratchDir scratch_{"brook-lock"};
  const fs::path dir_ = scratch_.path() / "data";
};

TEST_F(DirLockTest, CreatesTheDirectoryAndWritesThePid) {
  auto lock = DirLock::acquire(dir_);
  ASSERT_TRUE(lock.has_value()) << lock.error().to_string();
  EXPECT_TRUE(fs::is_directory(dir_));
  EXPECT_EQ(lock->dir(), dir_);
  std::string pid(32, '\0');
  FILE* f = std::fopen((dir_ / ".lock").c_str(), "r");
  ASSERT_NE(f, nullptr);
  pid.resize(std::fread(pid.data(), 1, pid.size(), f));
  std::fclose(f);
  EXPECT_EQ(pid, std::to_string(::getpid()) + "\n");
}

TEST_F(DirLockTest, SecondLockInTheSameProcessFailsUntilTheFirstIsReleased) {
  {
    auto first = DirLock::acquire(dir_);
    ASSERT_TRUE(first.has_value());
    auto second = DirLock::acquire(dir_);
    ASSERT_FALSE(second.has_value());
    EXPECT_EQ(second.error().code(), StatusCode::kFailedPrecondition);
    EXPECT_THAT(second.error().message(), HasSubstr("is locked by another process"));
  }
  EXPECT_TRUE(DirLock::acquire(dir_).has_value());
}

TEST_F(DirLockTest, MovedLockStaysHeldAndIsReleasedOnce) {
  auto acquired = DirLock::acquire(dir_);
  ASSERT_TRUE(acquired.has_value());
  {
    DirLock moved = std::move(*acquired);
    EXPECT_FALSE(DirLock::acquire(dir_).has_value());
    DirLock assigned = std::move(moved);
    EXPECT_FALSE(DirLock::acquire(dir_).has_value());
  }
  EXPECT_TRUE(DirLock::acquire(dir_).has_value());
}

TEST_F(DirLockTest, LockHeldByAnotherProcessIsAClearErrorAndFreeAfterItExits) {
  int ready[2];
  int release[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(release), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    ::close(release[1]);
    auto lock = DirLock::acquire(dir_);
    const char state = lock ? 'L' : 'E';
    if (::write(ready[1], &state, 1) != 1) ::_exit(2);
    char go;
    (void)::read(release[0], &go, 1);  // hold the lock until the parent says so (or closes)
    ::_exit(lock ? 0 : 1);
  }
  ::close(ready[1]);
  ::close(release[0]);
  char state = 0;
  ASSERT_EQ(::read(ready[0], &state, 1), 1);
  ASSERT_EQ(state, 'L');

  auto refused = DirLock::acquire(dir_);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.error().message(), "data dir " + dir_.string() +
                                           " is locked by another process (pid " +
                                           std::to_string(child) + ")");

  ASSERT_EQ(::write(release[1], "x", 1), 1);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ::close(ready[0]);
  ::close(release[1]);
  EXPECT_TRUE(DirLock::acquire(dir_).has_value());
}

}  // namespace
}  // namespace brook::internal
