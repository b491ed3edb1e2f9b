#include "daemon/service/workload_manager.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/service/data_dir.h"
#include "daemon/service/fake_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

class WorkloadManagerTest : public ::testing::Test {
 protected:
  void SetUp() override { Make(ManagerLimits{}); }

  void Make(ManagerLimits limits) {
    manager_.reset();
    auto backend = std::make_unique<FakeBackend>();
    fake_ = backend.get();
    fake_->AddFile("/data/a", 1 << 30);
    fake_->AddFile("/data/b", 1 << 30);
    fake_->AddFile("/elsewhere/c", 1 << 30);
    fake_->AddDevice("/dev/fake0", "fake0");
    fake_->AddDevice("/dev/fake0p1", "fake0", "fake0p1");
    fake_->AddDevice("/dev/fake0p2", "fake0", "fake0p2");
    manager_ = std::make_unique<WorkloadManager>(
        std::move(backend), limits,
        AccessPolicy::Create({"/data/", "/dev/"}, {"/data/", "/dev/fake0*"},
                             ""));
  }

  static WorkloadSpec Spec(const std::string& path, std::vector<int> cpus) {
    WorkloadSpec spec;
    spec.targets.push_back({.path = path});
    spec.cpus = std::move(cpus);
    return spec;
  }

  static WorkloadSpec WriteSpec(const std::string& path,
                                std::vector<int> cpus) {
    WorkloadSpec spec = Spec(path, std::move(cpus));
    spec.op = Op::kRandWrite;
    spec.targets[0].allow_write = true;
    return spec;
  }

  FakeBackend* fake_ = nullptr;
  std::unique_ptr<WorkloadManager> manager_;
};

TEST_F(WorkloadManagerTest, StartsWithIdsAndResolvedSpec) {
  absl::StatusOr<WorkloadView> a = manager_->Start(Spec("/data/a", {}));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->id, "w1");
  EXPECT_EQ(a->spec.cpus, std::vector<int>{0});
  EXPECT_EQ(a->snapshot.state, WorkloadState::kRunning);
  absl::StatusOr<WorkloadView> b = manager_->Start(Spec("/data/b", {1}));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->id, "w2");
  EXPECT_EQ(manager_->BusyCpus(), (std::vector<int>{0, 1}));
}

TEST_F(WorkloadManagerTest, OverlappingCpusAreFailedPrecondition) {
  ASSERT_TRUE(manager_->Start(Spec("/data/a", {0, 1})).ok());
  absl::StatusOr<WorkloadView> b = manager_->Start(Spec("/data/b", {1, 2}));
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(b.status().message()), HasSubstr("CPU 1"));
  EXPECT_THAT(std::string(b.status().message()), HasSubstr("w1"));
  EXPECT_TRUE(manager_->Start(Spec("/data/b", {2, 3})).ok());
}

TEST_F(WorkloadManagerTest, SqpollCpuCountsAsUsed) {
  WorkloadSpec spec = Spec("/data/a", {0});
  spec.sqpoll = true;
  spec.sqpoll_cpu = 5;
  ASSERT_TRUE(manager_->Start(spec).ok());
  absl::StatusOr<WorkloadView> b = manager_->Start(Spec("/data/b", {5}));
  EXPECT_EQ(b.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(b.status().message()), HasSubstr("CPU 5"));
}

TEST_F(WorkloadManagerTest, OverlappingTargetsAreFailedPrecondition) {
  ASSERT_TRUE(manager_->Start(Spec("/data/a", {0})).ok());
  absl::StatusOr<WorkloadView> b = manager_->Start(Spec("/data/a", {1}));
  EXPECT_EQ(b.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(b.status().message()), HasSubstr("/data/a"));
  EXPECT_THAT(std::string(b.status().message()), HasSubstr("w1"));
}

// Two paths of one inode (a hard link) are one target: a second write
// workload on it is refused like one on the same path.
TEST_F(WorkloadManagerTest, AHardLinkIsTheSameTarget) {
  TargetInfo a;
  a.path = a.resolved_path = "/data/linked";
  a.size_bytes = 1 << 30;
  a.logical_block_size = 512;
  a.st_dev = 2049;
  a.st_ino = 77;
  fake_->Add(a);
  TargetInfo link = a;
  link.path = link.resolved_path = "/data/linked-hard";
  fake_->Add(link);
  ASSERT_TRUE(manager_->Start(WriteSpec("/data/linked", {0})).ok());
  const absl::Status s =
      manager_->Start(WriteSpec("/data/linked-hard", {1})).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("hard link"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("w1"));
  // Another inode on the same file system is fine.
  TargetInfo other = a;
  other.path = other.resolved_path = "/data/other";
  other.st_ino = 78;
  fake_->Add(other);
  EXPECT_TRUE(manager_->Start(WriteSpec("/data/other", {2})).ok());
}

