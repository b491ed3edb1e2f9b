#include "daemon/engine/verify/verify_block.h"

#include <cstring>

#include "daemon/engine/verify/crc32c.h"
#include "daemon/engine/verify/verify_pattern.h"

namespace blkperf {
namespace {

constexpr size_t kCrcOffset = 28;

uint64_t Load64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

uint32_t Load32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// The pattern seed of the payload of one write: a different write of the
// same block (or the same offset of another target) differs in every word.
uint64_t PayloadSeed(uint64_t seed, uint64_t target_id, uint64_t generation) {
  return Mix64(seed ^ Mix64(target_id + generation * 0x9e3779b97f4a7c15ULL));
}

// True when sector `s` of `buf` (its payload bytes) is what `generation`
// wrote there.
bool SectorIs(const BlockIdentity& id, uint64_t generation,
              const unsigned char* buf, size_t s) {
  const size_t from = s == 0 ? kVerifyHeaderBytes : s * kVerifySectorBytes;
  const size_t to = (s + 1) * kVerifySectorBytes;
  return FindPatternMismatch(PayloadSeed(id.seed, id.target_id, generation),
                             id.offset + from, buf + from, to - from) < 0;
}

// Torn: every sector holds one of the candidate writes, not all the same.
bool LooksTorn(const BlockIdentity& id, const uint64_t* gens, int n,
               const unsigned char* buf) {
  const size_t sectors = id.length / kVerifySectorBytes;
  int first_match = -1;
  bool mixed = false;
  for (size_t s = 0; s < sectors; ++s) {
    int match = -1;
    for (int g = 0; g < n && match < 0; ++g) {
      if (SectorIs(id, gens[g], buf, s)) match = g;
    }
    if (match < 0) return false;
    if (first_match < 0) first_match = match;
    if (gens[match] != gens[first_match]) mixed = true;
  }
  return mixed;
}

// First byte differing from the block generation `gen` would be.
uint32_t FirstDifference(const BlockIdentity& id, uint64_t gen,
                         const unsigned char* buf) {
  unsigned char header[kVerifyHeaderBytes];
  // The header as that write made it, crc excluded (it covers the payload).
  EncodeHeader({kVerifyMagic, id.target_id, id.offset, id.length, 0, id.seed,
                gen},
               header);
  std::memcpy(header + kCrcOffset, buf + kCrcOffset, 4);
  for (size_t i = 0; i < kVerifyHeaderBytes; ++i) {
    if (header[i] != buf[i]) return static_cast<uint32_t>(i);
  }
  const int64_t bad = FindPatternMismatch(
      PayloadSeed(id.seed, id.target_id, gen), id.offset + kVerifyHeaderBytes,
      buf + kVerifyHeaderBytes, id.length - kVerifyHeaderBytes);
  if (bad >= 0) return static_cast<uint32_t>(kVerifyHeaderBytes + bad);
  return kCrcOffset;  // only the crc field differs
}

}  // namespace

uint64_t VerifyTargetId(absl::string_view path) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : path) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

void EncodeHeader(const BlockHeader& h, void* out) {
  auto* p = static_cast<unsigned char*>(out);
  std::memset(p, 0, kVerifyHeaderBytes);
  std::memcpy(p + 0, &h.magic, 8);
  std::memcpy(p + 8, &h.target_id, 8);
  std::memcpy(p + 16, &h.offset, 8);
  std::memcpy(p + 24, &h.length, 4);
  std::memcpy(p + 28, &h.crc, 4);
  std::memcpy(p + 32, &h.seed, 8);
  std::memcpy(p + 40, &h.generation, 8);
}

BlockHeader DecodeHeader(const void* in) {
  const auto* p = static_cast<const unsigned char*>(in);
  return {Load64(p), Load64(p + 8), Load64(p + 16), Load32(p + 24),
          Load32(p + 28), Load64(p + 32), Load64(p + 40)};
}

