// Client input echoed into error messages and logs: bounded and on one line,
// so a huge or hostile string can neither overflow a status's metadata nor
// forge log lines.
//
//   return absl::NotFoundError(absl::StrCat("workload_id \"", Echo(id),
//                                           "\" is unknown"));
#ifndef BLKPERF_BASE_ECHO_H_
#define BLKPERF_BASE_ECHO_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace blkperf {

// The longest echo, in input bytes, before the "...(N bytes)" marker.
inline constexpr size_t kMaxEcho = 512;

// `text` with control characters and '\\' escaped C-style ("\n", "\x01"),
// cut after kMaxEcho input bytes with "...(<size> bytes)" appended.
std::string Echo(absl::string_view text);

}  // namespace blkperf

#endif  // BLKPERF_BASE_ECHO_H_