TEST_F(WorkloadManagerTest, PartitionsOverlapTheirDiskButNotEachOther) {
  ASSERT_TRUE(manager_->Start(Spec("/dev/fake0p1", {0})).ok());
  EXPECT_TRUE(manager_->Start(Spec("/dev/fake0p2", {1})).ok());
  absl::StatusOr<WorkloadView> disk = manager_->Start(Spec("/dev/fake0", {2}));
  EXPECT_EQ(disk.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(disk.status().message()), HasSubstr("/dev/fake0"));
}

TEST_F(WorkloadManagerTest, EndedWorkloadsReleaseTheirClaims) {
  ASSERT_TRUE(manager_->Start(Spec("/data/a", {0})).ok());
  fake_->last()->Finish();
  absl::StatusOr<WorkloadView> again = manager_->Start(Spec("/data/a", {0}));
  EXPECT_TRUE(again.ok()) << again.status();
}

TEST_F(WorkloadManagerTest, FailedStartReleasesItsReservation) {
  fake_->set_start_status(absl::InternalError("ring setup failed"));
  absl::StatusOr<WorkloadView> a = manager_->Start(Spec("/data/a", {0}));
  EXPECT_EQ(a.status().code(), absl::StatusCode::kInternal);
  fake_->set_start_status(absl::OkStatus());
  EXPECT_TRUE(manager_->Start(Spec("/data/a", {0})).ok());
}

TEST_F(WorkloadManagerTest, LimitsAreResourceExhaustedNamingTheFlag) {
  ManagerLimits limits;
  limits.max_workloads = 1;
  limits.max_queue_depth = 64;
  limits.max_buffer_bytes = 1 << 20;
  limits.max_runtime = absl::Minutes(1);
  Make(limits);

  WorkloadSpec deep = Spec("/data/a", {0});
  deep.queue_depth = 128;
  absl::Status s = manager_->Start(deep).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(s.message()), HasSubstr("--max_queue_depth=64"));

  // Buffer memory is the engine's one rule at the daemon's limit, named as
  // its flag (the fake has no rule of its own: buffer_limit_test runs the
  // real one).
  EXPECT_EQ(manager_->engine_limits().max_buffer_bytes,
            limits.max_buffer_bytes);
  EXPECT_TRUE(manager_->engine_limits().daemon_flags);

  WorkloadSpec longer = Spec("/data/a", {0});
  longer.runtime = absl::Seconds(50);
  longer.ramp_time = absl::Seconds(20);
  s = manager_->Start(longer).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(s.message()), HasSubstr("--max_runtime=1m"));

  ASSERT_TRUE(manager_->Start(Spec("/data/a", {0})).ok());
  s = manager_->Start(Spec("/data/b", {1})).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(s.message()), HasSubstr("--max_workloads=1"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("w1"));
}

TEST_F(WorkloadManagerTest, TargetsOutsideTheAllowListsArePermissionDenied) {
  absl::Status s = manager_->Start(Spec("/elsewhere/c", {0})).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(s.message()), HasSubstr("/elsewhere/c"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("--allow_read"));

  // Readable but not writable.
  fake_->AddDevice("/dev/other", "other");
  EXPECT_TRUE(manager_->Start(Spec("/dev/other", {0})).ok());
  s = manager_->Start(WriteSpec("/dev/other", {1})).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(s.message()), HasSubstr("/dev/other"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("--allow_write"));

  // Creating a file is a write.
  WorkloadSpec create = Spec("/elsewhere/new", {2});
  create.targets[0].create_size = 1 << 20;
  create.targets[0].allow_write = true;
  s = manager_->Start(create).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(WorkloadManagerTest, UnsafeDevicesAreNotWritten) {
  fake_->AddDevice("/dev/fake0p3", "fake0", "fake0p3").mounted = true;
  absl::Status s = manager_->Start(WriteSpec("/dev/fake0p3", {0})).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(s.message()), HasSubstr("mounted"));
  // Reading a mounted device is fine.
  EXPECT_TRUE(manager_->Start(Spec("/dev/fake0p3", {0})).ok());
}

