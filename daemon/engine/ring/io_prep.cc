#include "daemon/engine/ring/io_prep.h"

#include <errno.h>
#include <linux/falloc.h>
#include <string.h>

#include "absl/strings/str_cat.h"

namespace blkperf::internal {
namespace {

void PrepDiscard(const PieceIo& io, IovecRing*) {
  // liburing 2.3 has no io_uring_prep_cmd_discard: the same fields by hand.
  io_uring_prep_rw(IORING_OP_URING_CMD, io.sqe, io.fd, nullptr, 0, 0);
  io.sqe->cmd_op = kBlockUringCmdDiscard;
  io.sqe->addr = io.offset;
  io.sqe->addr3 = io.length;
}

void PrepPunchHole(const PieceIo& io, IovecRing*) {
  io_uring_prep_fallocate(io.sqe, io.fd,
                          FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                          static_cast<off_t>(io.offset), io.length);
}

}  // namespace

IoMode IoModeOf(const WorkloadSpec& spec) {
  if (spec.nop) return IoMode::kNop;
  if (spec.fixed_buffers) return IoMode::kFixed;
  return spec.vectored ? IoMode::kVectored : IoMode::kPlain;
}

absl::string_view IoModeName(IoMode mode) {
  switch (mode) {
    case IoMode::kFixed:
      return "fixed";
    case IoMode::kPlain:
      return "plain";
    case IoMode::kVectored:
      return "vectored";
    case IoMode::kNop:
      return "nop";
  }
  return "unknown";
}

uint8_t IoModeOpcode(IoMode mode, bool is_write) {
  switch (mode) {
    case IoMode::kFixed:
      return is_write ? IORING_OP_WRITE_FIXED : IORING_OP_READ_FIXED;
    case IoMode::kPlain:
      return is_write ? IORING_OP_WRITE : IORING_OP_READ;
    case IoMode::kVectored:
      return is_write ? IORING_OP_WRITEV : IORING_OP_READV;
    case IoMode::kNop:
      return IORING_OP_NOP;
  }
  return IORING_OP_NOP;
}

PrepFn PrepFunctionFor(IoMode mode) {
  switch (mode) {
    case IoMode::kFixed:
      return &PrepIo<IoMode::kFixed>;
    case IoMode::kPlain:
      return &PrepIo<IoMode::kPlain>;
    case IoMode::kVectored:
      return &PrepIo<IoMode::kVectored>;
    case IoMode::kNop:
      return &PrepIo<IoMode::kNop>;
  }
  return &PrepIo<IoMode::kPlain>;
}

PrepFn TrimFunctionFor(bool block_device) {
  return block_device ? &PrepDiscard : &PrepPunchHole;
}

absl::Status UringDiscardVerdict(bool opcode_supported, int result) {
  if (!opcode_supported) {
    return absl::FailedPreconditionError(
        "this kernel has no IORING_OP_URING_CMD (Linux 5.19 and later), so "
        "blkperf cannot discard a block device through io_uring");
  }
  if (result == -EOPNOTSUPP) {
    return absl::FailedPreconditionError(
        "this kernel cannot discard a block device through io_uring "
        "(BLOCK_URING_CMD_DISCARD, Linux 6.12 and later)");
  }
  if (result < 0 && result != -EINVAL) {
    return absl::FailedPreconditionError(absl::StrCat(
        "a test discard through io_uring failed: ", strerror(-result)));
  }
  return absl::OkStatus();
}

absl::Status CheckUringDiscard(int fd) {
  io_uring_probe* probe = io_uring_get_probe();
  const bool supported =
      probe != nullptr && io_uring_opcode_supported(probe, IORING_OP_URING_CMD);
  if (probe != nullptr) io_uring_free_probe(probe);
  if (!supported) return UringDiscardVerdict(false, 0);
  io_uring ring;
  int ret = io_uring_queue_init(2, &ring, 0);
  if (ret < 0) {
    return absl::ErrnoToStatus(-ret, "a ring for a test discard");
  }
  PrepDiscard({io_uring_get_sqe(&ring), fd, nullptr, 0, 0, 0, true}, nullptr);
  io_uring_cqe* cqe = nullptr;
  ret = io_uring_submit_and_wait(&ring, 1);
  if (ret >= 0) ret = io_uring_wait_cqe(&ring, &cqe);
  const int result = ret < 0 ? ret : cqe->res;
  io_uring_queue_exit(&ring);
  return UringDiscardVerdict(true, result);
}

}  // namespace blkperf::internal
