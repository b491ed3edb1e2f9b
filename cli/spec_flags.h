// The workload spec of `blkperf start`, `blkperf run` and `blkperfd run`,
// from flags named after the spec fields, optionally on top of a JSON file in the protobuf
// JSON mapping (--spec_file; flags given on the command line override it).
//
//   blkperf run --target=/dev/zram0 --op=randread --bs=4k --qd=64
//       --cpus=0-1 --runtime=10s
//   blkperf run --spec_file=spec.json --qd=128
//
// Unset flags leave the field unset, so the daemon's engine defaults apply;
// --io_count without --runtime (or a runtime in the file) runs until the
// count is done. No --target (and no targets in the file): the daemon's
// default target.
// Relative target paths are made absolute against the client's working
// directory (give absolute paths for a remote daemon).
#ifndef BLKPERF_CLI_SPEC_FLAGS_H_
#define BLKPERF_CLI_SPEC_FLAGS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/blkperf.pb.h"

namespace blkperf {

// The spec from --spec_file (if any) and the spec flags. InvalidArgument
// naming the flag for a value it cannot parse.
absl::StatusOr<v1::WorkloadSpec> SpecFromFlags();

// The spec SpecFromFlags would build with spec flag `flag` set to `value`
// instead of what the command line says (an experiment's arm, --vary). The
// flag counts as given even where `value` is its default (a bool's "true"
// overrides a spec file's false). The flags are as before on return.
// InvalidArgument naming --vary for a flag that is not a spec flag, one an
// experiment sets itself (runtime, io_count, ramp, spec_file),
// or a value the flag cannot parse. Not thread-safe (flags are global).
absl::StatusOr<v1::WorkloadSpec> SpecFromFlagsWith(absl::string_view flag,
                                                   absl::string_view value);
// The same with several spec flags set (an experiment's arm from a spec
// file, experiment/design.h): InvalidArgument "--FLAG=VALUE: why" for the
// first override that is not a spec flag, one an experiment sets itself or
// a value the flag cannot parse. A value may hold commas (a target list).
absl::StatusOr<v1::WorkloadSpec> SpecFromFlagsWithOverrides(
    const std::vector<std::pair<std::string, std::string>>& overrides);
// The same on top of `base` (e.g. an imported fio job file, fio/job_flags.h):
// --spec_file merges into it, flags given override it.
absl::StatusOr<v1::WorkloadSpec> SpecFromFlagsOnto(v1::WorkloadSpec base);

// "4096", "4k", "1m", "2g" (binary multiples). InvalidArgument naming `flag`.
absl::StatusOr<uint64_t> ParseSizeFlag(absl::string_view text,
                                       absl::string_view flag);

// "0-3,6" -> {0,1,2,3,6}. InvalidArgument naming `flag`.
absl::StatusOr<std::vector<int>> ParseCpuList(absl::string_view text,
                                              absl::string_view flag);

// The I/O shape flags (shape_flags.cc: --distribution, --bssplit,
// --rate_iops, --rate_bw, --arrivals, --fsync, --fdatasync, --groups,
// --slo...) onto `*spec`; SpecFromFlags calls it. InvalidArgument naming
// the flag.
absl::Status ShapeFromFlags(v1::WorkloadSpec* spec);

// --groups: groups separated by ';', each "[NAME:] KEY=VALUE ..." with the
// keys op, cpus, read_percent, bs, alignment, qd, distribution,
// random_percent, bssplit, rate_iops, rate_bw, arrivals, fsync, fdatasync.
// Replaces spec->groups. InvalidArgument naming the key.
absl::Status ParseGroupsFlag(absl::string_view text, v1::WorkloadSpec* spec);

// A --spec_file may hold, beside the spec's fields, an "experiment" object
// (its arms: experiment/design.h) that is not a WorkloadSpec field:
// SpecFromFlags leaves it out, and this returns its JSON text ("" when the
// file has none or no --spec_file is given). InvalidArgument naming
// --spec_file when the file cannot be read or is over the limit.
absl::StatusOr<std::string> SpecFileExperimentJson();

// `json` (an object) without its top-level member `key` (`rest`, still
// valid JSON where `json` was), and that member's value text. Strings and
// nesting are skipped exactly; a key written with escapes is not matched.
// Not found: rest == json, found false.
struct JsonMemberCut {
  std::string rest;
  std::string value;
  bool found = false;
};
JsonMemberCut CutTopLevelMember(absl::string_view json, absl::string_view key);

// Largest spec JSON accepted (--spec_file included, checked before reading
// the rest of the file), and the deepest nesting of arrays and objects.
inline constexpr size_t kMaxSpecJsonBytes = 1 << 20;
inline constexpr size_t kMaxSpecJsonDepth = 16;

// Parses JSON in the protobuf mapping into `*spec` (merging). Refuses,
// before parsing, input over kMaxSpecJsonBytes, nesting deeper than
// kMaxSpecJsonDepth, and an array directly inside an array (which the
// protobuf parser would silently flatten: {"targets":[[]]} would mean one
// default target). InvalidArgument saying which and where.
absl::Status SpecFromJson(absl::string_view json, v1::WorkloadSpec* spec);

}  // namespace blkperf

#endif  // BLKPERF_CLI_SPEC_FLAGS_H_