TEST_F(WorkloadManagerTest, RefusedExclusiveClaimIsPermissionDenied) {
  fake_->set_exclusive_status(absl::UnavailableError("EBUSY"));
  absl::Status s = manager_->Start(WriteSpec("/dev/fake0p1", {0})).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(s.message()), HasSubstr("/dev/fake0p1"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("O_EXCL"));
  // Nothing was left reserved.
  fake_->set_exclusive_status(absl::OkStatus());
  EXPECT_TRUE(manager_->Start(WriteSpec("/dev/fake0p1", {0})).ok());
  // Regular files need no claim.
  fake_->set_exclusive_status(absl::UnavailableError("EBUSY"));
  EXPECT_TRUE(manager_->Start(WriteSpec("/data/a", {1})).ok());
}

TEST_F(WorkloadManagerTest, MissingFilesNeedCreateSize) {
  absl::Status s = manager_->Start(Spec("/data/missing", {0})).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("spec.targets[0].path"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("create_size"));

  WorkloadSpec create = Spec("/data/new", {0});
  create.targets[0].create_size = 1 << 20;
  create.targets[0].allow_write = true;
  absl::StatusOr<WorkloadView> w = manager_->Start(create);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_THAT(fake_->created(), ::testing::ElementsAre("/data/new"));
  // It is a target like any other now.
  EXPECT_EQ(manager_->Start(Spec("/data/new", {1})).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(WorkloadManagerTest, CreateSizeOverTheLimitIsRefusedNamingTheFlag) {
  ManagerLimits limits;
  limits.max_create_bytes = 1 << 20;
  Make(limits);
  WorkloadSpec create = WriteSpec("/data/huge", {0});
  create.targets[0].create_size = (1 << 20) + 4096;
  const absl::Status s = manager_->Start(create).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("spec.targets[0].create_size 1052672"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("--max_create_bytes=1048576"));
  EXPECT_TRUE(fake_->created().empty());
  create.targets[0].create_size = 1 << 20;
  EXPECT_TRUE(manager_->Start(create).ok());
}

// Starts a create_size workload on another thread and waits until its fill
// is under way (held by the fake).
class CreatingWorkloadTest : public WorkloadManagerTest {
 protected:
  void StartCreating() {
    fake_->hold_fills();
    starter_ = std::thread([this] {
      WorkloadSpec create = WriteSpec("/data/new", {0});
      create.targets[0].create_size = 1 << 30;
      result_ = manager_->Start(create).status();
    });
    const absl::Time give_up = absl::Now() + absl::Seconds(10);
    while (fake_->fills_waiting() == 0 && absl::Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(1));
    }
    ASSERT_EQ(fake_->fills_waiting(), 1);
  }
  void TearDown() override {
    fake_->release_fills();
    if (starter_.joinable()) starter_.join();
  }
  std::thread starter_;
  absl::Status result_;
};

TEST_F(CreatingWorkloadTest, FillIsListedAndStopCancelsIt) {
  ASSERT_NO_FATAL_FAILURE(StartCreating());
  std::vector<WorkloadView> listed = manager_->List(true);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].id, "w1");
  EXPECT_EQ(listed[0].snapshot.state, WorkloadState::kCreating);
  ASSERT_FALSE(listed[0].snapshot.notes.empty());
  EXPECT_THAT(listed[0].snapshot.notes[0],
              HasSubstr("536870912 of 1073741824 bytes filled"));
  // Its CPU and target are held meanwhile.
  EXPECT_EQ(manager_->Start(Spec("/data/a", {0})).status().code(),
            absl::StatusCode::kFailedPrecondition);
  absl::StatusOr<WorkloadView> stopped = manager_->Stop("w1");
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  EXPECT_EQ(stopped->snapshot.state, WorkloadState::kCreating);
  starter_.join();
  EXPECT_EQ(result_.code(), absl::StatusCode::kCancelled) << result_;
  EXPECT_THAT(std::string(result_.message()), HasSubstr("w1"));
  EXPECT_TRUE(fake_->created().empty()) << "a cancelled file was named";
  EXPECT_TRUE(manager_->List(true).empty());
  EXPECT_TRUE(manager_->Start(Spec("/data/a", {0})).ok());
}

