#include "daemon/engine/verify/verify_pattern.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

// Byte buffer of `len` bytes starting `misalign` bytes past an 8-aligned
// address, so the functions are tested on unaligned memory too.
class Buffer {
 public:
  Buffer(size_t len, size_t misalign)
      : storage_((len + misalign) / 8 + 2), misalign_(misalign), len_(len) {}
  unsigned char* data() {
    return reinterpret_cast<unsigned char*>(storage_.data()) + misalign_;
  }
  size_t size() const { return len_; }

 private:
  std::vector<uint64_t> storage_;
  size_t misalign_;
  size_t len_;
};

uint64_t WordAt(const unsigned char* p) {
  uint64_t word;
  std::memcpy(&word, p, sizeof(word));
  return word;
}

TEST(Mix64Test, IsTheSplitMix64Finalizer) {
  // splitmix64 seeded with 0: the first output mixes the golden gamma.
  EXPECT_EQ(Mix64(0x9e3779b97f4a7c15ULL), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(Mix64(0), 0u);
  EXPECT_EQ(PatternWord(0x1234, 4096), Mix64(0x1234 ^ 4096));
}

TEST(VerifyPatternTest, FillStoresPatternWordAtEveryOffset) {
  constexpr uint64_t kSeed = 42;
  constexpr uint64_t kOffset = 1 << 20;
  Buffer buf(4096, 0);
  FillPattern(kSeed, kOffset, buf.data(), buf.size());
  for (size_t i = 0; i < buf.size(); i += 8) {
    ASSERT_EQ(WordAt(buf.data() + i), PatternWord(kSeed, kOffset + i))
        << "at byte " << i;
  }
}

TEST(VerifyPatternTest, RoundTripsForManyLengthsOffsetsAndAlignments) {
  for (size_t len : {size_t{0}, size_t{8}, size_t{504}, size_t{512},
                     size_t{4096}, size_t{(1 << 20) + 8}}) {
    for (uint64_t offset : {uint64_t{0}, uint64_t{8}, uint64_t{4096},
                            uint64_t{1} << 40, ~uint64_t{7}}) {
      for (size_t misalign : {0, 1, 4}) {
        Buffer buf(len, misalign);
        FillPattern(7, offset, buf.data(), len);
        EXPECT_EQ(FindPatternMismatch(7, offset, buf.data(), len), -1)
            << "len " << len << " offset " << offset << " misalign "
            << misalign;
      }
    }
  }
}

TEST(VerifyPatternTest, FindsSingleBitFlipAtItsByte) {
  constexpr size_t kLen = 64 * 1024;
  Buffer buf(kLen, 0);
  // First word, block boundaries of the checker, a byte inside a word, the
  // very last byte.
  for (size_t byte : {size_t{0}, size_t{7}, size_t{511}, size_t{512},
                      size_t{4099}, size_t{kLen - 8}, size_t{kLen - 1}}) {
    for (int bit : {0, 7}) {
      FillPattern(3, 8192, buf.data(), kLen);
      buf.data()[byte] ^= static_cast<unsigned char>(1u << bit);
      EXPECT_EQ(FindPatternMismatch(3, 8192, buf.data(), kLen),
                static_cast<int64_t>(byte))
          << "flipped bit " << bit << " of byte " << byte;
    }
  }
}

TEST(VerifyPatternTest, ReportsTheFirstOfSeveralMismatches) {
  Buffer buf(8192, 0);
  FillPattern(3, 0, buf.data(), buf.size());
  buf.data()[6000] ^= 1;
  buf.data()[1005] ^= 1;
  buf.data()[1006] ^= 1;
  EXPECT_EQ(FindPatternMismatch(3, 0, buf.data(), buf.size()), 1005);
}

TEST(VerifyPatternTest, DependsOnOffsetNotOnHowTheRangeIsSplit) {
  constexpr size_t kLen = 8192;
  Buffer whole(kLen, 0);
  FillPattern(9, 0, whole.data(), kLen);
  // Checking the second half on its own, at its absolute offset, passes:
  // the pattern does not depend on block size or write order.
  EXPECT_EQ(FindPatternMismatch(9, 4096, whole.data() + 4096, 4096), -1);
  // The same bytes claimed for another offset do not.
  EXPECT_EQ(FindPatternMismatch(9, 0, whole.data() + 4096, 4096), 0);
  EXPECT_EQ(FindPatternMismatch(9, 8, whole.data(), kLen), 0);
  // Same data, seed, offset 4096 apart: every word differs.
  Buffer other(kLen, 0);
  FillPattern(9, 4096, other.data(), kLen);
  for (size_t i = 0; i < kLen; i += 8) {
    ASSERT_NE(WordAt(whole.data() + i), WordAt(other.data() + i)) << i;
  }
}

TEST(VerifyPatternTest, DependsOnSeed) {
  Buffer a(4096, 0);
  Buffer b(4096, 0);
  FillPattern(1, 0, a.data(), 4096);
  FillPattern(2, 0, b.data(), 4096);
  EXPECT_NE(std::memcmp(a.data(), b.data(), 4096), 0);
  EXPECT_EQ(FindPatternMismatch(2, 0, a.data(), 4096), 0);
  EXPECT_EQ(FindPatternMismatch(1, 0, a.data(), 4096), -1);
}

TEST(VerifyPatternTest, ZeroedBufferDoesNotPass) {
  // A block never written (or discarded to zeroes) must be caught.
  Buffer buf(4096, 0);
  std::memset(buf.data(), 0, 4096);
  EXPECT_EQ(FindPatternMismatch(5, 4096, buf.data(), 4096), 0);
}

}  // namespace
}  // namespace blkperf
