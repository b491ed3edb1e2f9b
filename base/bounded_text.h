// Client-supplied text made safe to echo: into a status message, a log line,
// the audit log or a terminal. Bounded in length and free of control
// characters, so a huge input cannot overflow gRPC's status metadata, a
// newline in a file name cannot forge a log line and an escape sequence in
// one cannot reach an admin's terminal. The one escaper of the project:
// every other place that prints client text goes through these.
//
//   return absl::NotFoundError(
//       absl::StrCat("workload_id ", BoundedText(request.workload_id()),
//                    ": no such workload"));
//   BLKPERF_LOG(INFO) << "on " << path;   // the log escapes with OneLine
//   std::cout << TerminalText(report);    // keeps the report's own newlines
//
// "Control characters" everywhere here: C0 (bytes below 0x20), DEL (0x7f)
// and C1 (U+0080..U+009F, UTF-8 bytes C2 80..C2 9F, which some terminals
// obey as CSI and friends). Other bytes pass unchanged.
#ifndef BLKPERF_BASE_BOUNDED_TEXT_H_
#define BLKPERF_BASE_BOUNDED_TEXT_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace blkperf {

// Default bound for one echoed value, bytes of input.
inline constexpr size_t kMaxEchoBytes = 128;
// Bound for a path echoed in a refusal (long enough for real paths).
inline constexpr size_t kMaxPathEchoBytes = 512;
// Bound for one log line's message (after the "I1207 ... file:line] "
// header).
inline constexpr size_t kMaxLogLineBytes = 8192;

// Appends `text` escaped as inside a JSON string: '"', '\\', '\n', '\t'
// and every other control character (\u00NN). Other bytes pass.
void AppendEscaped(absl::string_view text, std::string* out);

// Quoted `text` ("...") escaped by AppendEscaped; at most `max_bytes` of
// input are kept, and a cut says how much was left out:
// "aaaa"...(+1000 bytes). A cut may split a UTF-8 character.
std::string BoundedText(absl::string_view text,
                        size_t max_bytes = kMaxEchoBytes);

// `text` on one line, unquoted: control characters escaped C-style ("\n",
// "\t", "\r", "\x1b", "\xc2\x9b"; '\\' itself is kept as is, so text that
// was escaped already stays readable). At most `max_bytes` of input, a cut
// saying "...(+N bytes)".
std::string OneLine(absl::string_view text,
                    size_t max_bytes = kMaxPathEchoBytes);

// Like OneLine but keeps '\n' and '\t' and has no bound: for multi-line text
// written to a terminal (reports, listings) that may carry client strings.
std::string TerminalText(absl::string_view text);

}  // namespace blkperf

#endif  // BLKPERF_BASE_BOUNDED_TEXT_H_
