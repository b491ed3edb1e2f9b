// A submitter's I/O buffers: one mapping of `slots` x `slot_bytes`, backed by
// normal or hugetlb pages, and the iovecs to register with the ring in the
// chosen layout. Built once at setup on the submitter's (pinned) thread.
//
//   std::vector<std::string> notes;
//   absl::StatusOr<IoBuffers> b = IoBuffers::Create(
//       {.slots = 32, .slot_bytes = 4096, .layout = BufferLayout::kPerSlot,
//        .huge_pages = HugePageMode::kAuto, .seed = 1}, &notes);
//   io_uring_register_buffers(&ring, b->registration().data(),
//                             b->registration().size());
//   b->Fill();                                       // after registering
//   char* data = b->slot(7);                         // slot 7's bytes
//   uint16_t index = 7 & b->buf_index_mask();        // its buf_index
//
// Layouts (what the kernel's segment-count experiments compare):
//   per_slot:   one registered buffer per slot; slot i is buf_index i.
//   one_region: the whole mapping is one registered buffer; every slot is
//               buf_index 0 at its own address inside it.
//   auto:       one_region when the slots fit in one registered buffer
//               (kMaxRegisteredBufferBytes), else per_slot with a note.
// Either way slot i starts at base() + i * slot_bytes.
#ifndef BLKPERF_DAEMON_ENGINE_RING_IO_BUFFERS_H_
#define BLKPERF_DAEMON_ENGINE_RING_IO_BUFFERS_H_

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/workload_spec.h"

namespace blkperf::internal {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;
inline constexpr unsigned kHugePageShift = 21;

struct IoBufferOptions {
  uint32_t slots = 0;       // queue depth, >= 1
  uint32_t slot_bytes = 0;  // block size, >= 1
  BufferLayout layout = BufferLayout::kAuto;
  HugePageMode huge_pages = HugePageMode::kAuto;
  uint64_t seed = 1;  // of the incompressible fill
};

class IoBuffers {
 public:
  // Maps and fills the buffers. huge_pages:
  //   off:  normal pages, and MADV_NOHUGEPAGE so transparent huge pages do
  //         not back them either;
  //   on:   MAP_HUGETLB, or FAILED_PRECONDITION naming `huge_pages` with the
  //         pages needed and free;
  //   auto: MAP_HUGETLB when the buffers span at least one huge page; when
  //         that fails, normal pages and a note in `*notes` saying why.
  //         Smaller buffers use normal pages (no note: that is the policy).
  // Normal pages are mapped, not touched: Fill() writes them.
  static absl::StatusOr<IoBuffers> Create(const IoBufferOptions& options,
                                          std::vector<std::string>* notes);

  IoBuffers() = default;
  IoBuffers(IoBuffers&& other) noexcept;
  IoBuffers& operator=(IoBuffers&& other) noexcept;
  IoBuffers(const IoBuffers&) = delete;
  IoBuffers& operator=(const IoBuffers&) = delete;
  ~IoBuffers();

  // Writes incompressible non-zero data into every page (compressing
  // devices treat zero pages specially, and writes should carry real data).
  // Who first touches a normal page decides where it lies in physical
  // memory, and that moves what an experiment measures at large block
  // sizes (bench/RESULTS.md), so pages are faulted in as t/io_uring's are:
  //   registered buffers: call Fill() after io_uring_register_buffers, so
  //     the registration faults them in (pages first written from user
  //     space halved what fixed buffers gain on a loop device at 1 MiB);
  //   plain buffers that only receive reads: do not call it; the kernel
  //     faults each page in on the first read into it (filled first, the
  //     plain arm did about 2 % more at 1 MiB on zram than t/io_uring's).
  void Fill();

  char* base() const { return base_; }
  char* slot(uint32_t i) const { return base_ + size_t{i} * slot_bytes_; }
  // Bytes mapped (a multiple of the page size in use).
  size_t mapped_bytes() const { return mapped_bytes_; }
  bool huge_pages() const { return huge_pages_; }
  // log2 of the page size backing the buffers (12 or 21).
  unsigned page_shift() const { return page_shift_; }
  // per_slot or one_region (auto resolved).
  BufferLayout layout() const { return layout_; }
  // What to pass to io_uring_register_buffers: `slots` iovecs (per_slot) or
  // one covering every slot (one_region).
  const std::vector<iovec>& registration() const { return registration_; }
  // slot & buf_index_mask() is a slot's buf_index: 0xffff (per_slot) or 0
  // (one_region). Branch-free in the hot path.
  uint16_t buf_index_mask() const { return buf_index_mask_; }

 private:
  void Release();

  char* base_ = nullptr;
  size_t mapped_bytes_ = 0;
  uint32_t slot_bytes_ = 0;
  bool huge_pages_ = false;
  unsigned page_shift_ = 12;
  BufferLayout layout_ = BufferLayout::kPerSlot;
  uint16_t buf_index_mask_ = 0xffff;
  uint64_t seed_ = 1;
  std::vector<iovec> registration_;
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_IO_BUFFERS_H_