TEST_F(CreatingWorkloadTest, ShutdownCancelsTheFillAndStartsNothing) {
  ASSERT_NO_FATAL_FAILURE(StartCreating());
  const absl::Time start = absl::Now();
  manager_->Shutdown(absl::Seconds(1));
  starter_.join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  EXPECT_EQ(result_.code(), absl::StatusCode::kUnavailable) << result_;
  EXPECT_THAT(std::string(result_.message()), HasSubstr("shutting down"));
  EXPECT_TRUE(fake_->created().empty()) << "a file was named after shutdown";
  EXPECT_TRUE(fake_->workloads().empty()) << "a workload started";
}

// A workload whose device holds its I/O (io_timeout 0) never drains: the
// shutdown abandons it after the timeout instead of waiting forever in its
// destructor, and says so.
TEST_F(WorkloadManagerTest, ShutdownAbandonsAWorkloadThatNeverDrains) {
  WorkloadSpec spec = Spec("/data/a", {0});
  spec.io_timeout = absl::ZeroDuration();
  ASSERT_TRUE(manager_->Start(spec).ok());
  std::shared_ptr<FakeWorkloadState> stalled = fake_->last();
  stalled->set_finish_on_stop(false);
  stalled->set_destroy_waits(true);
  absl::Notification done;
  size_t abandoned = 0;
  std::thread shutdown([&] {
    abandoned = manager_->Shutdown(absl::Milliseconds(200));
    std::vector<WorkloadView> kept = manager_->List(true);
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_EQ(kept[0].snapshot.state, WorkloadState::kStopped);
    ASSERT_FALSE(kept[0].snapshot.notes.empty());
    EXPECT_THAT(kept[0].snapshot.notes.back(),
                HasSubstr("abandoned at shutdown"));
    manager_.reset();
    done.Notify();
  });
  const bool ended = done.WaitForNotificationWithTimeout(absl::Seconds(10));
  if (!ended) stalled->Finish();  // unblock, then fail
  shutdown.join();
  EXPECT_TRUE(ended) << "the shutdown waited for the stalled workload";
  EXPECT_EQ(abandoned, 1u);
}

TEST_F(WorkloadManagerTest, EngineFieldErrorsPassThrough) {
  WorkloadSpec spec = Spec("/data/a", {0});
  spec.queue_depth = 0;
  absl::Status s = manager_->Start(spec).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("queue_depth"));
}

TEST_F(WorkloadManagerTest, NoTargetsAndNoDataDirIsInvalidArgument) {
  WorkloadSpec spec;
  absl::Status s = manager_->Start(spec).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("spec.targets"));
}

TEST(WorkloadManagerDefaultTargetTest, IsTheDaemonsOwnFile) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string data_dir =
      absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/manager_data/sub");
  auto backend = std::make_unique<FakeBackend>();
  FakeBackend* fake = backend.get();
  // Allow lists that cover neither reading nor writing the data directory.
  WorkloadManager manager(std::move(backend), ManagerLimits{},
                          AccessPolicy::Create({"/nowhere/"}, {}, ""),
                          data_dir);
  WorkloadSpec spec;
  spec.op = Op::kRandWrite;
  absl::StatusOr<WorkloadView> w = manager.Start(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  const std::string path = data_dir + "/default-target.dat";
  ASSERT_EQ(w->spec.targets.size(), 1u);
  EXPECT_EQ(w->spec.targets[0].path, path);
  EXPECT_EQ(w->spec.targets[0].create_size, kDefaultTargetBytes);
  EXPECT_TRUE(w->spec.targets[0].allow_write);
  EXPECT_THAT(fake->created(), ::testing::ElementsAre(path));
  struct stat st;
  EXPECT_EQ(stat(data_dir.c_str(), &st), 0);  // created for the file
}

