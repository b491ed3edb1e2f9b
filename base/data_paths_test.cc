#include "base/data_paths.h"

#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

// Sets the variables a test names and unsets the rest, restoring them after.
class DataPathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : kNames) {
      const char* v = std::getenv(name);
      saved_[Index(name)] = v != nullptr ? std::optional<std::string>(v)
                                         : std::nullopt;
      unsetenv(name);
    }
  }
  void TearDown() override {
    for (const char* name : kNames) {
      const std::optional<std::string>& v = saved_[Index(name)];
      if (v.has_value()) {
        setenv(name, v->c_str(), 1);
      } else {
        unsetenv(name);
      }
    }
  }
  static constexpr const char* kNames[] = {
      "HOME", "XDG_DATA_HOME", "BLKPERF_RESULTS_DB", "BLKPERF_SPOOL_DIR",
      "BLKPERF_CPU_REGISTRY"};
  static size_t Index(const char* name) {
    for (size_t i = 0; i < std::size(kNames); ++i) {
      if (std::string(kNames[i]) == name) return i;
    }
    return 0;
  }
  std::optional<std::string> saved_[std::size(kNames)];
};

TEST_F(DataPathsTest, UserDataHomeFollowsXdgThenHome) {
  EXPECT_EQ(UserDataHome(), "");
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(UserDataHome(), "/home/u/.local/share/blkperf");
  setenv("XDG_DATA_HOME", "/data/u", 1);
  EXPECT_EQ(UserDataHome(), "/data/u/blkperf");
  setenv("XDG_DATA_HOME", "", 1);  // empty counts as unset
  EXPECT_EQ(UserDataHome(), "/home/u/.local/share/blkperf");
}

// The daemon and the results store share one user data home.
TEST_F(DataPathsTest, DaemonDataDirectory) {
  setenv("HOME", "/home/u", 1);
  setenv("XDG_DATA_HOME", "/data/u", 1);
  EXPECT_EQ(DaemonDataDirectory("/srv/d", /*root=*/true), "/srv/d");
  EXPECT_EQ(DaemonDataDirectory("/srv/d", /*root=*/false), "/srv/d");
  EXPECT_EQ(DaemonDataDirectory("", /*root=*/true), "/var/lib/blkperf");
  EXPECT_EQ(DaemonDataDirectory("", /*root=*/false), "/data/u/blkperf");
  EXPECT_EQ(DefaultResultsDb(), "/data/u/blkperf/results.sqlite");
  unsetenv("HOME");
  unsetenv("XDG_DATA_HOME");
  EXPECT_EQ(DaemonDataDirectory("", /*root=*/false), "/var/lib/blkperf");
}

TEST_F(DataPathsTest, WhatTheDataDirectoryHolds) {
  EXPECT_EQ(DefaultTargetPath("/d"), "/d/default-target.dat");
  EXPECT_EQ(VerifyStateDirectory("/d"), "/d/verify");
}

TEST_F(DataPathsTest, ResultsDbAndItsSpool) {
  EXPECT_EQ(DefaultResultsDb(), "none");  // no home at all
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(DefaultResultsDb(), "/home/u/.local/share/blkperf/results.sqlite");
  setenv("BLKPERF_RESULTS_DB", "none", 1);
  EXPECT_EQ(DefaultResultsDb(), "none");
  EXPECT_EQ(SpoolDirFor("/r/results.sqlite"), "/r/results.sqlite.spool");
  EXPECT_EQ(SpoolDirFor("postgresql://h/db"),
            "/home/u/.local/share/blkperf/spool");
  unsetenv("HOME");
  EXPECT_EQ(SpoolDirFor("postgresql://h/db"), "/tmp/blkperf-spool");
  setenv("BLKPERF_SPOOL_DIR", "/s", 1);
  EXPECT_EQ(SpoolDirFor("/r/results.sqlite"), "/s");
}

TEST_F(DataPathsTest, CpuRegistryRootIsHostWide) {
  EXPECT_EQ(CpuRegistryRoot(), "/run/blkperf");
  setenv("BLKPERF_CPU_REGISTRY", "/tmp/x", 1);
  EXPECT_EQ(CpuRegistryRoot(), "/tmp/x");
}

}  // namespace
}  // namespace blkperf
