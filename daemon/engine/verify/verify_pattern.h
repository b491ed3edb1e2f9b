// The data-verification pattern: what write workloads store when verification
// is on, and what CreateAndPrefillFile always stores.
//
// Every aligned 8-byte word at absolute byte offset `o` of a target holds
// PatternWord(seed, o) = Mix64(seed ^ o), in host (little-endian) byte order.
// The pattern depends only on (seed, offset) — not on block size, alignment,
// queue depth or write order — so any read of any range can be checked
// without knowing how that range was written.
//
//   FillPattern(spec.seed, offset, buf, block_size);         // before a write
//   ...
//   int64_t bad = FindPatternMismatch(spec.seed, offset, buf, block_size);
//   if (ABSL_PREDICT_FALSE(bad >= 0)) ReportCorruption(offset + bad);
//
// Both loops allocate nothing and are safe to call on the I/O hot path from
// any number of threads.
#ifndef BLKPERF_DAEMON_ENGINE_VERIFY_VERIFY_PATTERN_H_
#define BLKPERF_DAEMON_ENGINE_VERIFY_VERIFY_PATTERN_H_

#include <cstddef>
#include <cstdint>

namespace blkperf {

// The splitmix64 finalizer: a cheap bijective 64-bit mixer whose output
// passes as random, so a misdirected or stale block never matches by chance.
constexpr uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The word stored at absolute byte offset `offset` (a multiple of 8).
constexpr uint64_t PatternWord(uint64_t seed, uint64_t offset) {
  return Mix64(seed ^ offset);
}

// Writes the pattern for target bytes [offset, offset + len) into `buf`.
// REQUIRES: offset % 8 == 0 and len % 8 == 0. `buf` needs no alignment.
void FillPattern(uint64_t seed, uint64_t offset, void* buf, size_t len);

// Checks `buf`, read from target bytes [offset, offset + len), against the
// pattern. Returns the byte offset within `buf` of the first byte that
// differs, or -1 if every byte matches.
// REQUIRES: offset % 8 == 0 and len % 8 == 0. `buf` needs no alignment.
[[nodiscard]] int64_t FindPatternMismatch(uint64_t seed, uint64_t offset,
                                          const void* buf, size_t len);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_VERIFY_VERIFY_PATTERN_H_
