// Fuzzes ValidateSpecFields and ResolveSpec with WorkloadSpecs decoded from
// arbitrary bytes (a little reader below: each field takes the next bytes,
// missing bytes read as zero). Targets are never the input's paths: each
// names one of three files this fuzzer makes in its own temporary directory
// (empty, 4 KiB, 1 MiB, all sparse), a missing name there, or "". ResolveSpec
// only probes (opens read-only); nothing is written.
//
// Checks the contracts of spec_validation.h:
// - refusals are InvalidArgument, PermissionDenied or ResourceExhausted with
//   a message, and ResolveSpec refuses whatever ValidateSpecFields refuses,
//   with the same status;
// - an accepted spec is resolved: alignment, batches, threads and cpus
//   filled in and consistent, cpus online, one TargetInfo per target, no
//   target smaller than a block, buffers within the limits, writes only to
//   allow_write targets.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "daemon/engine/spec_validation.h"
#include "daemon/engine/workload_spec.h"

namespace blkperf {
namespace {

// Consumes the input front to back; past the end every value is 0.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint64_t Bytes(int n) {
    uint64_t value = 0;
    for (int i = 0; i < n; ++i) {
      value = (value << 8) | (pos_ < size_ ? data_[pos_++] : 0);
    }
    return value;
  }
  uint8_t U8() { return static_cast<uint8_t>(Bytes(1)); }
  uint32_t U32() { return static_cast<uint32_t>(Bytes(4)); }
  bool Bool() { return (U8() & 1) != 0; }
  // Small values are the interesting ones; a set top bit makes it wide.
  uint32_t Number() {
    const uint8_t first = U8();
    return (first & 0x80) != 0 ? U32() : first;
  }
  absl::Duration Millis() {
    return absl::Milliseconds(static_cast<int32_t>(U32()));
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// The fuzzer's own directory with three sparse files of these sizes.
constexpr uint64_t kFileSizes[] = {0, 4096, 1 << 20};

const std::string& TargetDir() {
  static const std::string* dir = [] {
    char pattern[] = "/tmp/spec_validation_fuzzer.XXXXXX";
    if (mkdtemp(pattern) == nullptr) std::abort();
    auto* path = new std::string(pattern);
    for (size_t i = 0; i < std::size(kFileSizes); ++i) {
      const std::string file = absl::StrCat(*path, "/f", i);
      FILE* f = std::fopen(file.c_str(), "w");
      if (f == nullptr || ftruncate(fileno(f), kFileSizes[i]) != 0) {
        std::abort();
      }
      std::fclose(f);
    }
    std::atexit([] {
      for (size_t i = 0; i < std::size(kFileSizes); ++i) {
        unlink(absl::StrCat(TargetDir(), "/f", i).c_str());
      }
      rmdir(TargetDir().c_str());
    });
    return path;
  }();
  return *dir;
}

std::string TargetPath(uint8_t choice) {
  switch (choice % 5) {
    case 0: case 1: case 2:
      return absl::StrCat(TargetDir(), "/f", choice % 5);
    case 3:
      return absl::StrCat(TargetDir(), "/missing");
    default:
      return "";
  }
}

SplitStrategy Split(ByteReader& in) {
  SplitStrategy s;
  s.kind = static_cast<SplitStrategy::Kind>(in.U8() % 3);
  if (s.kind == SplitStrategy::Kind::kFixed) s.fixed_bytes = in.Number() * 512;
  return s;
}

WorkloadSpec Decode(ByteReader& in) {
  WorkloadSpec spec;
  const int targets = in.U8() % 5;
  for (int i = 0; i < targets; ++i) {
    TargetSpec t;
    t.path = TargetPath(in.U8());
    t.create_size = in.Bool() ? in.Number() : 0;
    t.allow_write = in.Bool();
    spec.targets.push_back(t);
  }
  spec.op = static_cast<Op>(in.U8() % 5);
  spec.read_percent = in.Number();
  spec.block_size = in.Number() << (in.U8() % 24);
  spec.alignment = in.Number();
  spec.queue_depth = in.Number();
  spec.submit_batch = in.Number();
  spec.complete_batch = in.Number();
  spec.threads = in.Number();
  const int cpus = in.U8() % 6;
  for (int i = 0; i < cpus; ++i) spec.cpus.push_back(static_cast<int8_t>(in.U8()));
  spec.runtime = in.Millis();
  spec.io_count = in.Number();
  spec.ramp_time = in.Millis();
  spec.direct = in.Bool();
  spec.polled = static_cast<PollMode>(in.U8() % 3);
  spec.sqpoll = in.Bool();
  spec.sqpoll_cpu = static_cast<int8_t>(in.U8());
  spec.verify = in.Bool();
  spec.split = Split(in);
  const int ab = in.U8() % 4;
  for (int i = 0; i < ab; ++i) spec.ab_strategies.push_back(Split(in));
  spec.ab_slice = in.Millis();
  return spec;
}

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "spec_validation_fuzzer: %s\n", what.c_str());
  std::abort();
}

