// Race-free target access through the real manager and engine: what the
// daemon opens is what it checked, whatever is swapped in the meantime.
// Needs root (loop devices, mknod, mount): as CI runs it.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/engine/testing/loop_device_for_test.h"
#include "daemon/engine/spec/spec_validation.h"
#include "daemon/service/access_policy.h"
#include "daemon/service/workload_backend.h"
#include "daemon/service/workload_manager.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kFileBytes = 1 << 20;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteAll(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

class TargetAccessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(geteuid(), 0u) << "these tests need root, as CI runs them";
    root_ = absl::StrCat(testing::TempDir(), "/target_access_", getpid());
    rw_ = root_ + "/rw";
    ASSERT_EQ(system(absl::StrCat("rm -rf ", root_, " && mkdir -p ", rw_)
                         .c_str()),
              0);
    victim_ = root_ + "/victim.dat";
    WriteAll(victim_, std::string(kFileBytes, 'V'));
    ManagerLimits limits;
    limits.max_runtime = absl::Seconds(30);
    manager_ = std::make_unique<WorkloadManager>(
        NewEngineBackend(), limits,
        AccessPolicy::Create({root_ + "/"}, {rw_ + "/"}, ""));
  }
  void TearDown() override {
    manager_.reset();
    // io_uring drops a finished ring's registered files asynchronously, so
    // the tmpfs may stay busy for a moment.
    if (Exists(rw_ + "/small")) {
      system(absl::StrCat("for i in $(seq 50); do umount ", rw_,
                          "/small 2>/dev/null && break; sleep 0.1; done")
                 .c_str());
    }
    system(absl::StrCat("rm -rf ", root_).c_str());
  }

  // One sequential 4 KiB buffered write.
  static WorkloadSpec WriteOnce(const std::string& path) {
    WorkloadSpec spec;
    spec.targets.push_back({.path = path, .allow_write = true});
    spec.op = Op::kWrite;
    spec.queue_depth = 1;
    spec.direct = false;
    spec.cpus = {OnlineCpus()[0]};
    spec.runtime = absl::ZeroDuration();
    spec.io_count = 1;
    return spec;
  }

  void WaitEnded(const std::string& id) {
    for (int i = 0; i < 1000; ++i) {
      absl::StatusOr<bool> ended = manager_->HasEnded(id);
      ASSERT_TRUE(ended.ok()) << ended.status();
      if (*ended) return;
      absl::SleepFor(absl::Milliseconds(5));
    }
    FAIL() << id << " did not end";
  }

  std::string root_;
  std::string rw_;
  std::string victim_;
  std::unique_ptr<WorkloadManager> manager_;
};

// The reproduction, bounded: rw/race flips between a symlink to the
// victim (outside the write list) and a regular file while write workloads
// start on it. Whatever the interleaving, the victim is never written.
TEST_F(TargetAccessTest, SymlinkSwappedDuringStartsNeverRedirectsWrites) {
  struct stat before;
  ASSERT_EQ(stat(victim_.c_str(), &before), 0);
  const std::string race = rw_ + "/race";
  WriteAll(race, std::string(kFileBytes, 'R'));
  std::atomic<bool> done{false};
  std::thread swapper([&] {
    const std::string link = rw_ + "/.t";
    const std::string file = rw_ + "/.f";
    // The symlink stands as long as the regular file did, so that starts
    // meet both about equally however slow the machine: the next file is
    // written while the current one stands (writing it while the symlink
    // stood, with 50 us for the file, once refused all 200 starts under
    // ASan).
    while (!done.load()) {
      const absl::Time file_from = absl::Now();
      rename(file.c_str(), race.c_str());  // the first time: no file yet
      WriteAll(file, std::string(kFileBytes, 'R'));
      unlink(link.c_str());
      symlink(victim_.c_str(), link.c_str());
      absl::SleepFor(absl::Microseconds(50));
      const absl::Duration file_stood = absl::Now() - file_from;
      rename(link.c_str(), race.c_str());
      absl::SleepFor(file_stood);
    }
  });
  int started = 0;
  int refused = 0;
  for (int i = 0; i < 200; ++i) {
    absl::StatusOr<WorkloadView> w = manager_->Start(WriteOnce(race));
    if (w.ok()) {
      ++started;
      WaitEnded(w->id);
    } else {
      ++refused;
      EXPECT_NE(w.status().code(), absl::StatusCode::kInternal) << w.status();
    }
  }
  done.store(true);
  swapper.join();
  // Both cases happened, so the loop tested something.
  EXPECT_GT(started, 0);
  EXPECT_GT(refused, 0);
  struct stat after;
  ASSERT_EQ(stat(victim_.c_str(), &after), 0);
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  EXPECT_EQ(ReadAll(victim_), std::string(kFileBytes, 'V'));
}

