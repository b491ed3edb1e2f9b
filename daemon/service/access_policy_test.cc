#include "daemon/service/access_policy.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

TargetInfo File(const std::string& path) {
  TargetInfo info;
  info.path = path;
  info.resolved_path = AccessPolicy::ResolvePath(path);
  info.kind = TargetKind::kRegularFile;
  return info;
}

TargetInfo Device(const std::string& path) {
  TargetInfo info = File(path);
  info.resolved_path = path;
  info.kind = TargetKind::kBlockDevice;
  return info;
}

class AccessPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    root_ = AccessPolicy::ResolvePath(tmp != nullptr ? tmp : "/tmp");
    root_ += "/access_policy_test";
    mkdir(root_.c_str(), 0755);
    mkdir((root_ + "/scratch").c_str(), 0755);
    mkdir((root_ + "/data").c_str(), 0755);
    std::ofstream(root_ + "/scratch/a") << "x";
    std::ofstream(root_ + "/secret") << "x";
    unlink((root_ + "/scratch/link").c_str());
    ASSERT_EQ(
        symlink((root_ + "/secret").c_str(), (root_ + "/scratch/link").c_str()),
        0);
  }
  std::string root_;
};

TEST_F(AccessPolicyTest, DefaultReadCoversDevicesAndDataDir) {
  AccessPolicy policy = AccessPolicy::Create({}, {}, root_ + "/data");
  EXPECT_TRUE(policy.CheckRead("t", Device("/dev/zram0")).ok());
  EXPECT_TRUE(policy.CheckRead("t", File(root_ + "/data/x")).ok());
  // A regular file under /dev is not a block device.
  absl::Status shm = policy.CheckRead("t", File("/dev/shm/x"));
  EXPECT_EQ(shm.code(), absl::StatusCode::kPermissionDenied);
  absl::Status outside =
      policy.CheckRead("spec.targets[0]", File(root_ + "/secret"));
  EXPECT_EQ(outside.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(outside.message()), HasSubstr("spec.targets[0]"));
  EXPECT_THAT(std::string(outside.message()), HasSubstr(root_ + "/secret"));
  EXPECT_THAT(std::string(outside.message()), HasSubstr("--allow_read"));
}

TEST_F(AccessPolicyTest, EmptyWriteListAllowsNoWrites) {
  AccessPolicy policy = AccessPolicy::Create({}, {}, root_ + "/data");
  absl::Status s =
      policy.CheckWrite("spec.targets[0]", File(root_ + "/data/x"));
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(s.message()), HasSubstr("--allow_write"));
  EXPECT_THAT(std::string(s.message()), HasSubstr(root_ + "/data/x"));
}

TEST_F(AccessPolicyTest, DirectoryExactAndPrefixRules) {
  AccessPolicy policy = AccessPolicy::Create(
      {root_ + "/scratch"}, {root_ + "/scratch/", "/dev/zram0", "/dev/loop*"},
      "");
  EXPECT_TRUE(policy.CheckWrite("t", File(root_ + "/scratch/a")).ok());
  EXPECT_TRUE(policy.CheckWrite("t", File(root_ + "/scratch/new")).ok());
  EXPECT_TRUE(policy.CheckWrite("t", Device("/dev/zram0")).ok());
  EXPECT_TRUE(policy.CheckWrite("t", Device("/dev/loop7")).ok());
  EXPECT_FALSE(policy.CheckWrite("t", Device("/dev/zram1")).ok());
  EXPECT_FALSE(policy.CheckWrite("t", File(root_ + "/scratchy")).ok());
  EXPECT_EQ(policy.WriteRule(Device("/dev/loop7")), "/dev/loop*");
  // Explicit read rules replace the defaults.
  EXPECT_FALSE(policy.CheckRead("t", Device("/dev/zram0")).ok());
}

