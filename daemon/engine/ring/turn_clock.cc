#include "daemon/engine/ring/turn_clock.h"

#include <algorithm>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace blkperf::internal {
namespace {

using u128 = unsigned __int128;

// The counter and CLOCK_MONOTONIC read at (nearly) one instant: the
// closest of a few rdtsc / clock_gettime / rdtsc triples, the counter
// taken at the middle of its pair.
struct Pair {
  uint64_t ticks = 0;
  int64_t ns = 0;
};

#if defined(__x86_64__)
Pair ReadPair() {
  Pair best;
  uint64_t best_width = ~uint64_t{0};
  for (int i = 0; i < 5; ++i) {
    const uint64_t before = __builtin_ia32_rdtsc();
    const int64_t ns = MonotonicNowNs();
    const uint64_t after = __builtin_ia32_rdtsc();
    if (after >= before && after - before < best_width) {
      best_width = after - before;
      best = {before + (after - before) / 2, ns};
    }
  }
  return best;
}

bool HasInvariantTsc() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000, &eax, &ebx, &ecx, &edx) == 0 ||
      eax < 0x80000007) {
    return false;
  }
  __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx);
  return (edx & (1u << 8)) != 0;
}

uint64_t MeasureTscRate() {
  if (!HasInvariantTsc()) return 0;
  const Pair first = ReadPair();
  while (MonotonicNowNs() - first.ns < kCalibrationNs) {
  }
  const Pair last = ReadPair();
  if (last.ticks <= first.ticks || last.ns <= first.ns) return 0;
  const uint64_t q32 = static_cast<uint64_t>(
      (static_cast<u128>(last.ns - first.ns) << 32) /
      (last.ticks - first.ticks));
  // A counter between 100 MHz and 20 GHz; anything else is not a clock.
  const uint64_t one_ns = uint64_t{1} << 32;
  if (q32 < one_ns / 20 || q32 > 10 * one_ns) return 0;
  return q32;
}
#endif

}  // namespace

void TickScale::Steer(uint64_t ticks, int64_t reference_ns,
                      int64_t horizon_ns) {
  const int64_t reading = ToNs(ticks);
  const int64_t error = reading - reference_ns;
  last_error_ns_ = error;
  // The rate over the whole span so far: a longer span, a better measure.
  if (reference_ns - origin_ns_ >= kCalibrationNs && ticks > origin_ticks_) {
    nominal_mult_ = static_cast<uint64_t>(
        (static_cast<u128>(reference_ns - origin_ns_) << 32) /
        (ticks - origin_ticks_));
  }
  base_ticks_ = ticks;
  if (error < -kStepNs) {  // far behind (a suspended VM): step forward
    base_ns_ = reference_ns;
    mult_ = nominal_mult_;
    // The gap says nothing of the rate: measure it afresh from here.
    origin_ticks_ = ticks;
    origin_ns_ = reference_ns;
    return;
  }
  base_ns_ = reading;  // never back
  const int64_t max_correction = horizon_ns / 1'000'000 * kMaxSlewPpm;
  const int64_t correction = std::clamp(-error, -max_correction, max_correction);
  mult_ = static_cast<uint64_t>(static_cast<u128>(nominal_mult_) *
                                static_cast<u128>(horizon_ns + correction) /
                                static_cast<u128>(horizon_ns));
}

uint64_t TscNsPerTickQ32() {
#if defined(__x86_64__)
  static const uint64_t rate = MeasureTscRate();
  return rate;
#else
  return 0;
#endif
}

TurnClock TurnClock::Create() {
#if defined(__x86_64__)
  const uint64_t rate = TscNsPerTickQ32();
  if (rate != 0) {
    const Pair now = ReadPair();
    return TurnClock(true, TickScale(now.ticks, now.ns, rate));
  }
#endif
  return TurnClock();
}

void TurnClock::Steer() {
#if defined(__x86_64__)
  if (!tsc_) return;
  const Pair now = ReadPair();
  scale_.Steer(now.ticks, now.ns, kSteerIntervalNs);
#endif
}

}  // namespace blkperf::internal
