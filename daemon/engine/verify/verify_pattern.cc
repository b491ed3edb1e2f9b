#include "daemon/engine/verify/verify_pattern.h"

#include <cstring>

#include "absl/base/optimization.h"

// The loops below are written so GCC vectorizes them: no early exit, memcpy
// for unaligned word access. Plain x86-64 has no 64-bit vector multiply, so
// on x86-64 we also build an AVX2 clone, chosen once at load time (ifunc).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define BLKPERF_PATTERN_CLONES \
  __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define BLKPERF_PATTERN_CLONES
#endif

namespace blkperf {
namespace {

constexpr size_t kWord = sizeof(uint64_t);

// Words compared per block before checking for a difference: large enough
// that the branch costs nothing, small enough that the rescan after a
// mismatch is cheap.
constexpr size_t kBlockWords = 64;

BLKPERF_PATTERN_CLONES
void FillWords(uint64_t seed, uint64_t offset, unsigned char* out,
               size_t words) {
  for (size_t i = 0; i < words; ++i) {
    const uint64_t word = PatternWord(seed, offset + i * kWord);
    std::memcpy(out + i * kWord, &word, kWord);
  }
}

// OR of (stored ^ expected) over `words` words: zero iff all match.
BLKPERF_PATTERN_CLONES
uint64_t DiffWords(uint64_t seed, uint64_t offset, const unsigned char* in,
                   size_t words) {
  uint64_t diff = 0;
  for (size_t i = 0; i < words; ++i) {
    uint64_t word;
    std::memcpy(&word, in + i * kWord, kWord);
    diff |= word ^ PatternWord(seed, offset + i * kWord);
  }
  return diff;
}

}  // namespace

void FillPattern(uint64_t seed, uint64_t offset, void* buf, size_t len) {
  FillWords(seed, offset, static_cast<unsigned char*>(buf), len / kWord);
}

int64_t FindPatternMismatch(uint64_t seed, uint64_t offset, const void* buf,
                            size_t len) {
  const auto* in = static_cast<const unsigned char*>(buf);
  const size_t words = len / kWord;
  for (size_t start = 0; start < words; start += kBlockWords) {
    const size_t n = words - start < kBlockWords ? words - start : kBlockWords;
    const size_t byte = start * kWord;
    if (ABSL_PREDICT_TRUE(DiffWords(seed, offset + byte, in + byte, n) == 0)) {
      continue;
    }
    // Slow path: a block differs; find the word, then the byte in it.
    for (size_t i = 0; i < n; ++i) {
      const size_t at = byte + i * kWord;
      if (DiffWords(seed, offset + at, in + at, 1) == 0) continue;
      unsigned char expected[kWord];
      const uint64_t word = PatternWord(seed, offset + at);
      std::memcpy(expected, &word, kWord);
      size_t j = 0;
      while (j + 1 < kWord && in[at + j] == expected[j]) ++j;
      return static_cast<int64_t>(at + j);
    }
  }
  return -1;
}

}  // namespace blkperf
