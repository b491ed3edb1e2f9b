// Helpers shared by the spec flag parsers (spec_flags.cc, shape_flags.cc):
// the one error form for a bad flag value, proto durations, and proto enum
// values by their short names.
//
//   return BadFlag("bs", text, "not a size (e.g. 4096, 4k, 1m, 2g)");
//   BLKPERF_ASSIGN_OR_RETURN(v1::PollMode mode,
//       ParseEnumFlag("polled", text, "POLL_MODE_", &v1::PollMode_Parse,
//                     "off, on, auto"));
#ifndef BLKPERF_CLI_INTERNAL_FLAG_VALUES_H_
#define BLKPERF_CLI_INTERNAL_FLAG_VALUES_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "base/bounded_text.h"
#include "google/protobuf/duration.pb.h"
#include "proto/blkperf.pb.h"

namespace blkperf::internal {

// InvalidArgument "--FLAG=VALUE: WHY", the value escaped and bounded
// (base/bounded_text.h): a flag value may come from anywhere, a terminal included.
inline absl::Status BadFlag(absl::string_view flag, absl::string_view value,
                            absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, "=", OneLine(value), ": ", why));
}

inline void SetDuration(absl::Duration d, google::protobuf::Duration* out) {
  const int64_t ns = absl::ToInt64Nanoseconds(d);
  out->set_seconds(ns / 1000000000);
  out->set_nanos(static_cast<int32_t>(ns % 1000000000));
}

// The proto enum value PREFIX + VALUE (case-insensitive), or BadFlag
// listing `choices`; the UNSPECIFIED value (0) is refused.
template <typename Enum>
absl::StatusOr<Enum> ParseEnumFlag(absl::string_view flag,
                                   absl::string_view value,
                                   absl::string_view prefix,
                                   bool (*parse)(const std::string&, Enum*),
                                   absl::string_view choices) {
  Enum parsed;
  if (!parse(absl::StrCat(prefix, absl::AsciiStrToUpper(value)), &parsed) ||
      static_cast<int>(parsed) == 0) {
    return BadFlag(flag, value, absl::StrCat("not one of ", choices));
  }
  return parsed;
}

// --op's (and a group's op=) value.
inline absl::StatusOr<v1::Op> OpFromText(absl::string_view flag,
                                         absl::string_view text) {
  return ParseEnumFlag(flag, text, "OP_", &v1::Op_Parse,
                       "read, write, randread, randwrite, randrw, trim, "
                       "randtrim");
}

}  // namespace blkperf::internal

#endif  // BLKPERF_CLI_INTERNAL_FLAG_VALUES_H_
