#include "daemon/engine/verify/verify_block.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "daemon/engine/verify/crc32c.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

constexpr uint32_t kLen = 4096;
const BlockIdentity kId{VerifyTargetId("/dev/loop7"), 8 * kLen, kLen, 99};

std::vector<unsigned char> Block(const BlockIdentity& id, uint64_t gen) {
  std::vector<unsigned char> b(id.length);
  FillBlock(id, gen, b.data());
  return b;
}

TEST(VerifyBlockTest, HeaderHasTheDocumentedLayout) {
  const std::vector<unsigned char> b = Block(kId, 5);
  EXPECT_EQ(std::memcmp(b.data(), "BLKPVRF1", 8), 0);
  uint64_t v;
  std::memcpy(&v, b.data() + 8, 8);
  EXPECT_EQ(v, kId.target_id);
  std::memcpy(&v, b.data() + 16, 8);
  EXPECT_EQ(v, kId.offset);
  uint32_t w;
  std::memcpy(&w, b.data() + 24, 4);
  EXPECT_EQ(w, kLen);
  std::memcpy(&v, b.data() + 32, 8);
  EXPECT_EQ(v, 99u);
  std::memcpy(&v, b.data() + 40, 8);
  EXPECT_EQ(v, 5u);
  for (int i = 48; i < 64; ++i) EXPECT_EQ(b[i], 0) << i;
  // The crc is crc32c of the block with its own field zeroed.
  std::vector<unsigned char> zeroed = b;
  std::memset(zeroed.data() + 28, 0, 4);
  std::memcpy(&w, b.data() + 28, 4);
  EXPECT_EQ(w, Crc32c(zeroed.data(), kLen));
  EXPECT_EQ(w, BlockCrc(b.data(), kLen));
}

TEST(VerifyBlockTest, EncodeDecodeRoundTrips) {
  const BlockHeader h{kVerifyMagic, 1, 2, 3, 4, 5, 6};
  unsigned char raw[kVerifyHeaderBytes];
  EncodeHeader(h, raw);
  const BlockHeader d = DecodeHeader(raw);
  EXPECT_EQ(d.magic, h.magic);
  EXPECT_EQ(d.target_id, 1u);
  EXPECT_EQ(d.offset, 2u);
  EXPECT_EQ(d.length, 3u);
  EXPECT_EQ(d.crc, 4u);
  EXPECT_EQ(d.seed, 5u);
  EXPECT_EQ(d.generation, 6u);
}

TEST(VerifyBlockTest, TargetIdIsFnv1a64OfThePath) {
  EXPECT_EQ(VerifyTargetId(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(VerifyTargetId("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_NE(VerifyTargetId("/dev/loop0"), VerifyTargetId("/dev/loop1"));
}

TEST(VerifyBlockTest, AGoodBlockPassesBothChecks) {
  const std::vector<unsigned char> b = Block(kId, 3);
  EXPECT_TRUE(BlockIsGood(kId, 3, 3, b.data()));
  EXPECT_TRUE(BlockIsGood(kId, 2, 3, b.data()));
  EXPECT_EQ(CheckBlock(kId, 3, 3, b.data()).kind, VerifyFailure::kNone);
}

TEST(VerifyBlockTest, ABitFlipAnywhereIsCorruptAtItsByte) {
  for (uint32_t byte : {0u, 20u, 63u, 64u, 1000u, kLen - 1}) {
    std::vector<unsigned char> b = Block(kId, 3);
    b[byte] ^= 0x04;
    EXPECT_FALSE(BlockIsGood(kId, 3, 3, b.data())) << byte;
    const BlockCheck c = CheckBlock(kId, 3, 3, b.data());
    EXPECT_EQ(c.kind, VerifyFailure::kCorrupt) << byte;
    if (byte >= 64) {  // past the header: the flipped byte itself
      EXPECT_EQ(c.first_bad_byte, byte) << byte;
    }
  }
}

TEST(VerifyBlockTest, AnOlderWriteIsStale) {
  const std::vector<unsigned char> old = Block(kId, 1);
  EXPECT_FALSE(BlockIsGood(kId, 2, 2, old.data()));
  const BlockCheck c = CheckBlock(kId, 2, 2, old.data());
  EXPECT_EQ(c.kind, VerifyFailure::kStale);
  EXPECT_EQ(c.found.generation, 1u);
  // After a crash either of two writes may be there.
  EXPECT_TRUE(BlockIsGood(kId, 1, 2, old.data()));
  EXPECT_EQ(CheckBlock(kId, 1, 1, Block(kId, 2).data()).kind,
            VerifyFailure::kFuture);
}

TEST(VerifyBlockTest, ABlockOfAnotherOffsetIsMisdirected) {
  BlockIdentity other = kId;
  other.offset += kLen;
  const std::vector<unsigned char> b = Block(other, 2);
  const BlockCheck c = CheckBlock(kId, 2, 2, b.data());
  EXPECT_EQ(c.kind, VerifyFailure::kMisdirected);
  EXPECT_EQ(c.found.offset, other.offset);
}

TEST(VerifyBlockTest, ABlockOfAnotherTargetOrSeedIsNamedSo) {
  BlockIdentity other = kId;
  other.target_id = VerifyTargetId("/dev/loop8");
  EXPECT_EQ(CheckBlock(kId, 2, 2, Block(other, 2).data()).kind,
            VerifyFailure::kWrongTarget);
  other = kId;
  other.seed = 100;
  EXPECT_EQ(CheckBlock(kId, 2, 2, Block(other, 2).data()).kind,
            VerifyFailure::kWrongSeed);
}

TEST(VerifyBlockTest, SectorsOfTwoWritesAreTorn) {
  const std::vector<unsigned char> older = Block(kId, 1);
  std::vector<unsigned char> b = Block(kId, 2);
  // The first half reached the disk, the second did not.
  std::memcpy(b.data() + kLen / 2, older.data() + kLen / 2, kLen / 2);
  EXPECT_FALSE(BlockIsGood(kId, 2, 2, b.data()));
  const BlockCheck c = CheckBlock(kId, 2, 2, b.data());
  EXPECT_EQ(c.kind, VerifyFailure::kTorn);
  EXPECT_EQ(c.first_bad_byte, kLen / 2);
  // The other way round: an old header over new data.
  b = Block(kId, 2);
  std::memcpy(b.data(), older.data(), 512);
  EXPECT_EQ(CheckBlock(kId, 2, 2, b.data()).kind, VerifyFailure::kTorn);
}

TEST(VerifyBlockTest, ZeroesAreCorruptNotTorn) {
  std::vector<unsigned char> b(kLen, 0);
  EXPECT_EQ(CheckBlock(kId, 1, 1, b.data()).kind, VerifyFailure::kCorrupt);
  EXPECT_EQ(CheckBlock(kId, 1, 1, b.data()).first_bad_byte, 0u);
}

TEST(VerifyBlockTest, EveryWriteOfABlockDiffersInEveryPayloadWord) {
  const std::vector<unsigned char> a = Block(kId, 1);
  const std::vector<unsigned char> b = Block(kId, 2);
  for (uint32_t i = kVerifyHeaderBytes; i < kLen; i += 8) {
    ASSERT_NE(std::memcmp(a.data() + i, b.data() + i, 8), 0) << i;
  }
}

}  // namespace
}  // namespace blkperf
