#include "daemon/service/data_dir.h"

#include <unistd.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

std::string FreshDir(const std::string& name) {
  return absl::StrCat(testing::TempDir(), "/data_dir_test_", getpid(), "_",
                      name, "/nested");
}

TEST(DataDirTest, SecondDaemonIsRefusedNamingDirAndHolder) {
  const std::string dir = FreshDir("lock");
  absl::StatusOr<std::unique_ptr<DataDir>> first = DataDir::Open(dir);
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<std::unique_ptr<DataDir>> second = DataDir::Open(dir);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), HasSubstr(dir));
  EXPECT_THAT(second.status().message(),
              HasSubstr(absl::StrCat("pid ", getpid())));
  EXPECT_THAT(second.status().message(), HasSubstr("--data_dir"));
  // Released with the first holder.
  first->reset();
  EXPECT_TRUE(DataDir::Open(dir).ok());
}

TEST(DataDirTest, WorkloadNumbersContinueAcrossRestarts) {
  const std::string dir = FreshDir("ids");
  {
    absl::StatusOr<std::unique_ptr<DataDir>> daemon = DataDir::Open(dir);
    ASSERT_TRUE(daemon.ok()) << daemon.status();
    EXPECT_EQ(*(*daemon)->NextWorkloadNumber(), 1u);
    EXPECT_EQ(*(*daemon)->NextWorkloadNumber(), 2u);
  }
  absl::StatusOr<std::unique_ptr<DataDir>> restarted = DataDir::Open(dir);
  ASSERT_TRUE(restarted.ok()) << restarted.status();
  EXPECT_EQ(*(*restarted)->NextWorkloadNumber(), 3u);
}

}  // namespace
}  // namespace blkperf
