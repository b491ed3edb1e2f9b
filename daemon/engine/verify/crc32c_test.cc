#include "daemon/engine/verify/crc32c.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

// RFC 3720 (iSCSI) appendix B.4 test vectors and the classic check value.
struct Vector {
  std::vector<uint8_t> data;
  uint32_t crc;
};

std::vector<Vector> KnownVectors() {
  std::vector<Vector> v;
  v.push_back({std::vector<uint8_t>(32, 0x00), 0x8a9136aa});
  v.push_back({std::vector<uint8_t>(32, 0xff), 0x62a8ab43});
  std::vector<uint8_t> up(32), down(32);
  for (int i = 0; i < 32; ++i) {
    up[i] = static_cast<uint8_t>(i);
    down[i] = static_cast<uint8_t>(31 - i);
  }
  v.push_back({up, 0x46dd794e});
  v.push_back({down, 0x113fdb5c});
  const std::string check = "123456789";
  v.push_back({std::vector<uint8_t>(check.begin(), check.end()), 0xe3069283});
  v.push_back({{}, 0});
  return v;
}

TEST(Crc32cTest, MatchesKnownVectors) {
  for (const Vector& v : KnownVectors()) {
    EXPECT_EQ(Crc32c(v.data.data(), v.data.size()), v.crc) << v.data.size();
    EXPECT_EQ(Crc32cPortable(0, v.data.data(), v.data.size()), v.crc);
  }
}

TEST(Crc32cTest, HardwareAndPortableAgreeOnEveryLengthAndAlignment) {
  std::vector<uint8_t> data(4096 + 16);
  uint32_t x = 1;
  for (uint8_t& b : data) {
    x = x * 1103515245 + 12345;
    b = static_cast<uint8_t>(x >> 16);
  }
  for (size_t start : {0, 1, 3, 7}) {
    for (size_t len = 0; len < 80; ++len) {
      ASSERT_EQ(Crc32c(data.data() + start, len),
                Crc32cPortable(0, data.data() + start, len))
          << start << " " << len;
    }
    ASSERT_EQ(Crc32c(data.data() + start, 4096),
              Crc32cPortable(0, data.data() + start, 4096));
  }
}

TEST(Crc32cTest, ExtendEqualsOneShot) {
  const std::string text = "the quick brown fox jumps over the lazy dog";
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    const uint32_t first = Crc32c(text.data(), cut);
    EXPECT_EQ(Crc32cExtend(first, text.data() + cut, text.size() - cut),
              Crc32c(text.data(), text.size()))
        << cut;
  }
}

TEST(Crc32cTest, SingleBitFlipChangesTheValue) {
  std::vector<uint8_t> block(4096, 0x5a);
  const uint32_t good = Crc32c(block.data(), block.size());
  block[2049] ^= 0x10;
  EXPECT_NE(Crc32c(block.data(), block.size()), good);
}

}  // namespace
}  // namespace blkperf