TEST_F(TargetAccessTest, SymlinkInWriteDirIsRefusedNamingTheRule) {
  ASSERT_EQ(symlink(victim_.c_str(), (rw_ + "/link").c_str()), 0);
  absl::StatusOr<WorkloadView> w = manager_->Start(WriteOnce(rw_ + "/link"));
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(w.status().message(), HasSubstr("spec.targets[0]"));
  EXPECT_EQ(ReadAll(victim_), std::string(kFileBytes, 'V'));
}

// A block device node made inside a write-allowed directory names a device
// no rule allows: refused, and the device is not written.
TEST_F(TargetAccessTest, MknodNodeInWriteDirIsRefused) {
  LoopDeviceForTest loop(4 << 20);
  ASSERT_TRUE(loop.ok()) << loop.why();
  struct stat dev;
  ASSERT_EQ(stat(loop.path().c_str(), &dev), 0);
  const std::string node = rw_ + "/node";
  ASSERT_EQ(mknod(node.c_str(), S_IFBLK | 0600, dev.st_rdev), 0);
  const std::string before = ReadAll(loop.path());
  ASSERT_EQ(before.size(), 4u << 20);

  absl::StatusOr<WorkloadView> w = manager_->Start(WriteOnce(node));
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(w.status().message(), HasSubstr("spec.targets[0]"));
  EXPECT_THAT(w.status().message(), HasSubstr("block device"));
  EXPECT_EQ(ReadAll(loop.path()), before);
}

// The audit's B35: a prefix rule (rw/lo*) admits a device only through the
// kernel's own node (/dev/loopN), never a node made with mknod whose name
// shares the prefix; a /dev prefix rule still admits the device.
TEST_F(TargetAccessTest, PrefixRuleAdmitsNoMknodNodeOfADevice) {
  LoopDeviceForTest loop(4 << 20);
  ASSERT_TRUE(loop.ok()) << loop.why();
  struct stat dev;
  ASSERT_EQ(stat(loop.path().c_str(), &dev), 0);
  char* real = realpath(rw_.c_str(), nullptr);  // TempDir may hold "//"
  ASSERT_NE(real, nullptr);
  const std::string rw(real);
  free(real);
  const std::string node = rw + "/lo-node";
  ASSERT_EQ(mknod(node.c_str(), S_IFBLK | 0600, dev.st_rdev), 0);
  const std::string before = ReadAll(loop.path());
  ManagerLimits limits;
  limits.max_runtime = absl::Seconds(30);
  WorkloadManager prefixed(
      NewEngineBackend(), limits,
      AccessPolicy::Create({rw + "/lo*", "/dev/loop*"},
                           {rw + "/lo*", "/dev/loop*"}, ""));
  absl::StatusOr<WorkloadView> w = prefixed.Start(WriteOnce(node));
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(ReadAll(loop.path()), before);
  // The device's own node under the /dev prefix rule is admitted.
  absl::StatusOr<WorkloadView> own = prefixed.Start(WriteOnce(loop.path()));
  ASSERT_TRUE(own.ok()) << own.status();
  for (int i = 0; i < 1000; ++i) {
    absl::StatusOr<bool> ended = prefixed.HasEnded(own->id);
    ASSERT_TRUE(ended.ok()) << ended.status();
    if (*ended) break;
    absl::SleepFor(absl::Milliseconds(5));
  }
}

