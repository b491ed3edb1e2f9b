// The turns of one submitter that still have I/O in flight, and the runs in
// which a reap accounts their completions.
//
// A turn is one enter that submits a batch (io_turn.h). Every I/O of a turn
// shares its submit and issued stamps, so a request carries its turn's slot
// here instead of two stamps of its own: a turn is stamped with two stores,
// not two per I/O, and a completion needs nothing from its request to be
// timed (the slot travels in the CQE's user_data, completion_tag.h).
//
//   TurnLog log(queue_depth);
//   const uint16_t slot = log.NextSlot();  // tag the batch's I/Os with it
//   ... prepare `ios` I/Os ...
//   log.Start(slot, ios);                  // only when ios > 0
//   EnterAndStamp(..., &log.stamps(slot), ...);
//   ...
//   CompletionRun<LiveLatencyHistogram> run(&log, &total, &slat, &clat,
//                                           reap_ns);
//   for (each logical I/O completed) run.Add(slot, /*record=*/measured_ok);
//   run.Flush();
//
// The latencies (docs/numbers.md): total = reap - submit,
// submission = issued - submit, completion = reap - issued, as io_turn.h.
#ifndef BLKPERF_DAEMON_ENGINE_RING_TURN_LOG_H_
#define BLKPERF_DAEMON_ENGINE_RING_TURN_LOG_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"

namespace blkperf::internal {

class TurnLog {
 public:
  struct Stamps {
    int64_t submit_ns = 0;  // right before the enter that submitted the turn
    int64_t issued_ns = 0;  // right after it returned
  };
  // The most I/Os a submitter has in flight at once, and so the most turns
  // with I/O in flight (each such turn holds at least one).
  static constexpr uint32_t kMaxInflight = 65535;

  // Room for every turn that can hold I/O at once: a power of two above
  // `max_inflight_ios`, so a free slot always exists.
  // REQUIRES: 0 < max_inflight_ios <= kMaxInflight.
  explicit TurnLog(uint32_t max_inflight_ios);

  // The slot of the next turn: the one after the last started, skipping
  // slots whose turns still have I/O in flight. It stays free (and
  // NextSlot returns it again) until Start.
  uint16_t NextSlot() const {
    uint32_t slot = (last_ + 1) & mask_;
    while (ABSL_PREDICT_FALSE(turns_[slot].outstanding != 0)) {
      slot = (slot + 1) & mask_;
    }
    return static_cast<uint16_t>(slot);
  }
  // The turn in `slot` holds `ios` > 0 I/Os from now on; its stamps are
  // its enter's (stamps()).
  void Start(uint16_t slot, uint32_t ios) {
    turns_[slot].outstanding = ios;
    last_ = slot;
  }
  Stamps& stamps(uint16_t slot) { return turns_[slot].stamps; }
  const Stamps& stamps(uint16_t slot) const { return turns_[slot].stamps; }
  // Starts loading the log's own fields and `slot`'s turn (a hint).
  void Prefetch(uint16_t slot) const {
    __builtin_prefetch(this, 1);
    __builtin_prefetch(&turns_[slot], 1);
  }
  // `ios` of the turn's I/Os completed. REQUIRES: ios <= outstanding(slot).
  void Complete(uint16_t slot, uint32_t ios) {
    turns_[slot].outstanding -= ios;
  }
  uint32_t outstanding(uint16_t slot) const {
    return turns_[slot].outstanding;
  }
  // The earliest submit stamp of a turn that has I/O in flight; nullopt
  // when none has. One pass over the slots (the stall check's, not the
  // hot path's).
  std::optional<int64_t> OldestSubmitNs() const;
  uint32_t capacity() const { return mask_ + 1; }

 private:
  struct Turn {
    Stamps stamps;
    uint32_t outstanding = 0;
  };
  std::vector<Turn> turns_;
  uint32_t mask_;
  uint32_t last_;
};

// The completions of one reap, accounted per run of consecutive I/Os from
// the same turn: one TurnLog::Complete and, for the recorded ones, one
// RecordN per histogram per run instead of three Records per I/O. All I/Os
// of a run have the same stamps, so RecordN(latency, n) is exactly n
// Records. H needs RecordN(uint64_t ns, uint64_t n). Lives on the stack of
// one reap; every completion it is given came out of `log`'s turns.
template <typename H>
class CompletionRun {
 public:
  CompletionRun(TurnLog* log, H* total, H* submission, H* completion,
                int64_t reap_ns)
      : log_(log),
        total_(total),
        submission_(submission),
        completion_(completion),
        reap_ns_(reap_ns) {}
  CompletionRun(const CompletionRun&) = delete;
  CompletionRun& operator=(const CompletionRun&) = delete;

  // One logical I/O of turn `slot` completed; `record`: its latencies count
  // (measured and successful, with latency tracking on).
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Add(uint16_t slot, bool record) {
    Add(slot, 1, record ? 1 : 0);
  }
  // `ios` logical I/Os of turn `slot` completed, `recorded` of them with
  // latencies that count. REQUIRES: recorded <= ios.
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Add(uint16_t slot, uint32_t ios,
                                        uint32_t recorded) {
    if (ABSL_PREDICT_FALSE(slot != slot_)) {
      Flush();
      slot_ = slot;
    }
    completed_ += ios;
    recorded_ += recorded;
  }

  // Accounts the current run (nothing when it is empty). REQUIRES: called
  // before the run goes out of scope, or its last run is lost.
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Flush() {
    if (completed_ == 0) return;
    Account(log_, total_, submission_, completion_, reap_ns_, slot_,
            completed_, recorded_);
    completed_ = 0;
    recorded_ = 0;
  }

 private:
  // Given every field by value (a call that took `this` would keep the
  // counts in memory through the whole reap loop, so each Add would load
  // what the one before it stored), and inlined: out of line, its code was
  // on a page of its own, a page walk a turn after the kernel flushed the
  // TLB.
  ABSL_ATTRIBUTE_ALWAYS_INLINE static void Account(TurnLog* log, H* total,
                                              H* submission, H* completion,
                                              int64_t reap_ns, uint32_t slot,
                                              uint32_t completed,
                                              uint32_t recorded) {
    log->Complete(static_cast<uint16_t>(slot), completed);
    if (recorded == 0) return;
    const TurnLog::Stamps& s = log->stamps(static_cast<uint16_t>(slot));
    total->RecordN(static_cast<uint64_t>(reap_ns - s.submit_ns), recorded);
    submission->RecordN(static_cast<uint64_t>(s.issued_ns - s.submit_ns),
                        recorded);
    completion->RecordN(static_cast<uint64_t>(reap_ns - s.issued_ns),
                        recorded);
  }

  TurnLog* const log_;
  H* const total_;
  H* const submission_;
  H* const completion_;
  const int64_t reap_ns_;
  uint32_t slot_ = 0;
  uint32_t completed_ = 0;
  uint32_t recorded_ = 0;
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_TURN_LOG_H_
