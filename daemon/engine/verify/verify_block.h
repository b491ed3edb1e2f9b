// The self-describing block that verify writes and checks: every block of
// `length` bytes at byte `offset` of a target starts with a 64-byte header
//
//   bytes  0..7   magic "BLKPVRF1"        24..27  length
//          8..15  target id               28..31  crc32c of the block
//         16..23  offset                  32..39  seed
//                                         40..47  write generation
//         48..63  zero
//
// (little-endian) followed by pattern words (verify_pattern.h) of a seed
// mixed from (seed, target id, generation), and the crc32c covers the whole
// block with its own field taken as zero. So a block names where it belongs
// and which write put it there, and every kind of wrong data is told apart:
//
//   FillBlock({target_id, offset, length, seed}, generation, buf);  // write
//   if (!BlockIsGood(identity, lo, hi, buf)) {                      // read
//     BlockCheck why = CheckBlock(identity, lo, hi, buf);   // slow path
//   }
//
// `lo..hi` is the range of generations the reader may find: exactly the last
// acknowledged write's, or a range when a write was in flight at a crash.
// All functions allocate nothing and are safe from any thread.
#ifndef BLKPERF_DAEMON_ENGINE_VERIFY_VERIFY_BLOCK_H_
#define BLKPERF_DAEMON_ENGINE_VERIFY_VERIFY_BLOCK_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace blkperf {

inline constexpr uint64_t kVerifyMagic = 0x31465256504b4c42ULL;  // "BLKPVRF1"
inline constexpr size_t kVerifyHeaderBytes = 64;
// Torn writes are found at this granularity (the smallest sector).
inline constexpr size_t kVerifySectorBytes = 512;

struct BlockHeader {
  uint64_t magic = 0;
  uint64_t target_id = 0;
  uint64_t offset = 0;
  uint32_t length = 0;
  uint32_t crc = 0;
  uint64_t seed = 0;
  uint64_t generation = 0;
};

// What a block must say about itself.
struct BlockIdentity {
  uint64_t target_id = 0;
  uint64_t offset = 0;
  uint32_t length = 0;  // REQUIRES: a multiple of kVerifySectorBytes
  uint64_t seed = 0;
};

// The stable id of a target: FNV-1a 64 of its path as the spec names it.
uint64_t VerifyTargetId(absl::string_view path);

void EncodeHeader(const BlockHeader& header, void* out);  // 64 bytes
BlockHeader DecodeHeader(const void* in);                 // 64 bytes

// crc32c of `length` bytes at `block` with bytes 28..31 taken as zero.
uint32_t BlockCrc(const void* block, uint32_t length);

// Writes the whole block `identity` names, for write `generation`.
void FillBlock(const BlockIdentity& identity, uint64_t generation, void* buf);

// The fast check: header fields as expected, generation in [lo, hi], crc
// right. No allocation, one crc pass.
[[nodiscard]] bool BlockIsGood(const BlockIdentity& identity, uint64_t lo,
                               uint64_t hi, const void* buf);

enum class VerifyFailure {
  kNone,
  kCorrupt,      // bytes differ from any version of this block
  kTorn,         // sectors of two different writes of this block
  kMisdirected,  // a whole valid block that belongs at another offset/length
  kWrongTarget,  // a whole valid block of another target
  kWrongSeed,    // a whole valid block written with another seed
  kStale,        // a whole valid block older than the last acknowledged write
  kFuture,       // a whole valid block newer than any write issued
};
inline constexpr int kVerifyFailureKinds = 8;
absl::string_view VerifyFailureName(VerifyFailure kind);

struct BlockCheck {
  VerifyFailure kind = VerifyFailure::kNone;
  BlockHeader found;       // as decoded, whatever it holds
  uint32_t computed_crc = 0;
  // Byte within the block where the first difference from the expected
  // block (generation lo) is, or the header field that is wrong.
  uint32_t first_bad_byte = 0;
};

// The slow, thorough check that says what is wrong (kNone if nothing is).
BlockCheck CheckBlock(const BlockIdentity& identity, uint64_t lo, uint64_t hi,
                      const void* buf);

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_VERIFY_VERIFY_BLOCK_H_
