// Real runs on a file in each I/O mode and buffer layout: the opcode each
// mode claims moves exactly ios x block_size bytes into and out of the right
// buffers (verify checks every byte read against the pattern).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/engine/workload.h"
#include "daemon/engine/workload_test_util.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

constexpr uint64_t kFileBytes = 16 << 20;

struct Mode {
  const char* name;
  bool fixed_buffers;
  bool vectored;
  BufferLayout layout;
  uint32_t block_size;
  // ring.buffer_layout: the layout used (auto decided; plain buffers
  // register nothing and report per_slot).
  const char* used_layout;
};

class IoModeTest : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    const char* dir = std::getenv("TEST_TMPDIR");
    path_ = absl::StrCat(dir != nullptr ? dir : "/tmp", "/io_mode_", getpid(),
                         ".dat");
    unlink(path_.c_str());
  }
  void TearDown() override {
    unlink(path_.c_str());
    std::filesystem::remove_all(path_ + ".verify");
  }

  WorkloadSpec Spec(Op op) const {
    const Mode& m = GetParam();
    WorkloadSpec spec;
    spec.targets.push_back(
        {.path = path_, .create_size = kFileBytes, .allow_write = true});
    spec.op = op;
    spec.block_size = m.block_size;
    spec.queue_depth = 16;
    spec.runtime = absl::ZeroDuration();
    spec.io_count = 500;
    spec.verify = true;
    // The write run saves each block's generation here; the read run checks
    // against it.
    spec.verify_state_dir = path_ + ".verify";
    spec.fixed_buffers = m.fixed_buffers;
    spec.vectored = m.vectored;
    spec.buffer_layout = m.layout;
    spec.huge_pages = HugePageMode::kOff;
    return spec;
  }

  std::string path_;
};

TEST_P(IoModeTest, WritesThenVerifiedReadsMoveExactlyTheirBytes) {
  const Mode& m = GetParam();
  const std::string mode =
      m.fixed_buffers ? "fixed" : m.vectored ? "vectored" : "plain";
  for (Op op : {Op::kRandWrite, Op::kRandRead}) {
    const WorkloadSnapshot s = RunToEnd(Spec(op));
    EXPECT_EQ(s.state, WorkloadState::kFinished) << OpName(op);
    EXPECT_FALSE(s.has_error) << s.error.message;
    EXPECT_EQ(s.total.ErrorTotal(), 0u);
    ASSERT_EQ(s.total.ios, 500u) << OpName(op);
    EXPECT_EQ(s.total.bytes, 500u * m.block_size);
    EXPECT_EQ(s.total.sqes, 500u);  // split none: one SQE per I/O
    EXPECT_EQ(s.ring.io_mode, mode);
    EXPECT_EQ(s.ring.fixed_buffers, m.fixed_buffers);
    EXPECT_EQ(s.ring.buffer_layout, m.used_layout);
    EXPECT_FALSE(s.ring.huge_pages);  // huge_pages off
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, IoModeTest,
    ::testing::Values(
        Mode{"FixedPerSlot4k", true, false, BufferLayout::kPerSlot, 4096,
             "per_slot"},
        Mode{"FixedOneRegion4k", true, false, BufferLayout::kOneRegion, 4096,
             "one_region"},
        Mode{"FixedOneRegion128k", true, false, BufferLayout::kOneRegion,
             128 << 10, "one_region"},
        Mode{"FixedAuto4k", true, false, BufferLayout::kAuto, 4096,
             "one_region"},
        Mode{"Plain4k", false, false, BufferLayout::kPerSlot, 4096,
             "per_slot"},
        Mode{"PlainAuto128k", false, false, BufferLayout::kAuto, 128 << 10,
             "per_slot"},
        Mode{"Vectored4k", false, true, BufferLayout::kPerSlot, 4096,
             "per_slot"},
        Mode{"Vectored128k", false, true, BufferLayout::kPerSlot, 128 << 10,
             "per_slot"}),
    [](const ::testing::TestParamInfo<Mode>& info) { return info.param.name; });

TEST(IoModeValidationTest, VectoredFixedIsRefusedNamingTheField) {
  WorkloadSpec spec;
  spec.targets.push_back({.path = "/dev/null"});
  spec.vectored = true;
  absl::StatusOr<std::unique_ptr<Workload>> w = StartWorkload(spec);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(w.status().message().substr(0, 8), "vectored");
}

}  // namespace
}  // namespace blkperf
