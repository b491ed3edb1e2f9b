// Counters written by exactly one thread and read by any: the writer adds
// with a relaxed load and store, never a read-modify-write (no locked
// instruction), which is race-free because no other thread writes. The one
// helper of the project for this (STYLE.md): the submitter's stats, the
// request caches' hit counts, verify's counts and the live histograms.
//
//   SingleWriterCounter ios;          // a member of the writer's state
//   ios.Add(batch);                   // the writer thread only
//   const uint64_t seen = ios.Get();  // any thread
//
//   std::atomic<uint64_t> bucket[64];  // an array the writer owns
//   SingleWriterAdd(bucket[i], 1);
#ifndef BLKPERF_BASE_SINGLE_WRITER_H_
#define BLKPERF_BASE_SINGLE_WRITER_H_

#include <atomic>
#include <cstdint>

#include "absl/base/attributes.h"

namespace blkperf {

// Adds `n` to `value`. REQUIRES: the calling thread is the only one that
// writes `value`. Always inlined: a call from the I/O loop would run code
// on a page of its own (a page walk a turn after the kernel flushed the
// TLB).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void SingleWriterAdd(
    std::atomic<uint64_t>& value, uint64_t n) {
  value.store(value.load(std::memory_order_relaxed) + n,
              std::memory_order_relaxed);
}

class SingleWriterCounter {
 public:
  // The writer thread only.
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Add(uint64_t n) {
    SingleWriterAdd(value_, n);
  }
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Set(uint64_t n) {
    value_.store(n, std::memory_order_relaxed);
  }
  // Any thread.
  uint64_t Get() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

}  // namespace blkperf

#endif  // BLKPERF_BASE_SINGLE_WRITER_H_
