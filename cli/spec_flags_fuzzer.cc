// Fuzzes the spec file path of `blkperf start/run` and `blkperfd run`:
// SpecFromJson (the protobuf JSON mapping) on arbitrary text, then
// SpecFromProto (wire/spec_convert.h) on what it accepted.
//
// Checks: a refusal of either is InvalidArgument with a message (the JSON
// one says it is not a WorkloadSpec in JSON); a spec SpecFromProto accepts
// converts back with SpecToProto to a message that converts to the same
// spec again (SpecFromProto(SpecToProto(s)) == s, compared as protos).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "cli/spec_flags.h"
#include "google/protobuf/util/message_differencer.h"
#include "proto/blkperf.pb.h"
#include "wire/spec_convert.h"

namespace blkperf {
namespace {

[[noreturn]] void Fail(const char* what, const absl::Status& status) {
  std::fprintf(stderr, "spec_flags_fuzzer: %s (%s)\n", what,
               status.ToString().c_str());
  std::abort();
}

void CheckOne(absl::string_view json) {
  v1::WorkloadSpec proto;
  const absl::Status parsed = SpecFromJson(json, &proto);
  if (!parsed.ok()) {
    if (!absl::IsInvalidArgument(parsed) ||
        !absl::StartsWith(parsed.message(),
                          "not a blkperf.v1.WorkloadSpec in JSON")) {
      Fail("unexpected JSON refusal", parsed);
    }
    return;
  }
  const absl::StatusOr<WorkloadSpec> spec = SpecFromProto(proto);
  if (!spec.ok()) {
    if (!absl::IsInvalidArgument(spec.status()) ||
        !absl::StartsWith(spec.status().message(), "spec.")) {
      Fail("refusal not InvalidArgument naming a spec field", spec.status());
    }
    return;
  }
  v1::WorkloadSpec full;
  SpecToProto(*spec, &full);
  const absl::StatusOr<WorkloadSpec> again = SpecFromProto(full);
  if (!again.ok()) Fail("SpecToProto output refused", again.status());
  v1::WorkloadSpec full_again;
  SpecToProto(*again, &full_again);
  if (!google::protobuf::util::MessageDifferencer::Equals(full, full_again)) {
    Fail("spec does not round-trip", absl::OkStatus());
  }
}

}  // namespace
}  // namespace blkperf

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  blkperf::CheckOne(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
