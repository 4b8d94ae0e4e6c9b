#include "backend/embedded/checksummed_file.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "backend/embedded/crc32c.h"
#include "file_edits.h"
#include "scratch_dir.h"

namespace brook::internal {
namespace {

using ::testing::HasSubstr;
using testing::read_file;
using testing::write_file;

class ChecksummedFileTest : public ::testing::Test {
 protected:
  brook::testing::ScratchDir scratch_{"brook-checksummed"};
  const std::filesystem::path path_ = scratch_.path() / "meta";
  void SetUp() override { std::filesystem::create_directories(scratch_.path()); }
};

TEST_F(ChecksummedFileTest, WrittenTextReadsBack) {
  ASSERT_TRUE(write_checksummed_file(path_, R"({"partitions":4})").ok());
  auto text = read_checksummed_file(path_);
  ASSERT_TRUE(text) << text.error().to_string();
  EXPECT_EQ(*text, R"({"partitions":4})");
  ASSERT_TRUE(write_checksummed_file(path_, "").ok());  // replaced, empty text and all
  EXPECT_EQ(read_checksummed_file(path_).value(), "");
  EXPECT_FALSE(std::filesystem::exists(path_.string() + ".tmp"));
}

TEST_F(ChecksummedFileTest, TheFileIsTheTextAndALineWithItsCrc32c) {
  ASSERT_TRUE(write_checksummed_file(path_, "1234").ok());
  EXPECT_EQ(read_file(path_), fmt::format("1234\ncrc32c {:08x}\n", crc32c("1234\n")));
}

TEST_F(ChecksummedFileTest, EveryDamageIsCorruptionNamingTheFile) {
  ASSERT_TRUE(write_checksummed_file(path_, R"({"offset":100})").ok());
  const std::string good = read_file(path_);
  auto damaged = testing::damaged_versions(good, "100", "190");
  for (std::size_t n = 0; n < good.size(); ++n) {  // every prefix, from the empty file on
    damaged.emplace_back(fmt::format("cut to {} bytes", n), good.substr(0, n));
  }
  damaged.emplace_back("a byte appended", good + "x");
  std::string other_checksum = good;
  char& digit = other_checksum[good.size() - 2];  // the last hex digit
  digit = digit == '0' ? '1' : '0';
  damaged.emplace_back("its checksum changed", other_checksum);
  for (const auto& [what, contents] : damaged) {
    write_file(path_, contents);
    auto text = read_checksummed_file(path_);
    ASSERT_FALSE(text) << what;
    EXPECT_EQ(text.error().code(), StatusCode::kCorruption) << what;
    EXPECT_THAT(text.error().message(), HasSubstr(path_.string())) << what;
  }
}

TEST_F(ChecksummedFileTest, AMissingFileIsAnIoError) {
  auto text = read_checksummed_file(path_);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code(), StatusCode::kIoError);
  EXPECT_THAT(text.error().message(), HasSubstr(path_.string()));
}

}  // namespace
}  // namespace brook::internal
