// Records the latencies of the I/Os reaped in one batch with one RecordN per
// run instead of three Records per I/O. Every I/O reaped after one enter
// shares its reap stamp, and every I/O submitted by one enter shares its
// submit and issued stamps (io_turn.h), so consecutive I/Os with equal
// (submit_ns, issued_ns) have equal total, submission and completion
// latencies: recording the run with RecordN(latency, n) is exactly n Records.
//
//   LatencyRun<LiveLatencyHistogram> run(&total, &slat, &clat, reap_ns);
//   for (each measured, successful I/O) run.Add(req->submit_ns, req->issued_ns);
//   run.Flush();
//
// H needs RecordN(uint64_t ns, uint64_t n). Lives on the stack of one reap.
#ifndef BLKPERF_DAEMON_ENGINE_LATENCY_RUN_H_
#define BLKPERF_DAEMON_ENGINE_LATENCY_RUN_H_

#include <cstdint>

#include "absl/base/optimization.h"

namespace blkperf::internal {

template <typename H>
class LatencyRun {
 public:
  LatencyRun(H* total, H* submission, H* completion, int64_t reap_ns)
      : total_(total),
        submission_(submission),
        completion_(completion),
        reap_ns_(reap_ns) {}
  LatencyRun(const LatencyRun&) = delete;
  LatencyRun& operator=(const LatencyRun&) = delete;

  // One I/O of the batch. A different pair of stamps ends the current run.
  void Add(int64_t submit_ns, int64_t issued_ns) {
    if (ABSL_PREDICT_FALSE(submit_ns != submit_ns_ ||
                           issued_ns != issued_ns_)) {
      Flush();
      submit_ns_ = submit_ns;
      issued_ns_ = issued_ns;
    }
    ++count_;
  }

  // Records the current run (nothing when it is empty). REQUIRES: called
  // before the run goes out of scope, or its last run is lost.
  void Flush() {
    if (count_ == 0) return;
    total_->RecordN(static_cast<uint64_t>(reap_ns_ - submit_ns_), count_);
    submission_->RecordN(static_cast<uint64_t>(issued_ns_ - submit_ns_),
                         count_);
    completion_->RecordN(static_cast<uint64_t>(reap_ns_ - issued_ns_),
                         count_);
    count_ = 0;
  }

 private:
  H* const total_;
  H* const submission_;
  H* const completion_;
  const int64_t reap_ns_;
  int64_t submit_ns_ = 0;
  int64_t issued_ns_ = 0;
  uint64_t count_ = 0;
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_LATENCY_RUN_H_
