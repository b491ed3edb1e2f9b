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
#include "base/single_writer.h"
#include "model/histogram.h"

namespace blkperf::internal {

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
