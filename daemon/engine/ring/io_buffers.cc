#include "daemon/engine/ring/io_buffers.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace blkperf::internal {
namespace {

size_t RoundUp(size_t bytes, size_t unit) {
  return (bytes + unit - 1) / unit * unit;
}

// HugePages_Free from /proc/meminfo; 0 when unreadable.
uint64_t FreeHugePages() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "HugePages_Free:") return value;
    in.ignore(256, '\n');
  }
  return 0;
}

void* MapHuge(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1,
                 0);
  return p == MAP_FAILED ? nullptr : p;
}

// Incompressible, non-zero bytes: compressing devices (zram) treat zero
// pages specially, and writes should carry real data.
void FillBytes(char* data, size_t bytes, uint64_t seed) {
  uint64_t x = seed | 1;
  for (size_t i = 0; i + 8 <= bytes; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    memcpy(data + i, &x, 8);
  }
}

// What `requested` comes to for `region_bytes` of buffers: auto is
// one_region where the kernel takes the region as one registered buffer.
// One buffer's lookup then serves every I/O, where per_slot has the kernel
// look up the slot's own (a cache miss per I/O when the data copied
// evicts them): +2.1 % IOPS on page-cached reads, +0.6 % on zram
// (bench/RESULTS.md, 2026-12-06).
BufferLayout ResolveLayout(BufferLayout requested, size_t region_bytes,
                           std::vector<std::string>* notes) {
  if (requested != BufferLayout::kAuto) return requested;
  if (region_bytes <= kMaxRegisteredBufferBytes) return BufferLayout::kOneRegion;
  notes->push_back(absl::StrCat(
      "buffer_layout: auto chose per_slot: the buffers (queue_depth x "
      "block_size = ",
      region_bytes, " bytes) exceed the kernel's ", kMaxRegisteredBufferBytes,
      "-byte limit on one registered buffer"));
  return BufferLayout::kPerSlot;
}

}  // namespace

absl::StatusOr<IoBuffers> IoBuffers::Create(const IoBufferOptions& options,
                                            std::vector<std::string>* notes) {
  if (options.slots == 0 || options.slot_bytes == 0) {
    return absl::InvalidArgumentError("I/O buffers: slots and slot_bytes must be > 0");
  }
  const size_t wanted = size_t{options.slots} * options.slot_bytes;
  const size_t huge_bytes = RoundUp(wanted, kHugePageBytes);
  IoBuffers b;
  b.slot_bytes_ = options.slot_bytes;
  b.layout_ = ResolveLayout(options.layout, wanted, notes);
  const bool try_huge =
      options.huge_pages == HugePageMode::kOn ||
      (options.huge_pages == HugePageMode::kAuto && wanted >= kHugePageBytes);
  if (try_huge) {
    if (void* p = MapHuge(huge_bytes); p != nullptr) {
      b.base_ = static_cast<char*>(p);
      b.mapped_bytes_ = huge_bytes;
      b.huge_pages_ = true;
      b.page_shift_ = kHugePageShift;
    } else {
      const int error = errno;
      const std::string why = absl::StrCat(
          "mmap(MAP_HUGETLB) of ", huge_bytes / kHugePageBytes,
          " huge pages failed (", strerrordesc_np(error), "); ",
          FreeHugePages(), " free (reserve more in /proc/sys/vm/nr_hugepages)");
      if (options.huge_pages == HugePageMode::kOn) {
        return absl::FailedPreconditionError(
            absl::StrCat("huge_pages: on, but ", why));
      }
      notes->push_back(absl::StrCat(
          "huge_pages: auto fell back to normal pages: ", why));
    }
  }
  if (b.base_ == nullptr) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = RoundUp(wanted, page);
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      return absl::ErrnoToStatus(
          errno, absl::StrCat("mmap of ", bytes, " bytes of I/O buffers"));
    }
    b.base_ = static_cast<char*>(p);
    b.mapped_bytes_ = bytes;
    // Splitting assumes the page size it is told: keep THP out.
    madvise(b.base_, bytes, MADV_NOHUGEPAGE);
  }
  b.seed_ = options.seed;
  if (b.layout_ == BufferLayout::kOneRegion) {
    b.registration_.push_back({b.base_, wanted});
    b.buf_index_mask_ = 0;
  } else {
    b.registration_.resize(options.slots);
    for (uint32_t i = 0; i < options.slots; ++i) {
      b.registration_[i] = {b.slot(i), options.slot_bytes};
    }
    b.buf_index_mask_ = 0xffff;
  }
  return b;
}

void IoBuffers::Fill() { FillBytes(base_, mapped_bytes_, seed_); }

IoBuffers::IoBuffers(IoBuffers&& other) noexcept { *this = std::move(other); }

IoBuffers& IoBuffers::operator=(IoBuffers&& other) noexcept {
  if (this != &other) {
    Release();
    base_ = std::exchange(other.base_, nullptr);
    mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
    slot_bytes_ = other.slot_bytes_;
    huge_pages_ = other.huge_pages_;
    page_shift_ = other.page_shift_;
    layout_ = other.layout_;
    buf_index_mask_ = other.buf_index_mask_;
    seed_ = other.seed_;
    registration_ = std::move(other.registration_);
  }
  return *this;
}

IoBuffers::~IoBuffers() { Release(); }

void IoBuffers::Release() {
  if (base_ != nullptr) munmap(base_, mapped_bytes_);
  base_ = nullptr;
  mapped_bytes_ = 0;
}

}  // namespace blkperf::internal