void CheckRefusal(const absl::Status& status) {
  if (!absl::IsInvalidArgument(status) && !absl::IsPermissionDenied(status) &&
      !absl::IsResourceExhausted(status)) {
    Fail(absl::StrCat("unexpected status ", status.ToString()));
  }
  if (status.message().empty()) Fail("refusal without a message");
}

void CheckResolved(const ResolvedSpec& r, const EngineLimits& limits) {
  const WorkloadSpec& s = r.spec;
  const std::vector<int> online = OnlineCpus();
  if (s.alignment == 0) Fail("alignment left 0");
  if (s.submit_batch == 0 || s.submit_batch > s.queue_depth ||
      s.complete_batch == 0 || s.complete_batch > s.queue_depth) {
    Fail(absl::StrCat("batches ", s.submit_batch, "/", s.complete_batch,
                      " for queue_depth ", s.queue_depth));
  }
  if (s.threads == 0 || s.threads != s.cpus.size()) {
    Fail(absl::StrCat("threads ", s.threads, " for ", s.cpus.size(), " cpus"));
  }
  for (int cpu : s.cpus) {
    if (std::find(online.begin(), online.end(), cpu) == online.end()) {
      Fail(absl::StrCat("cpu ", cpu, " is not online"));
    }
  }
  if (r.targets.size() != s.targets.size()) Fail("a target was not probed");
  if (r.min_target_bytes < s.block_size) {
    Fail(absl::StrCat("a target of ", r.min_target_bytes,
                      " bytes is smaller than block_size ", s.block_size));
  }
  if (uint64_t{s.threads} * s.queue_depth * s.block_size >
      limits.max_buffer_bytes) {
    Fail("buffers exceed max_buffer_bytes");
  }
  for (const TargetSpec& t : s.targets) {
    if (r.writes && !t.allow_write) Fail("writes to a target without allow_write");
  }
}

void CheckOne(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  const WorkloadSpec spec = Decode(in);
  EngineLimits limits;
  const absl::Status fields = ValidateSpecFields(spec, limits);
  const absl::StatusOr<ResolvedSpec> resolved = ResolveSpec(spec, limits);
  if (!fields.ok()) {
    CheckRefusal(fields);
    if (resolved.status() != fields) {
      Fail(absl::StrCat("ValidateSpecFields: ", fields.ToString(),
                        " but ResolveSpec: ", resolved.status().ToString()));
    }
    return;
  }
  if (!resolved.ok()) {
    if (absl::IsNotFound(resolved.status())) return;  // not a spec error
    CheckRefusal(resolved.status());
    return;
  }
  CheckResolved(*resolved, limits);
}

}  // namespace
}  // namespace blkperf

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  blkperf::CheckOne(data, size);
  return 0;
}
