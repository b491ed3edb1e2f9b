// Preconditioning (WorkloadSpec::precondition) end to end on the engine: a
// file and a loop device written in full before the measured run, the
// progress while it runs, a stop during it, and the refusals.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/engine/testing/loop_device_for_test.h"
#include "daemon/engine/workload.h"
#include "daemon/engine/workload_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

constexpr char kOldByte = '\xab';

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", getpid(), "_", name);
}

// A file of `bytes` bytes of kOldByte.
void WriteOldFile(const std::string& path, uint64_t bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const std::string chunk(1 << 20, kOldByte);
  for (uint64_t done = 0; done < bytes; done += chunk.size()) {
    out.write(chunk.data(),
              static_cast<std::streamsize>(std::min<uint64_t>(chunk.size(),
                                                              bytes - done)));
  }
}

// The 4 KiB blocks of `path` still all kOldByte.
int OldBlocks(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> block(4096);
  const std::string old(block.size(), kOldByte);
  int count = 0;
  while (in.read(block.data(), static_cast<std::streamsize>(block.size()))) {
    count += std::string(block.data(), block.size()) == old;
  }
  return count;
}

// Sectors written to /sys/block/`name` so far (its stat's 7th field).
uint64_t SectorsWritten(const std::string& device_path) {
  const std::string name = device_path.substr(device_path.rfind('/') + 1);
  std::ifstream in(absl::StrCat("/sys/block/", name, "/stat"));
  uint64_t field[7] = {};
  for (uint64_t& f : field) in >> f;
  return field[6];
}

WorkloadSpec ReadRunAfter(uint32_t passes, const std::string& path) {
  WorkloadSpec spec;
  spec.targets.push_back({.path = path, .allow_write = true});
  spec.op = Op::kRandRead;
  spec.queue_depth = 4;
  spec.runtime = absl::Milliseconds(200);
  spec.precondition.sequential_passes = passes;
  return spec;
}

TEST(PreconditionTest, EveryBlockOfAFileIsWrittenBeforeTheMeasuredRun) {
  const std::string path = TempPath("file.dat");
  constexpr uint64_t kSize = 8 << 20;
  WriteOldFile(path, kSize);
  ASSERT_EQ(OldBlocks(path), kSize / 4096);
  const WorkloadSnapshot s = RunToEnd(ReadRunAfter(2, path));
  EXPECT_EQ(s.state, WorkloadState::kFinished);
  const PreconditionSummary& p = s.precondition;
  EXPECT_EQ(p.passes, 2u);
  EXPECT_EQ(p.passes_done, 2u);
  EXPECT_TRUE(p.complete);
  EXPECT_EQ(p.bytes_planned, 2 * kSize);
  EXPECT_EQ(p.bytes_written, 2 * kSize);
  EXPECT_GT(p.time, absl::ZeroDuration());
  // Nothing of the old content is left, and the measured run's own I/O
  // (reads) came after: its totals hold none of the writes.
  EXPECT_EQ(OldBlocks(path), 0);
  EXPECT_GT(s.total.read_ios, 0u);
  EXPECT_EQ(s.total.write_ios, 0u);
  unlink(path.c_str());
}

TEST(PreconditionTest, ALoopDeviceIsWrittenInFullEachPassUnderAWriteWorkload) {
  LoopDeviceForTest loop(16 << 20);
  if (!loop.ok()) GTEST_SKIP() << loop.why();
  // A write workload holds the device's exclusive claim (O_EXCL) for its
  // whole run; preconditioning writes through that claim.
  WorkloadSpec spec = ReadRunAfter(2, loop.path());
  spec.op = Op::kRandWrite;
  const uint64_t before = SectorsWritten(loop.path());
  const WorkloadSnapshot s = RunToEnd(spec);
  const uint64_t written = (SectorsWritten(loop.path()) - before) * 512;
  EXPECT_EQ(s.state, WorkloadState::kFinished) << s.error.message;
  EXPECT_TRUE(s.precondition.complete);
  EXPECT_EQ(s.precondition.bytes_written, uint64_t{2} * (16 << 20));
  EXPECT_TRUE(s.precondition.notes.empty());  // direct, no tail
  EXPECT_GT(s.total.write_bytes, 0u);
  // The device wrote both passes (every block twice) and the workload's
  // own writes, nothing else: those that completed after its measured
  // window (at most a queue's worth) are the only writes not counted.
  const uint64_t counted = s.precondition.bytes_written + s.total.write_bytes;
  EXPECT_GE(written, counted);
  EXPECT_LE(written, counted + uint64_t{spec.queue_depth} * spec.block_size);
}

