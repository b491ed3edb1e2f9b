#include "daemon/engine/io_prep.h"

#include <linux/falloc.h>

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

void PrepFixed(const PieceIo& io, IovecRing*) {
  if (io.is_write) {
    io_uring_prep_write_fixed(io.sqe, io.fd, io.addr, io.length, io.offset,
                              io.buf_index);
  } else {
    io_uring_prep_read_fixed(io.sqe, io.fd, io.addr, io.length, io.offset,
                             io.buf_index);
  }
}

void PrepPlain(const PieceIo& io, IovecRing*) {
  if (io.is_write) {
    io_uring_prep_write(io.sqe, io.fd, io.addr, io.length, io.offset);
  } else {
    io_uring_prep_read(io.sqe, io.fd, io.addr, io.length, io.offset);
  }
}

void PrepVectored(const PieceIo& io, IovecRing* iovecs) {
  iovec* iov = iovecs->Next();
  iov->iov_base = io.addr;
  iov->iov_len = io.length;
  if (io.is_write) {
    io_uring_prep_writev(io.sqe, io.fd, iov, 1, io.offset);
  } else {
    io_uring_prep_readv(io.sqe, io.fd, iov, 1, io.offset);
  }
}

void PrepNop(const PieceIo& io, IovecRing*) { io_uring_prep_nop(io.sqe); }

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
      return &PrepFixed;
    case IoMode::kPlain:
      return &PrepPlain;
    case IoMode::kVectored:
      return &PrepVectored;
    case IoMode::kNop:
      return &PrepNop;
  }
  return &PrepPlain;
}

PrepFn TrimFunctionFor(bool block_device) {
  return block_device ? &PrepDiscard : &PrepPunchHole;
}

}  // namespace blkperf::internal
