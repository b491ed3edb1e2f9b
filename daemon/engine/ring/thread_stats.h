// A submitter's statistics (submitter.h): counters and latency histograms
// each written by the submitter alone and read by Snapshot() on any thread.
//
//   ThreadStats stats;               // the submitter's own cache lines
//   stats.ios.Add(n);                // submitter thread only
//   uint64_t ios = stats.ios.Get();  // any thread
#ifndef BLKPERF_DAEMON_ENGINE_RING_THREAD_STATS_H_
#define BLKPERF_DAEMON_ENGINE_RING_THREAD_STATS_H_

#include <array>
#include <atomic>
#include <cstdint>

#include "absl/base/attributes.h"
#include "model/histogram.h"

namespace blkperf::internal {

// A counter written by exactly one thread and read by others: relaxed load +
// store (never a read-modify-write), so the writer pays a plain add.
class SingleWriterCounter {
 public:
  // Always inlined: a call from the I/O loop would run code on a page of
  // its own (a page walk a turn after the kernel flushed the TLB).
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Add(uint64_t n) {
    value_.store(value_.load(std::memory_order_relaxed) + n,
                 std::memory_order_relaxed);
  }
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Set(uint64_t n) {
    value_.store(n, std::memory_order_relaxed);
  }
  uint64_t Get() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

// Errno slots: real errnos 1..kMaxErrno-1, then the two pseudo errnos.
inline constexpr int kMaxErrno = 134;
inline constexpr int kShortTransferSlot = kMaxErrno;
inline constexpr int kVerifyMismatchSlot = kMaxErrno + 1;
inline constexpr int kErrorSlots = kMaxErrno + 2;

// Written only by the owning submitter. Its own cache lines.
struct alignas(64) ThreadStats {
  SingleWriterCounter ios;
  SingleWriterCounter bytes;
  SingleWriterCounter read_ios;
  SingleWriterCounter read_bytes;
  SingleWriterCounter write_ios;
  SingleWriterCounter write_bytes;
  SingleWriterCounter sqes;
  SingleWriterCounter enter_calls;
  SingleWriterCounter inflight;
  SingleWriterCounter error_total;
  std::array<SingleWriterCounter, kErrorSlots> errors;
  LiveLatencyHistogram latency;
  LiveLatencyHistogram submit_latency;
  LiveLatencyHistogram completion_latency;
  // The shaped loop's (open loop, trims, syncs); snapshot.h says what they
  // count.
  LiveLatencyHistogram intended_latency;
  LiveLatencyHistogram issue_lag;
  SingleWriterCounter late_ios;
  SingleWriterCounter trim_ios;
  SingleWriterCounter trim_bytes;
  SingleWriterCounter sync_ios;
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_THREAD_STATS_H_
