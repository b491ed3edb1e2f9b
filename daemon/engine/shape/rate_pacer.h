// The open-loop schedule of one submitter thread: the intended issue time of
// each I/O, independent of when earlier I/Os completed, so a stalled device
// shows in the latency measured from these times (no coordinated omission).
//
//   RatePacer pacer;
//   pacer.Reset({.per_second = 20000, .arrivals = Arrivals::kPoisson},
//               now_ns);
//   while (pacer.next_ns() <= now) {            // due: issue it
//     req->intended_ns = pacer.next_ns();
//     pacer.Advance(rng(), req->length);
//   }
//   // not due: wait for a completion or until pacer.next_ns()
//
// Rates are I/Os per second, or bytes per second (`per_byte`: an I/O of L
// bytes advances the schedule L times as far as one byte). Gaps:
//   uniform  exactly 1/rate (per byte: L/rate);
//   poisson  exponential with mean 1/rate, drawn from kPoissonLevels
//            equiprobable quantiles of Exp(1) (the midpoints of 4096 equal
//            slices of its CDF, rescaled to mean 1 exactly; the longest gap
//            is 9.0x the mean).
// A zero rate is a closed loop: next_ns() is always in the past.
//
// Per I/O: one table load, one 64x64->128 multiply and a 128-bit add; no
// division, no clock read, no allocation. The schedule is kept in 1/65536
// ns relative to its start: it drifts from the exact rate by at most 2^-17
// ns per I/O (15 ns over 3 million I/Os), never by a rounded gap per I/O.
#ifndef BLKPERF_DAEMON_ENGINE_SHAPE_RATE_PACER_H_
#define BLKPERF_DAEMON_ENGINE_SHAPE_RATE_PACER_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "model/io_shape.h"

namespace blkperf {

class RatePacer {
 public:
  static constexpr int kPoissonLevels = 4096;

  struct Rate {
    // I/Os (or bytes, with per_byte) per second for this thread; 0: closed
    // loop, always due.
    double per_second = 0;
    bool per_byte = false;
    Arrivals arrivals = Arrivals::kUniform;
  };

  RatePacer() { Reset(Rate{}, 0); }

  // Starts a new schedule whose first I/O is intended at `start_ns`.
  // Allocates (the Poisson table): call at setup or between steps, never
  // per I/O.
  void Reset(const Rate& rate, int64_t start_ns);

  // Intended issue time of the next I/O (CLOCK_MONOTONIC ns). Closed loop:
  // the most negative time.
  int64_t next_ns() const {
    const unsigned __int128 whole = schedule_q16_ >> 16;
    return start_ns_ + static_cast<int64_t>(std::min<unsigned __int128>(
                           whole, kFarNs));
  }

  // Moves the schedule past the I/O just given next_ns(): `random` picks
  // the gap (poisson), `bytes` is its length (per_byte rates).
  void Advance(uint64_t random, uint32_t bytes) {
    const uint64_t units = units_per_io_ | (bytes & units_per_byte_mask_);
    schedule_q16_ += static_cast<unsigned __int128>(
                         gaps_q16_[(random >> 52) & gap_mask_]) *
                     units;
  }

  bool open_loop() const { return open_loop_; }

 private:
  // Farthest a schedule runs ahead of its start (about 146 years).
  static constexpr int64_t kFarNs = int64_t{1} << 62;

  int64_t start_ns_ = 0;
  unsigned __int128 schedule_q16_ = 0;  // ns * 65536 since start_ns_
  std::vector<uint64_t> gaps_q16_;      // one (uniform) or kPoissonLevels
  uint64_t gap_mask_ = 0;
  uint64_t units_per_io_ = 1;           // 1 for I/O rates, 0 for byte rates
  uint64_t units_per_byte_mask_ = 0;    // all ones for byte rates
  bool open_loop_ = false;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_SHAPE_RATE_PACER_H_
