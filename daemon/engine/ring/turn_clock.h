// The submitter loop's clock: nanoseconds on CLOCK_MONOTONIC's scale and
// epoch, read from the CPU's time-stamp counter where the CPU has an
// invariant one (CPUID 0x80000007 EDX bit 8: constant rate, runs in every
// power state), else CLOCK_MONOTONIC itself.
//
// Why not clock_gettime: the loop reads the clock twice a turn (io_turn.h).
// The vDSO's read touches its code page, its data page and, under
// kvm-clock, the pvclock page; where page-table isolation without PCID
// flushes the TLB on every return from io_uring_enter, each of those costs
// a page walk per read. rdtsc touches no memory (bench/RESULTS.md measures
// the difference).
//
// Accuracy: the counter's rate is measured against CLOCK_MONOTONIC once
// per process (TscNsPerTick), and Steer(), which the loop calls about once
// a second, steers the clock back onto CLOCK_MONOTONIC by changing its
// rate for the next second by at most kMaxSlewPpm, never by stepping it
// back: the clock never goes backwards, and a duration measured across a
// steer is off by at most that rate change. A clock found more than
// kStepNs behind CLOCK_MONOTONIC (a suspended VM) steps forward at once.
//
//   TurnClock clock = TurnClock::Create();
//   const int64_t submit_ns = clock();
//   ...
//   clock.Steer();  // about once a second
#ifndef BLKPERF_DAEMON_ENGINE_RING_TURN_CLOCK_H_
#define BLKPERF_DAEMON_ENGINE_RING_TURN_CLOCK_H_

#include <time.h>

#include <cstdint>
#include <string_view>

#include "absl/base/attributes.h"
#include "base/clock.h"

namespace blkperf::internal {

inline constexpr int64_t kCalibrationNs = 10'000'000;
// How far ahead a steer aims, and so how often the loop steers.
inline constexpr int64_t kSteerIntervalNs = 1'000'000'000;

// A piecewise linear map from counter ticks to nanoseconds: the arithmetic
// of TurnClock, apart so tests can drive it with any ticks and reference.
class TickScale {
 public:
  // The most a steer changes the rate, in parts per million, and the lag
  // behind the reference past which the scale steps forward instead.
  static constexpr int64_t kMaxSlewPpm = 500;
  static constexpr int64_t kStepNs = 10'000'000;

  // `ticks` reads as `ns`; `ns_per_tick_q32` is ns per tick times 2^32.
  // The rate is re-measured at each Steer from this first point on, once
  // kCalibrationNs have passed (so calibration errors do not persist).
  TickScale(uint64_t ticks, int64_t ns, uint64_t ns_per_tick_q32)
      : origin_ticks_(ticks),
        origin_ns_(ns),
        base_ticks_(ticks),
        base_ns_(ns),
        mult_(ns_per_tick_q32),
        nominal_mult_(ns_per_tick_q32) {}

  // A count below the base (another CPU's counter a little behind, were
  // the thread moved) reads as the base: never backwards.
  ABSL_ATTRIBUTE_ALWAYS_INLINE int64_t ToNs(uint64_t ticks) const {
    const uint64_t since = ticks - base_ticks_;
    const uint64_t ahead = static_cast<int64_t>(since) < 0 ? 0 : since;
    const unsigned __int128 scaled =
        static_cast<unsigned __int128>(ahead) * mult_;
    return base_ns_ + static_cast<int64_t>(scaled >> 32);
  }

  // Continues the line from `ticks` (its reading there is kept) at a rate
  // that meets `reference_ns` (the true time at `ticks`) `horizon_ns`
  // later, the change bounded by kMaxSlewPpm. REQUIRES: ticks at or after
  // every earlier call's; horizon_ns > 0.
  void Steer(uint64_t ticks, int64_t reference_ns, int64_t horizon_ns);

  // Reading minus reference at the last Steer (0 before any).
  int64_t last_error_ns() const { return last_error_ns_; }
  // ns per tick times 2^32 as measured, without the steer's correction.
  uint64_t nominal_rate_q32() const { return nominal_mult_; }

 private:
  uint64_t origin_ticks_;
  int64_t origin_ns_;
  uint64_t base_ticks_;
  int64_t base_ns_;
  uint64_t mult_;
  uint64_t nominal_mult_;
  int64_t last_error_ns_ = 0;
};

// ns per TSC tick times 2^32, measured against CLOCK_MONOTONIC over
// kCalibrationNs the first time it is called in the process (threads that
// call it meanwhile wait); 0 when the CPU has no invariant TSC or the
// measurement was implausible (the caller then reads CLOCK_MONOTONIC).
uint64_t TscNsPerTickQ32();

class TurnClock {
 public:
  // A CLOCK_MONOTONIC clock.
  TurnClock() : tsc_(false), scale_(0, 0, 0) {}
  // A clock that reads now: from the TSC when TscNsPerTickQ32() has a
  // rate, else from CLOCK_MONOTONIC.
  static TurnClock Create();

  ABSL_ATTRIBUTE_ALWAYS_INLINE int64_t operator()() const {
#if defined(__x86_64__)
    if (tsc_) return scale_.ToNs(__builtin_ia32_rdtsc());
#endif
    return MonotonicNowNs();
  }

  // Steers the TSC clock back onto CLOCK_MONOTONIC over the next second
  // (nothing for a CLOCK_MONOTONIC clock).
  void Steer();

  // "tsc" or "clock_monotonic", as the report names it.
  std::string_view source_name() const {
    return tsc_ ? "tsc" : "clock_monotonic";
  }

 private:
  TurnClock(bool tsc, TickScale scale) : tsc_(tsc), scale_(scale) {}
  bool tsc_;
  TickScale scale_;
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_TURN_CLOCK_H_
