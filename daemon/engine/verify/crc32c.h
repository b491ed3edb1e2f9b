// CRC-32C (Castagnoli, the iSCSI/ext4/btrfs checksum) of a byte range.
//
//   uint32_t crc = Crc32c(data, len);               // one shot
//   uint32_t c = Crc32cExtend(0, a, n); c = Crc32cExtend(c, b, m);  // pieces
//
// Uses the SSE4.2 `crc32` instruction when the CPU has it (checked once at
// load time) and a table-driven portable loop otherwise; both give the same
// value (RFC 3720 B.4 vectors in crc32c_test.cc). Thread-safe, allocates
// nothing: fit for the I/O hot path.
#ifndef BLKPERF_DAEMON_ENGINE_VERIFY_CRC32C_H_
#define BLKPERF_DAEMON_ENGINE_VERIFY_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace blkperf {

// Extends `crc` (a finished CRC-32C of earlier bytes, 0 to start) over
// [data, data + len). Crc32cExtend(Crc32cExtend(0, a), b) == Crc32c(a ++ b).
[[nodiscard]] uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t len);

[[nodiscard]] inline uint32_t Crc32c(const void* data, size_t len) {
  return Crc32cExtend(0, data, len);
}

// The portable loop alone, so tests can compare it with the instruction.
[[nodiscard]] uint32_t Crc32cPortable(uint32_t crc, const void* data,
                                      size_t len);

// True when Crc32cExtend uses the SSE4.2 instruction on this CPU.
bool Crc32cUsesHardware();

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_VERIFY_CRC32C_H_
