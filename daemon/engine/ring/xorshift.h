// The submitter's random bits: xorshift64*, a few cycles a draw, plenty for
// offsets, directions and the shaped loop's generators. One per submitter
// thread, seeded per thread so threads draw distinct streams.
//
//   Xorshift rng(XorshiftState(spec.seed, thread_index));
//   const uint64_t bits = rng.Next();
#ifndef BLKPERF_DAEMON_ENGINE_RING_XORSHIFT_H_
#define BLKPERF_DAEMON_ENGINE_RING_XORSHIFT_H_

#include <cstdint>

namespace blkperf::internal {

// The xorshift64* state of thread `index` for `seed`: a splitmix64 mix of
// both, never 0 (a zero state would stay zero and send every I/O to offset
// 0), so every seed gives a distinct, working generator per thread.
inline uint64_t XorshiftState(uint64_t seed, int index) {
  uint64_t z =
      seed + 0x9e3779b97f4a7c15ULL * (static_cast<uint64_t>(index) + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  // splitmix64 is a bijection, so exactly one input maps to 0: replace it.
  return z != 0 ? z : 0x626c6b70657266ULL;
}

class Xorshift {
 public:
  // REQUIRES: state != 0 (XorshiftState never returns 0).
  explicit Xorshift(uint64_t state = XorshiftState(0, 0)) : state_(state) {}

  // 64 random bits.
  uint64_t Next() {
    uint64_t x = state_;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    state_ = x;
    return x * 0x2545F4914F6CDD1DULL;
  }

 private:
  uint64_t state_;
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_XORSHIFT_H_