TEST_F(TargetAccessTest, RefusedCreateLeavesNoFile) {
  WorkloadSpec spec = WriteOnce(rw_ + "/new.dat");
  spec.targets[0].create_size = 4096;
  spec.block_size = 8192;  // larger than the file: refused after the fill
  absl::StatusOr<WorkloadView> w = manager_->Start(spec);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(w.status().message(), HasSubstr("block_size"));
  EXPECT_FALSE(Exists(rw_ + "/new.dat"));

  // The same create that fits is named once the workload runs.
  spec.block_size = 4096;
  w = manager_->Start(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  WaitEnded(w->id);
  EXPECT_EQ(ReadAll(rw_ + "/new.dat").size(), 4096u);
}

// ENOSPC during a create_size fill, on a 1 MiB tmpfs mounted inside the
// write-allowed directory: refused, nothing left, the space back.
TEST_F(TargetAccessTest, OutOfSpaceFillIsCleanedUp) {
  const std::string small = rw_ + "/small";
  ASSERT_EQ(mkdir(small.c_str(), 0755), 0);
  ASSERT_EQ(system(absl::StrCat("mount -t tmpfs -o size=1m blkperf_test ",
                                small)
                       .c_str()),
            0);
  WorkloadSpec spec = WriteOnce(small + "/big.dat");
  spec.targets[0].create_size = 4 << 20;
  absl::StatusOr<WorkloadView> w = manager_->Start(spec);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), absl::StatusCode::kResourceExhausted)
      << w.status();
  EXPECT_THAT(w.status().message(), HasSubstr("spec.targets[0]"));
  EXPECT_FALSE(Exists(small + "/big.dat"));
  // A smaller create afterwards gets a whole new file, not a partial one.
  spec.targets[0].create_size = 512 << 10;
  w = manager_->Start(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  WaitEnded(w->id);
  EXPECT_EQ(ReadAll(small + "/big.dat").size(), 512u << 10);
}

// A file that exists but is smaller than create_size is someone else's or
// partial: never extended, never used.
TEST_F(TargetAccessTest, ExistingSmallerFileIsNotUsedByCreate) {
  WriteAll(rw_ + "/old.dat", std::string(4096, 'O'));
  WorkloadSpec spec = WriteOnce(rw_ + "/old.dat");
  spec.targets[0].create_size = 1 << 20;
  absl::StatusOr<WorkloadView> w = manager_->Start(spec);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(w.status().message(), HasSubstr("create_size"));
  EXPECT_EQ(ReadAll(rw_ + "/old.dat"), std::string(4096, 'O'));
}

// One file under two names (a hard link) is one target listed twice.
// The manager checks a target by path (its claims and rules), then the
// backend opens it: a file renamed over the path in between is refused,
// not run under the checks of the one it replaced. (Probed once more
// here, through the descriptor: the probe the engine then runs on.)
TEST_F(TargetAccessTest, TargetReplacedBetweenCheckAndOpenIsRefused) {
  WorkloadSpec spec;
  spec.targets.push_back({.path = victim_});
  spec.queue_depth = 1;
  spec.direct = false;
  spec.cpus = {OnlineCpus()[0]};
  spec.runtime = absl::ZeroDuration();
  spec.io_count = 1;
  std::unique_ptr<WorkloadBackend> backend = NewEngineBackend();
  absl::StatusOr<ValidatedSpec> validated = backend->Validate(spec, {});
  ASSERT_TRUE(validated.ok()) << validated.status();
  absl::StatusOr<TargetInfo> checked = backend->Probe(victim_);
  ASSERT_TRUE(checked.ok()) << checked.status();
  const AccessPolicy policy =
      AccessPolicy::Create({root_ + "/"}, {rw_ + "/"}, "");

  const std::string other = root_ + "/other.dat";
  WriteAll(other, std::string(kFileBytes, 'O'));
  ASSERT_EQ(rename(other.c_str(), victim_.c_str()), 0);
  absl::StatusOr<std::unique_ptr<RunningWorkload>> started = backend->Start(
      *validated, {*checked}, policy, /*default_target=*/false, nullptr);
  ASSERT_FALSE(started.ok()) << "ran a target other than the one checked";
  EXPECT_EQ(started.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(started.status().message()),
              HasSubstr("spec.targets[0]"));
  EXPECT_THAT(std::string(started.status().message()), HasSubstr("replaced"));

  // Checked again, the file now at the path runs, on that probe.
  checked = backend->Probe(victim_);
  ASSERT_TRUE(checked.ok()) << checked.status();
  started = backend->Start(*validated, {*checked}, policy, false, nullptr);
  ASSERT_TRUE(started.ok()) << started.status();
  ASSERT_TRUE((*started)->WaitFor(absl::Seconds(20)));
  ASSERT_EQ((*started)->resolved().targets.size(), 1u);
  EXPECT_EQ((*started)->resolved().targets[0].st_ino, checked->st_ino);
}