TEST(PreconditionTest, ProgressShowsWhileItRunsAndAStopEndsTheWorkload) {
  const std::string path = TempPath("stop.dat");
  constexpr uint64_t kSize = 256 << 20;
  WriteOldFile(path, 4096);
  ASSERT_EQ(truncate(path.c_str(), kSize), 0);
  WorkloadSpec spec = ReadRunAfter(16, path);
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  WorkloadSnapshot live;
  for (int i = 0; i < 500 && (*w)->Preconditioning(); ++i) {
    live = (*w)->Snapshot();
    if (live.precondition.bytes_written > 0) break;
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_TRUE((*w)->Preconditioning()) << "16 passes of 256 MiB ended early";
  EXPECT_EQ(live.state, WorkloadState::kCreating);
  EXPECT_GT(live.precondition.bytes_written, 0u);
  EXPECT_THAT(live.notes, ::testing::Contains(HasSubstr(
                              "preconditioning pass 1/16, ")));
  EXPECT_EQ(live.total.ios, 0u);  // the measured run has not started
  (*w)->RequestStop();
  (*w)->Wait();
  const absl::Time asked = absl::Now();
  while ((*w)->Preconditioning() && absl::Now() - asked < absl::Seconds(10)) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_FALSE((*w)->Preconditioning());
  const WorkloadSnapshot s = (*w)->Snapshot();
  EXPECT_EQ(s.state, WorkloadState::kStopped);
  EXPECT_FALSE(s.precondition.complete);
  EXPECT_LT(s.precondition.bytes_written, s.precondition.bytes_planned);
  EXPECT_THAT(s.precondition.notes,
              ::testing::Contains(HasSubstr("stopped during preconditioning")));
  EXPECT_EQ(s.total.ios, 0u);
  unlink(path.c_str());
}

TEST(PreconditionTest, PastTheRuntimeLimitItFailsTheWorkloadSayingSo) {
  const std::string path = TempPath("limit.dat");
  WriteOldFile(path, 4096);
  ASSERT_EQ(truncate(path.c_str(), 256 << 20), 0);
  WorkloadSpec spec = ReadRunAfter(16, path);
  spec.runtime = absl::Milliseconds(20);
  absl::StatusOr<std::unique_ptr<Workload>> w =
      Workload::Start(spec, EngineLimits{.max_runtime = absl::Milliseconds(50)});
  ASSERT_TRUE(w.ok()) << w.status();
  (*w)->Wait();
  const absl::Time waited = absl::Now();
  while ((*w)->Preconditioning() && absl::Now() - waited < absl::Seconds(10)) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  const WorkloadSnapshot s = (*w)->Snapshot();
  EXPECT_EQ(s.state, WorkloadState::kFailed);
  ASSERT_TRUE(s.has_error);
  EXPECT_THAT(s.error.message, HasSubstr("precondition pass 1/16 of targets[0]"));
  EXPECT_THAT(s.error.message, HasSubstr("ran past the limit max_runtime 50ms"));
  EXPECT_FALSE(s.precondition.complete);
  EXPECT_EQ(s.total.ios, 0u);
  unlink(path.c_str());
}

TEST(PreconditionTest, RefusedWhereWritesAreNotAllowedNamingTheTarget) {
  const std::string path = TempPath("ro.dat");
  WriteOldFile(path, 1 << 20);
  WorkloadSpec spec = ReadRunAfter(2, path);
  spec.targets.push_back({.path = path + ".2", .allow_write = false});
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(spec);
  ASSERT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(w.status().message(), HasSubstr("targets[1].allow_write"));
  EXPECT_THAT(w.status().message(), HasSubstr(path + ".2"));
  EXPECT_THAT(w.status().message(), HasSubstr("precondition sequential:2"));
  EXPECT_EQ(OldBlocks(path), (1 << 20) / 4096);  // nothing written

  spec = ReadRunAfter(17, path);
  w = StartWorkload(spec);
  ASSERT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(w.status().message(),
              HasSubstr("precondition.sequential_passes 17"));
  spec = ReadRunAfter(1, path);
  spec.verify = true;
  w = StartWorkload(spec);
  ASSERT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(w.status().message(), HasSubstr("verify"));
  // An armed (fleet) workload starts at an instant: refused.
  w = Workload::Arm(ReadRunAfter(1, path), EngineLimits{});
  ASSERT_EQ(w.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(w.status().message(), HasSubstr("precondition"));
  EXPECT_EQ(OldBlocks(path), (1 << 20) / 4096);
  unlink(path.c_str());
}

}  // namespace
}  // namespace blkperf
