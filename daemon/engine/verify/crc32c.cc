#include "daemon/engine/verify/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace blkperf {
namespace {

constexpr uint32_t kPolyReflected = 0x82f63b78;

constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (kPolyReflected & (0u - (c & 1)));
    table[i] = c;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kTable = MakeTable();

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t HardwareExtend(uint32_t crc,
                                                          const void* data,
                                                          size_t len) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t c = ~crc;
  while (len >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = _mm_crc32_u64(c, word);
    p += 8;
    len -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (len-- > 0) c32 = _mm_crc32_u8(c32, *p++);
  return ~c32;
}

const bool kHasSse42 = __builtin_cpu_supports("sse4.2");
#else
const bool kHasSse42 = false;
#endif

}  // namespace

uint32_t Crc32cPortable(uint32_t crc, const void* data, size_t len) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = ~crc;
  while (len-- > 0) c = kTable[(c ^ *p++) & 0xff] ^ (c >> 8);
  return ~c;
}

bool Crc32cUsesHardware() { return kHasSse42; }

uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t len) {
#if defined(__x86_64__)
  if (kHasSse42) return HardwareExtend(crc, data, len);
#endif
  return Crc32cPortable(crc, data, len);
}

}  // namespace blkperf
