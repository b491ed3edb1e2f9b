#include "daemon/engine/ring/io_prep.h"

#include <errno.h>
#include <liburing.h>

#include <cstring>

#include "gtest/gtest.h"

namespace blkperf::internal {
namespace {

// Runs the mode's prep function on a zeroed SQE, as the submitter does.
io_uring_sqe Prepped(IoMode mode, bool is_write, char* addr,
                     IovecRing* iovecs) {
  io_uring_sqe sqe;
  memset(&sqe, 0, sizeof(sqe));
  PrepFunctionFor(mode)({&sqe, 3, addr, 4096, 8192, 5, is_write}, iovecs);
  return sqe;
}

TEST(IoPrepTest, ModeFollowsTheSpec) {
  WorkloadSpec spec;
  EXPECT_EQ(IoModeOf(spec), IoMode::kFixed);
  spec.fixed_buffers = false;
  EXPECT_EQ(IoModeOf(spec), IoMode::kPlain);
  spec.vectored = true;
  EXPECT_EQ(IoModeOf(spec), IoMode::kVectored);
  spec.nop = true;
  EXPECT_EQ(IoModeOf(spec), IoMode::kNop);
}

TEST(IoPrepTest, FixedWritesReadFixedWithTheBufferIndex) {
  char buffer[4096];
  IovecRing iovecs;
  for (bool is_write : {false, true}) {
    const io_uring_sqe sqe = Prepped(IoMode::kFixed, is_write, buffer, &iovecs);
    EXPECT_EQ(sqe.opcode, is_write ? IORING_OP_WRITE_FIXED
                                   : IORING_OP_READ_FIXED);
    EXPECT_EQ(sqe.opcode, IoModeOpcode(IoMode::kFixed, is_write));
    EXPECT_EQ(sqe.fd, 3);
    EXPECT_EQ(sqe.addr, reinterpret_cast<uint64_t>(buffer));
    EXPECT_EQ(sqe.len, 4096u);
    EXPECT_EQ(sqe.off, 8192u);
    EXPECT_EQ(sqe.buf_index, 5);
  }
}

TEST(IoPrepTest, PlainWritesReadOnTheUserAddress) {
  char buffer[4096];
  IovecRing iovecs;
  for (bool is_write : {false, true}) {
    const io_uring_sqe sqe = Prepped(IoMode::kPlain, is_write, buffer, &iovecs);
    EXPECT_EQ(sqe.opcode, is_write ? IORING_OP_WRITE : IORING_OP_READ);
    EXPECT_EQ(sqe.opcode, IoModeOpcode(IoMode::kPlain, is_write));
    EXPECT_EQ(sqe.addr, reinterpret_cast<uint64_t>(buffer));
    EXPECT_EQ(sqe.len, 4096u);  // bytes, not an iovec count
    EXPECT_EQ(sqe.off, 8192u);
    EXPECT_EQ(sqe.buf_index, 0);
  }
}

TEST(IoPrepTest, VectoredWritesReadvWithOneIovecFromTheRing) {
  char buffer[4096];
  IovecRing iovecs(2);
  for (bool is_write : {false, true}) {
    const io_uring_sqe sqe =
        Prepped(IoMode::kVectored, is_write, buffer, &iovecs);
    EXPECT_EQ(sqe.opcode, is_write ? IORING_OP_WRITEV : IORING_OP_READV);
    EXPECT_EQ(sqe.opcode, IoModeOpcode(IoMode::kVectored, is_write));
    EXPECT_EQ(sqe.len, 1u);  // one iovec
    const iovec* iov = reinterpret_cast<const iovec*>(sqe.addr);
    EXPECT_EQ(iov->iov_base, buffer);
    EXPECT_EQ(iov->iov_len, 4096u);
  }
}

TEST(IoPrepTest, IovecRingReusesSlotsInOrder) {
  IovecRing ring(2);
  iovec* a = ring.Next();
  iovec* b = ring.Next();
  EXPECT_NE(a, b);
  EXPECT_EQ(ring.Next(), a);
}

// The kernel under the tests supports every opcode the modes issue.
TEST(IoPrepTest, NopWritesOnlyTheOpcodeAndFlags) {
  io_uring_sqe sqe;
  memset(&sqe, 0, sizeof(sqe));
  sqe.flags = IOSQE_FIXED_FILE;
  sqe.rw_flags = 7;  // never so on a NOP ring (its SQEs start zeroed)
  char buffer[4096];
  IovecRing iovecs;
  PrepFunctionFor(IoMode::kNop)({&sqe, 3, buffer, 4096, 8192, 5, false},
                                &iovecs);
  EXPECT_EQ(sqe.opcode, IORING_OP_NOP);
  EXPECT_EQ(sqe.opcode, IoModeOpcode(IoMode::kNop, false));
  EXPECT_EQ(sqe.flags, 0);
  EXPECT_EQ(sqe.rw_flags, 7u);  // untouched: the ring's zero is kept
  EXPECT_EQ(sqe.fd, 0);  // untouched: a NOP names no file
  EXPECT_EQ(sqe.addr, 0u);
  EXPECT_EQ(sqe.len, 0u);
}

TEST(IoPrepTest, DiscardProbeVerdicts) {
  EXPECT_TRUE(UringDiscardVerdict(true, -EINVAL).ok());  // 6.12+: len 0
  EXPECT_TRUE(UringDiscardVerdict(true, 0).ok());
  const absl::Status old = UringDiscardVerdict(true, -EOPNOTSUPP);
  EXPECT_EQ(old.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(old.message().find("6.12"), absl::string_view::npos);
  const absl::Status older = UringDiscardVerdict(false, 0);
  EXPECT_EQ(older.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(older.message().find("IORING_OP_URING_CMD"), absl::string_view::npos);
  EXPECT_EQ(UringDiscardVerdict(true, -EPERM).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(IoPrepTest, KernelSupportsEveryModesOpcodes) {
  io_uring_probe* probe = io_uring_get_probe();
  ASSERT_NE(probe, nullptr) << "io_uring probing is unavailable";
  for (IoMode mode : {IoMode::kFixed, IoMode::kPlain, IoMode::kVectored}) {
    for (bool is_write : {false, true}) {
      const int op = IoModeOpcode(mode, is_write);
      EXPECT_TRUE(io_uring_opcode_supported(probe, op))
          << IoModeName(mode) << " opcode " << op;
    }
  }
  io_uring_free_probe(probe);
}

}  // namespace
}  // namespace blkperf::internal
