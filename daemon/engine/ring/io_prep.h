// How one piece of I/O becomes an SQE, per I/O mode. The submitter's plain
// loop is compiled once per mode with PrepIo<mode> inlined (no branch on
// the mode and no call per I/O); the shaped loop, whose I/Os vary in kind,
// calls the function chosen once at setup: PrepFunctionFor(mode), or
// TrimFunctionFor for a trim group.
//
//   PrepIo<IoMode::kFixed>({sqe, fd, addr, length, offset, buf_index,
//                           is_write}, &iovecs);      // the plain loop
//   const PrepFn prep = PrepFunctionFor(IoModeOf(spec));  // the shaped one
//   IovecRing iovecs(2 * ring_entries);
//   prep({sqe, fd, addr, length, offset, buf_index, is_write}, &iovecs);
//
// Modes, as t/io_uring names them:
//   fixed:    IORING_OP_READ_FIXED / WRITE_FIXED on a registered buffer (-B1)
//   plain:    IORING_OP_READ / WRITE on a user address (-B0, t/io_uring's
//             default plain mode)
//   vectored: IORING_OP_READV / WRITEV with a one-entry iovec (-B0 -V1)
//   nop:      IORING_OP_NOP, no file, no buffer (-N1; WorkloadSpec::nop)
#ifndef BLKPERF_DAEMON_ENGINE_RING_IO_PREP_H_
#define BLKPERF_DAEMON_ENGINE_RING_IO_PREP_H_

#include <liburing.h>
#include <sys/uio.h>

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "model/workload_spec.h"

namespace blkperf::internal {

enum class IoMode { kFixed, kPlain, kVectored, kNop };

IoMode IoModeOf(const WorkloadSpec& spec);
// "fixed", "plain", "vectored", "nop"
absl::string_view IoModeName(IoMode mode);
// The opcode `mode` issues for a read or a write (IORING_OP_*).
uint8_t IoModeOpcode(IoMode mode, bool is_write);

// One piece of a logical I/O.
struct PieceIo {
  io_uring_sqe* sqe;
  int fd;              // or the registered file index
  char* addr;
  uint32_t length;
  uint64_t offset;
  uint16_t buf_index;  // fixed mode only
  bool is_write;
};

// Vectored mode's iovecs. The kernel copies an iovec when it consumes the
// SQE; a ring of twice the SQ size reuses a slot only after that.
class IovecRing {
 public:
  explicit IovecRing(size_t size = 0) : iovecs_(size) {}
  iovec* Next() {
    iovec* iov = &iovecs_[next_];
    next_ = next_ + 1 == iovecs_.size() ? 0 : next_ + 1;
    return iov;
  }

 private:
  std::vector<iovec> iovecs_;
  size_t next_ = 0;
};

// Writes the piece into `io.sqe` (opcode, fd, address, length, offset; and
// buf_index or the iovec). Flags and user_data are the caller's. The NOP
// mode writes only opcode, flags and nop_flags: the SQE's other fields must
// be zero (a ring whose SQEs only ever hold these NOPs, cleared at setup).
using PrepFn = void (*)(const PieceIo& io, IovecRing* iovecs);

PrepFn PrepFunctionFor(IoMode mode);

// The same preps as inline templates, for a loop compiled once per mode
// (the submitter's plain loop): no call per I/O. PrepFunctionFor(mode) is
// &PrepIo<mode>.
template <IoMode kMode>
void PrepIo(const PieceIo& io, IovecRing* iovecs);

template <>
inline void PrepIo<IoMode::kFixed>(const PieceIo& io, IovecRing*) {
  if (io.is_write) {
    io_uring_prep_write_fixed(io.sqe, io.fd, io.addr, io.length, io.offset,
                              io.buf_index);
  } else {
    io_uring_prep_read_fixed(io.sqe, io.fd, io.addr, io.length, io.offset,
                             io.buf_index);
  }
}

template <>
inline void PrepIo<IoMode::kPlain>(const PieceIo& io, IovecRing*) {
  if (io.is_write) {
    io_uring_prep_write(io.sqe, io.fd, io.addr, io.length, io.offset);
  } else {
    io_uring_prep_read(io.sqe, io.fd, io.addr, io.length, io.offset);
  }
}

template <>
inline void PrepIo<IoMode::kVectored>(const PieceIo& io, IovecRing* iovecs) {
  iovec* iov = iovecs->Next();
  iov->iov_base = io.addr;
  iov->iov_len = io.length;
  if (io.is_write) {
    io_uring_prep_writev(io.sqe, io.fd, iov, 1, io.offset);
  } else {
    io_uring_prep_readv(io.sqe, io.fd, iov, 1, io.offset);
  }
}

template <>
inline void PrepIo<IoMode::kNop>(const PieceIo& io, IovecRing*) {
  // As t/io_uring -N1, only what a NOP reads that is not always 0: its
  // opcode and flags. nop_flags (0: no injected result, no file, no buffer)
  // and the other fields keep the zeroes they had when the ring was set up
  // (the submitter clears a NOP ring's SQEs, and a NOP workload writes
  // nothing but NOPs).
  io.sqe->opcode = IORING_OP_NOP;
  io.sqe->flags = 0;
}

// Trims (op trim, randtrim) of `length` bytes at `offset`; addr and
// buf_index are not used:
//   block devices: IORING_OP_URING_CMD BLOCK_URING_CMD_DISCARD (Linux
//     6.12 and later), which completes with 0;
//   regular files: IORING_OP_FALLOCATE FALLOC_FL_PUNCH_HOLE |
//     FALLOC_FL_KEEP_SIZE, which completes with 0.
PrepFn TrimFunctionFor(bool block_device);
// BLOCK_URING_CMD_DISCARD, _IO(0x12, 0) in <linux/blkdev.h> (newer than
// Debian's kernel headers).
inline constexpr uint32_t kBlockUringCmdDiscard = 0x1200;

// Whether this kernel discards block device `fd` (open for writing) through
// io_uring: one zero-length discard, which discards nothing, on a ring of
// its own. OK, or FailedPrecondition saying why not (no IORING_OP_URING_CMD
// before Linux 5.19; no BLOCK_URING_CMD_DISCARD before 6.12).
absl::Status CheckUringDiscard(int fd);
// The verdict on that probe: whether the kernel knows IORING_OP_URING_CMD,
// and the discard's result (-EINVAL, a zero length, is the answer of a
// kernel that can discard).
absl::Status UringDiscardVerdict(bool opcode_supported, int result);

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_IO_PREP_H_