uint32_t BlockCrc(const void* block, uint32_t length) {
  const auto* p = static_cast<const unsigned char*>(block);
  static constexpr unsigned char kZero[4] = {0, 0, 0, 0};
  uint32_t crc = Crc32cExtend(0, p, kCrcOffset);
  crc = Crc32cExtend(crc, kZero, 4);
  return Crc32cExtend(crc, p + kCrcOffset + 4, length - kCrcOffset - 4);
}

void FillBlock(const BlockIdentity& id, uint64_t generation, void* buf) {
  auto* p = static_cast<unsigned char*>(buf);
  FillPattern(PayloadSeed(id.seed, id.target_id, generation),
              id.offset + kVerifyHeaderBytes, p + kVerifyHeaderBytes,
              id.length - kVerifyHeaderBytes);
  BlockHeader header{kVerifyMagic, id.target_id, id.offset, id.length,
                     0,            id.seed,      generation};
  EncodeHeader(header, p);
  header.crc = BlockCrc(p, id.length);
  std::memcpy(p + kCrcOffset, &header.crc, 4);
}

bool BlockIsGood(const BlockIdentity& id, uint64_t lo, uint64_t hi,
                 const void* buf) {
  const BlockHeader h = DecodeHeader(buf);
  return h.magic == kVerifyMagic && h.target_id == id.target_id &&
         h.offset == id.offset && h.length == id.length && h.seed == id.seed &&
         h.generation >= lo && h.generation <= hi &&
         h.crc == BlockCrc(buf, id.length);
}

BlockCheck CheckBlock(const BlockIdentity& id, uint64_t lo, uint64_t hi,
                      const void* buf) {
  const auto* p = static_cast<const unsigned char*>(buf);
  BlockCheck check;
  check.found = DecodeHeader(p);
  const BlockHeader& f = check.found;
  const bool magic_ok = f.magic == kVerifyMagic;
  // A block another target or offset wrote has its own length: the crc is
  // only computed over what this block may hold.
  const uint32_t crc_length =
      magic_ok && f.length >= kVerifyHeaderBytes && f.length <= id.length &&
              f.length % 8 == 0
          ? f.length
          : id.length;
  check.computed_crc = BlockCrc(p, crc_length);
  if (magic_ok && check.computed_crc == f.crc) {
    // A whole, self-consistent block: is it this block's latest?
    if (f.target_id != id.target_id) {
      check.kind = VerifyFailure::kWrongTarget;
      check.first_bad_byte = 8;
    } else if (f.seed != id.seed) {
      check.kind = VerifyFailure::kWrongSeed;
      check.first_bad_byte = 32;
    } else if (f.offset != id.offset || f.length != id.length) {
      check.kind = VerifyFailure::kMisdirected;
      check.first_bad_byte = f.offset != id.offset ? 16 : 24;
    } else if (f.generation < lo) {
      check.kind = VerifyFailure::kStale;
      check.first_bad_byte = 40;
    } else if (f.generation > hi) {
      check.kind = VerifyFailure::kFuture;
      check.first_bad_byte = 40;
    }
    return check;
  }
  // Not a whole block: sectors of different writes (torn) or damage.
  uint64_t gens[4] = {lo, hi, lo > 0 ? lo - 1 : lo, f.generation};
  const int n = magic_ok && f.target_id == id.target_id ? 4 : 3;
  check.kind = LooksTorn(id, gens, n, p) ? VerifyFailure::kTorn
                                         : VerifyFailure::kCorrupt;
  check.first_bad_byte = FirstDifference(id, lo, p);
  return check;
}

absl::string_view VerifyFailureName(VerifyFailure kind) {
  switch (kind) {
    case VerifyFailure::kNone:
      return "none";
    case VerifyFailure::kCorrupt:
      return "corrupt";
    case VerifyFailure::kTorn:
      return "torn";
    case VerifyFailure::kMisdirected:
      return "misdirected";
    case VerifyFailure::kWrongTarget:
      return "wrong target";
    case VerifyFailure::kWrongSeed:
      return "wrong seed";
    case VerifyFailure::kStale:
      return "stale";
    case VerifyFailure::kFuture:
      return "future";
  }
  return "?";
}

}  // namespace blkperf