TEST_F(AccessPolicyTest, SymlinksAreJudgedByTheirTarget) {
  AccessPolicy policy =
      AccessPolicy::Create({root_ + "/scratch/"}, {root_ + "/scratch/"}, "");
  TargetInfo link = File(root_ + "/scratch/link");
  EXPECT_EQ(link.resolved_path, root_ + "/secret");
  EXPECT_EQ(policy.CheckRead("t", link).code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(policy.CheckWrite("t", link).code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(AccessPolicy::ResolvePath(root_ + "/scratch/../scratch/./new"),
            root_ + "/scratch/new");
}

TEST_F(AccessPolicyTest, UnsafeDevicesAreRefusedWithTheRule) {
  AccessPolicy policy = AccessPolicy::Create({}, {"/dev/"}, "");
  struct Case {
    void (*spoil)(TargetInfo*);
    const char* words;
  } cases[] = {
      {[](TargetInfo* i) { i->mounted = true; }, "mounted"},
      {[](TargetInfo* i) { i->has_holders = true; }, "held"},
      {[](TargetInfo* i) { i->is_swap = true; }, "swap"},
      {[](TargetInfo* i) { i->backs_loop = "loop3"; }, "loop3"},
      {[](TargetInfo* i) { i->path_is_symlink = true; }, "symbolic link"},
  };
  for (const Case& c : cases) {
    TargetInfo info = Device("/dev/vdb");
    c.spoil(&info);
    absl::Status s = policy.CheckWrite("spec.targets[0]", info);
    EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << c.words;
    EXPECT_THAT(std::string(s.message()), HasSubstr(c.words));
    EXPECT_THAT(std::string(s.message()), HasSubstr("/dev/vdb"));
    EXPECT_THAT(std::string(s.message()), HasSubstr("rule"));
    // Reading stays allowed.
    EXPECT_TRUE(policy.CheckRead("t", info).ok());
  }
  EXPECT_TRUE(policy.CheckWrite("t", Device("/dev/vdb")).ok());
}

}  // namespace
}  // namespace blkperf

namespace blkperf {
namespace {

using ::testing::HasSubstr;

// Open(): the binding check on the opened inode.
class AccessPolicyOpenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = absl::StrCat(testing::TempDir(), "/access_open_", getpid());
    mkdir(root_.c_str(), 0755);
    mkdir((root_ + "/rw").c_str(), 0755);
    mkdir((root_ + "/rw/sub").c_str(), 0755);
    std::ofstream(root_ + "/rw/sub/f") << std::string(8192, 'f');
    std::ofstream(root_ + "/one") << "1";
    std::ofstream(root_ + "/two") << "2";
    symlink((root_ + "/one").c_str(), (root_ + "/rw/to_one").c_str());
  }
  std::string root_;
};

TEST_F(AccessPolicyOpenTest, FilesBeneathADirectoryRuleNoLinks) {
  AccessPolicy policy =
      AccessPolicy::Create({}, {root_ + "/rw/", root_ + "/two"}, "");
  const OpenIntent write{.write = true};
  absl::StatusOr<OpenedTarget> f =
      policy.Open("spec.targets[0]", root_ + "/rw/sub/../sub/f", write);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->rule, root_ + "/rw/");
  EXPECT_TRUE(policy.Open("t", root_ + "/two", write).ok());

  absl::StatusOr<OpenedTarget> link =
      policy.Open("spec.targets[0]", root_ + "/rw/to_one", write);
  EXPECT_EQ(link.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(link.status().message(), HasSubstr("symbolic link"));
  absl::StatusOr<OpenedTarget> outside =
      policy.Open("spec.targets[0]", root_ + "/one", write);
  EXPECT_EQ(outside.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(outside.status().message(), HasSubstr("--allow_write_paths"));
  EXPECT_EQ(policy.Open("t", "relative/x", write).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(policy.Open("t", "/dev/null", write).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(AccessPolicyOpenTest, CreateIsUnnamedAndExistingSmallerIsRefused) {
  AccessPolicy policy = AccessPolicy::Create({}, {root_ + "/rw/"}, "");
  const OpenIntent create{.write = true, .create_size = 4096, .seed = 1};
  absl::StatusOr<OpenedTarget> made =
      policy.Open("t", root_ + "/rw/sub/new", create);
  ASSERT_TRUE(made.ok()) << made.status();
  ASSERT_TRUE(made->created.has_value());
  struct stat st;
  EXPECT_NE(stat((root_ + "/rw/sub/new").c_str(), &st), 0);
  ASSERT_TRUE(made->created->Publish().ok());
  EXPECT_EQ(stat((root_ + "/rw/sub/new").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 4096);

  const OpenIntent bigger{.write = true, .create_size = 1 << 20};
  absl::StatusOr<OpenedTarget> small =
      policy.Open("spec.targets[0]", root_ + "/rw/sub/f", bigger);
  EXPECT_EQ(small.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(small.status().message(),
              HasSubstr("spec.targets[0].create_size"));
}

TEST_F(AccessPolicyOpenTest, RuleMissingAtStartAllowsNothingAndSaysSo) {
  AccessPolicy policy =
      AccessPolicy::Create({}, {root_ + "/later/"}, "");
  mkdir((root_ + "/later").c_str(), 0755);
  std::ofstream(root_ + "/later/x") << "x";
  absl::StatusOr<OpenedTarget> x =
      policy.Open("t", root_ + "/later/x", OpenIntent{.write = true});
  EXPECT_EQ(x.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(x.status().message(), HasSubstr("missing when the daemon"));
}

}  // namespace
}  // namespace blkperf
