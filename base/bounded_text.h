// Client-supplied text made safe to echo: into a status message, a log line
// or the audit log. Bounded in length and free of control characters, so a
// huge input cannot overflow gRPC's status metadata and a newline in a file
// name cannot forge a log line.
//
//   return absl::NotFoundError(
//       absl::StrCat("workload_id ", BoundedText(request.workload_id()),
//                    ": no such workload"));
#ifndef BLKPERF_BASE_BOUNDED_TEXT_H_
#define BLKPERF_BASE_BOUNDED_TEXT_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace blkperf {

// Default bound for one echoed value, bytes of input.
inline constexpr size_t kMaxEchoBytes = 128;

// Appends `text` escaped as inside a JSON string: '"', '\\', '\n', '\t'
// and every other byte below 0x20 or 0x7f (\u00NN). Bytes >= 0x80 pass.
void AppendEscaped(absl::string_view text, std::string* out);

// Quoted `text` ("...") escaped by AppendEscaped; at most `max_bytes` of
// input are kept, and a cut says how much was left out:
// "aaaa"...(+1000 bytes). A cut may split a UTF-8 character.
std::string BoundedText(absl::string_view text,
                        size_t max_bytes = kMaxEchoBytes);

}  // namespace blkperf

#endif  // BLKPERF_BASE_BOUNDED_TEXT_H_
