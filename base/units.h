// Parsing and printing of sizes and rates as people write them.
//
//   uint64_t bytes;
//   if (!ParseSize("128k", &bytes)) ...      // 131072
//   FormatBytes(1536)                          // "1.50KiB"
//   FormatCount(251234.0)                      // "251.2k"
#ifndef BLKPERF_BASE_UNITS_H_
#define BLKPERF_BASE_UNITS_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace blkperf {

// A decimal count with an optional binary suffix k, m, g, t (either case,
// optionally followed by "i" and/or "b": "4k", "4KiB", "1G"). False on
// anything else or on overflow.
bool ParseSize(absl::string_view text, uint64_t* bytes);

// 1536 -> "1.50KiB"; below 1 KiB plain bytes: "512B".
std::string FormatBytes(double bytes);
// 251234 -> "251.2k"; 1.5e6 -> "1.50M".
std::string FormatCount(double count);
// Nanoseconds as the most readable unit: "812ns", "12.3us", "4.10ms", "1.20s".
std::string FormatNanos(double nanos);

}  // namespace blkperf

#endif  // BLKPERF_BASE_UNITS_H_