TEST_F(TargetAccessTest, HardLinkedTargetsAreRefused) {
  WriteAll(rw_ + "/a.dat", std::string(kFileBytes, 'A'));
  ASSERT_EQ(link((rw_ + "/a.dat").c_str(), (rw_ + "/b.dat").c_str()), 0);
  WorkloadSpec spec = WriteOnce(rw_ + "/a.dat");
  spec.targets.push_back({.path = rw_ + "/b.dat", .allow_write = true});
  absl::StatusOr<WorkloadView> w = manager_->Start(spec);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(w.status().message(), HasSubstr("targets[1].path"));
}

// The real engine stops an io_count-only workload at --max_runtime, and the
// report says so (the 1 s limit once stopped one only at 6 s).
TEST_F(TargetAccessTest, IoCountOnlyWorkloadStopsAtMaxRuntime) {
  ManagerLimits limits;
  limits.max_runtime = absl::Seconds(1);
  WorkloadManager manager(NewEngineBackend(), limits,
                          AccessPolicy::Create({root_ + "/"}, {}, ""));
  WorkloadSpec spec;
  spec.targets.push_back({.path = victim_});
  spec.op = Op::kRandRead;
  spec.direct = false;
  spec.queue_depth = 1;
  spec.cpus = {OnlineCpus()[0]};
  spec.runtime = absl::ZeroDuration();
  spec.io_count = uint64_t{1} << 40;  // far more than one second's worth
  absl::StatusOr<WorkloadView> w = manager.Start(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->spec.runtime, absl::Seconds(1));
  absl::StatusOr<bool> ended = false;
  for (int i = 0; i < 600 && ended.ok() && !*ended; ++i) {
    absl::SleepFor(absl::Milliseconds(50));
    ended = manager.HasEnded(w->id);
  }
  ASSERT_TRUE(ended.ok() && *ended) << "still running after 30 s";
  absl::StatusOr<WorkloadView> done = manager.Get(w->id);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->snapshot.state, WorkloadState::kFinished);
  EXPECT_GT(done->snapshot.total.ios, 0u);
  EXPECT_LT(done->snapshot.total.ios, spec.io_count);
  EXPECT_THAT(done->snapshot.notes,
              testing::Contains(HasSubstr("stopped by the daemon at "
                                          "--max_runtime after")));
}

// Refusals name the path as given, never where it resolves.
TEST_F(TargetAccessTest, RefusalsRevealNoResolvedPaths) {
  for (const char* path : {"/proc/self/exe", "/proc/self/cwd/x"}) {
    absl::StatusOr<WorkloadView> w = manager_->Start(WriteOnce(path));
    ASSERT_FALSE(w.ok()) << path;
    char exe[4096] = {};
    ASSERT_GT(readlink("/proc/self/exe", exe, sizeof(exe) - 1), 0);
    EXPECT_THAT(std::string(w.status().message()),
                ::testing::Not(HasSubstr(exe)));
    EXPECT_THAT(std::string(w.status().message()),
                ::testing::Not(HasSubstr(absl::StrCat("/proc/", getpid()))));
  }
}

}  // namespace
}  // namespace blkperf