TEST_F(WorkloadManagerTest, IoCountOnlyRunsAtMostMaxRuntime) {
  ManagerLimits limits;
  limits.max_runtime = absl::Seconds(1);
  Make(limits);
  WorkloadSpec spec = Spec("/data/a", {0});
  spec.runtime = absl::ZeroDuration();
  spec.io_count = 1000000000;
  absl::StatusOr<WorkloadView> w = manager_->Start(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  // The engine is told to stop at the limit, and the report says so.
  EXPECT_EQ(fake_->last()->spec().runtime, absl::Seconds(1));
  EXPECT_EQ(fake_->last()->spec().io_count, 1000000000u);
  EXPECT_THAT(w->snapshot.notes,
              testing::Contains(HasSubstr("--max_runtime=1s")));
  fake_->last()->Complete(10, 1000);
  fake_->last()->Finish();
  absl::StatusOr<WorkloadView> done = manager_->Get(w->id);
  ASSERT_TRUE(done.ok());
  EXPECT_THAT(done->snapshot.notes,
              testing::Contains(HasSubstr(
                  "stopped by the daemon at --max_runtime after 10 of "
                  "io_count 1000000000")));
}

TEST_F(WorkloadManagerTest, HugeInputIsNotEchoedWhole) {
  const std::string huge(1 << 20, 'x');
  absl::StatusOr<WorkloadView> get = manager_->Get(huge);
  EXPECT_EQ(get.status().code(), absl::StatusCode::kNotFound);
  EXPECT_LT(get.status().message().size(), 1024u);
  absl::StatusOr<WorkloadView> start =
      manager_->Start(Spec("/data/" + huge, {0}));
  EXPECT_EQ(start.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(start.status().message()),
              HasSubstr("spec.targets[0].path"));
  EXPECT_LT(start.status().message().size(), 1024u);
}

TEST_F(WorkloadManagerTest, StopGetAndFinalResult) {
  absl::StatusOr<WorkloadView> a = manager_->Start(Spec("/data/a", {0}));
  ASSERT_TRUE(a.ok());
  fake_->last()->Complete(100, 5000);
  absl::StatusOr<WorkloadView> live = manager_->Get("w1");
  ASSERT_TRUE(live.ok());
  EXPECT_EQ(live->snapshot.total.ios, 100u);
  EXPECT_EQ(live->end_time, absl::InfinitePast());

  absl::StatusOr<WorkloadView> stopped = manager_->Stop("w1");
  ASSERT_TRUE(stopped.ok());
  EXPECT_TRUE(fake_->last()->stop_requested());
  EXPECT_EQ(stopped->snapshot.state, WorkloadState::kStopped);
  EXPECT_NE(stopped->end_time, absl::InfinitePast());
  EXPECT_EQ(*manager_->HasEnded("w1"), true);

  // The final result stays after the workload is gone.
  absl::StatusOr<WorkloadView> final_view = manager_->Get("w1");
  ASSERT_TRUE(final_view.ok());
  EXPECT_EQ(final_view->snapshot.total.ios, 100u);
  EXPECT_EQ(final_view->snapshot.total.latency.Count(), 100u);
  // Stopping an ended workload is not an error.
  EXPECT_TRUE(manager_->Stop("w1").ok());
}

TEST_F(WorkloadManagerTest, AFailedWorkloadSaysWhyInEndReason) {
  ASSERT_TRUE(manager_->Start(Spec("/data/a", {0})).ok());
  fake_->last()->Fail(
      "the daemon was paused: submitter thread 0 did not run for 5s");
  absl::StatusOr<WorkloadView> failed = manager_->Get("w1");
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->snapshot.state, WorkloadState::kFailed);
  EXPECT_EQ(failed->end_reason,
            "the daemon was paused: submitter thread 0 did not run for 5s");
}

TEST_F(WorkloadManagerTest, SteadyStateStopSaysSoInEndReason) {
  ASSERT_TRUE(manager_->Start(Spec("/data/a", {0})).ok());
  SteadyStateResult steady;
  steady.enabled = true;
  steady.criterion = "iops:5%";
  steady.mode = "stop";
  steady.attained = true;
  steady.attained_at = absl::Seconds(41);
  fake_->last()->FinishSteady(steady);
  absl::StatusOr<WorkloadView> done = manager_->Get("w1");
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->snapshot.state, WorkloadState::kFinished);
  EXPECT_EQ(done->end_reason, "steady state iops:5% attained at 41s");
}

