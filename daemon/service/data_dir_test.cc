#include "daemon/service/data_dir.h"

#include <sys/stat.h>
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

mode_t ModeOf(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

// Under umask 000 the directory and verify/ are still private, and the
// files the daemon writes there are 0600.
TEST(DataDirTest, NothingTrustsTheUmask) {
  const std::string dir = FreshDir("umask");
  const mode_t old = umask(0);
  absl::StatusOr<std::unique_ptr<DataDir>> daemon = DataDir::Open(dir);
  umask(old);
  ASSERT_TRUE(daemon.ok()) << daemon.status();
  ASSERT_TRUE((*daemon)->NextWorkloadNumber().ok());
  EXPECT_EQ(ModeOf(dir), 0700u);
  EXPECT_EQ(ModeOf(dir + "/verify"), 0700u);
  EXPECT_EQ(ModeOf(dir + "/" + kDataDirLockName), 0600u);
  EXPECT_EQ(ModeOf(dir + "/" + kWorkloadIdsName), 0600u);
}

TEST(DataDirTest, AWideDirectoryIsNarrowed) {
  const std::string dir = FreshDir("wide");
  ASSERT_TRUE(DataDir::Open(dir).ok());
  ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
  ASSERT_EQ(chmod((dir + "/verify").c_str(), 0777), 0);
  ASSERT_TRUE(DataDir::Open(dir).ok());
  EXPECT_EQ(ModeOf(dir), 0700u);
  EXPECT_EQ(ModeOf(dir + "/verify"), 0700u);
}

// A verify/ replaced by a link elsewhere is refused, not followed.
TEST(DataDirTest, APlantedLinkIsRefused) {
  const std::string dir = FreshDir("link");
  ASSERT_TRUE(DataDir::Open(dir).ok());
  const std::string elsewhere = dir + "-elsewhere";
  ASSERT_EQ(mkdir(elsewhere.c_str(), 0777), 0);
  ASSERT_EQ(chmod(elsewhere.c_str(), 0777), 0);
  ASSERT_EQ(rmdir((dir + "/verify").c_str()), 0);
  ASSERT_EQ(symlink(elsewhere.c_str(), (dir + "/verify").c_str()), 0);
  absl::StatusOr<std::unique_ptr<DataDir>> daemon = DataDir::Open(dir);
  EXPECT_EQ(daemon.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(daemon.status().message(), HasSubstr("verify/"));
  EXPECT_THAT(daemon.status().message(), HasSubstr("symbolic link"));
  EXPECT_EQ(ModeOf(elsewhere), 0777u) << "the link was followed";
  // The data directory itself as a link, likewise.
  const std::string link = FreshDir("link2");
  ASSERT_EQ(mkdir(link.substr(0, link.rfind('/')).c_str(), 0700), 0);
  ASSERT_EQ(symlink(elsewhere.c_str(), link.c_str()), 0);
  EXPECT_EQ(DataDir::Open(link).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace blkperf
