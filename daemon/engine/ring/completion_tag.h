// What an SQE's user_data carries back in its CQE: the request, the slot of
// the turn that submitted it (turn_log.h), and two facts a reap needs to
// account a whole, successful I/O without touching the request at all:
// whether the SQE is the whole logical I/O (not one piece of a split), and
// whether it writes. The kernel's own tool does the same with its file
// index and clock slot (t/io_uring: user_data = fileno | clock_index << 32).
//
//   user_data bit 0       whole: this SQE is the whole logical I/O
//             bit 1       write
//             bits 6..47  the request's address (64-byte aligned, below
//                         2^48: a user-space address on x86-64 and arm64)
//             bits 48..63 the turn slot
//
//   const uint64_t tag = CompletionTag<Request>::Pack(req, slot, whole, w);
//   CompletionTag<Request> t(cqe->user_data);
//   t.request(); t.turn_slot(); t.whole(); t.write();
//
// TakeWholeRun takes a reap's run of whole, full-length CQEs of one turn
// in a loop of a dozen instructions per CQE.
#ifndef BLKPERF_DAEMON_ENGINE_RING_COMPLETION_TAG_H_
#define BLKPERF_DAEMON_ENGINE_RING_COMPLETION_TAG_H_

#include <cstdint>

#include "absl/base/attributes.h"

namespace blkperf::internal {

template <typename T>
class CompletionTag {
 public:
  static constexpr uint64_t kWhole = 1;
  static constexpr uint64_t kWrite = 2;
  static constexpr uint64_t kAddressMask = ((uint64_t{1} << 48) - 1) & ~63ULL;
  static constexpr int kSlotShift = 48;

  // Whether `obj` can be tagged: 64-byte aligned and below 2^48 (checked
  // once per request at setup).
  static bool Taggable(const T* obj) {
    const uint64_t address = reinterpret_cast<uintptr_t>(obj);
    return (address & ~kAddressMask) == 0;
  }
  // REQUIRES: Taggable(obj).
  static uint64_t Pack(T* obj, uint16_t turn_slot, bool whole, bool write) {
    return reinterpret_cast<uintptr_t>(obj) |
           uint64_t{turn_slot} << kSlotShift | (whole ? kWhole : 0) |
           (write ? kWrite : 0);
  }

  explicit CompletionTag(uint64_t user_data) : bits_(user_data) {}
  T* request() const { return reinterpret_cast<T*>(bits_ & kAddressMask); }
  uint16_t turn_slot() const {
    return static_cast<uint16_t>(bits_ >> kSlotShift);
  }
  bool whole() const { return (bits_ & kWhole) != 0; }
  bool write() const { return (bits_ & kWrite) != 0; }

 private:
  uint64_t bits_;
};

// A run of CQEs that a reap accounts from their tags alone.
struct WholeRun {
  uint32_t ios;     // CQEs taken, cqes[0] first
  uint32_t writes;  // how many of them wrote
};

// Takes CQEs from cqes[0] on, at most `limit`, while each is whole, of
// cqes[0]'s turn slot and transferred `whole_result` bytes; without
// kMixedDirections also of cqes[0]'s direction (a workload that only reads
// or only writes: the direction is then part of the key, not counted).
// Each one's request goes to out[k]. A loop that calls nothing and
// computes no ring index: the caller passes CQEs and places that do not
// wrap. Always inlined, so its code is on the caller's pages (a turn's
// every code page is a page walk after the kernel flushed the TLB).
// REQUIRES: limit >= 1; cqes[0] is whole and transferred whole_result
// bytes (so the run takes at least it).
template <typename T, bool kMixedDirections, typename Cqe>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline WholeRun TakeWholeRun(const Cqe* cqes,
                                                          uint32_t limit,
                                                          int32_t whole_result,
                                                          T** out) {
  using Tag = CompletionTag<T>;
  // Every bit but the address: whole, write, the alignment's zeroes, slot.
  constexpr uint64_t kKeyMask =
      ~Tag::kAddressMask & ~(kMixedDirections ? Tag::kWrite : 0);
  const uint64_t key = cqes[0].user_data & kKeyMask;
  uint64_t write_bits = 0;
  uint32_t k = 0;
  do {
    const uint64_t bits = cqes[k].user_data;
    if ((bits & kKeyMask) != key || cqes[k].res != whole_result) break;
    if constexpr (kMixedDirections) write_bits += bits & Tag::kWrite;
    out[k] = reinterpret_cast<T*>(bits & Tag::kAddressMask);
  } while (++k < limit);
  const uint32_t writes =
      kMixedDirections ? static_cast<uint32_t>(write_bits / Tag::kWrite)
                       : ((key & Tag::kWrite) != 0 ? k : 0);
  return {k, writes};
}

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_COMPLETION_TAG_H_