TEST_F(WorkloadManagerTest, UnknownIdsAreNotFound) {
  EXPECT_EQ(manager_->Get("w9").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(manager_->Stop("w9").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(manager_->HasEnded("w9").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(manager_->SetSplitStrategy("w9", "none").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(manager_->Get("w9").status().message()),
              HasSubstr("w9"));
}

TEST_F(WorkloadManagerTest, KeepsOnlyTheLastFinished) {
  ManagerLimits limits;
  limits.keep_finished = 2;
  Make(limits);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(manager_->Start(Spec("/data/a", {0})).ok());
    fake_->last()->Finish();
    ASSERT_TRUE(*manager_->HasEnded(absl::StrCat("w", i + 1)));
  }
  std::vector<WorkloadView> all = manager_->List(false);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, "w2");
  EXPECT_EQ(all[1].id, "w3");
  EXPECT_EQ(manager_->Get("w1").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(manager_->Get("w3").ok());
}

TEST_F(WorkloadManagerTest, ListsRunningThenFinished) {
  ASSERT_TRUE(manager_->Start(Spec("/data/a", {0})).ok());
  ASSERT_TRUE(manager_->Start(Spec("/data/b", {1})).ok());
  fake_->workloads()[0]->Finish();
  ASSERT_TRUE(*manager_->HasEnded("w1"));
  std::vector<WorkloadView> all = manager_->List(true);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, "w2");
  EXPECT_EQ(all[0].snapshot.state, WorkloadState::kRunning);
  EXPECT_EQ(all[1].id, "w1");
  EXPECT_EQ(all[1].snapshot.state, WorkloadState::kFinished);
}

TEST_F(WorkloadManagerTest, SetsTheSplitStrategyWhileRunning) {
  ASSERT_TRUE(manager_->Start(Spec("/data/a", {0})).ok());
  absl::StatusOr<std::string> split =
      manager_->SetSplitStrategy("w1", "fixed:64k");
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_EQ(*split, "fixed:65536");
  EXPECT_EQ(fake_->last()->split().fixed_bytes, 65536u);
  EXPECT_EQ(manager_->Get("w1")->split.fixed_bytes, 65536u);

  absl::Status bad = manager_->SetSplitStrategy("w1", "zigzag").status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.message()), HasSubstr("split"));

  fake_->last()->Finish();
  absl::Status ended = manager_->SetSplitStrategy("w1", "none").status();
  EXPECT_EQ(ended.code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(WorkloadManagerTest, ShutdownStopsEverythingAndRefusesStarts) {
  ASSERT_TRUE(manager_->Start(Spec("/data/a", {0})).ok());
  ASSERT_TRUE(manager_->Start(Spec("/data/b", {1})).ok());
  manager_->Shutdown(absl::Seconds(5));
  for (const auto& w : fake_->workloads()) EXPECT_TRUE(w->stop_requested());
  absl::StatusOr<WorkloadView> w1 = manager_->Get("w1");
  ASSERT_TRUE(w1.ok());
  EXPECT_EQ(w1->snapshot.state, WorkloadState::kStopped);
  EXPECT_THAT(w1->snapshot.notes,
              ::testing::Contains(HasSubstr("shutting down")));
  EXPECT_EQ(manager_->Start(Spec("/data/a", {2})).status().code(),
            absl::StatusCode::kUnavailable);
}

TEST_F(WorkloadManagerTest, ProbeChecksTheReadList) {
  EXPECT_TRUE(manager_->Probe("/data/a").ok());
  EXPECT_EQ(manager_->Probe("/elsewhere/c").status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(manager_->Probe("data/a").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace blkperf

namespace blkperf {
namespace {

TEST(WorkloadManagerIdsTest, IdsContinueAcrossARestart) {
  const std::string dir =
      absl::StrCat(testing::TempDir(), "/manager_ids_", getpid());
  std::string first_id;
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<std::unique_ptr<DataDir>> data = DataDir::Open(dir);
    ASSERT_TRUE(data.ok()) << data.status();
    auto backend = std::make_unique<FakeBackend>();
    backend->AddFile("/data/a", 1 << 30);
    WorkloadManager manager(std::move(backend), ManagerLimits{},
                            AccessPolicy::Create({"/data/"}, {}, ""), "",
                            data->get());
    WorkloadSpec spec;
    spec.targets.push_back({.path = "/data/a"});
    absl::StatusOr<WorkloadView> w = manager.Start(spec);
    ASSERT_TRUE(w.ok()) << w.status();
    if (run == 0) {
      first_id = w->id;
      EXPECT_EQ(w->id, "w1");
    } else {
      // The restarted daemon never hands out the old id again.
      EXPECT_EQ(w->id, "w2");
      EXPECT_EQ(manager.Get(first_id).status().code(),
                absl::StatusCode::kNotFound);
    }
  }
}

}  // namespace
}  // namespace blkperf
