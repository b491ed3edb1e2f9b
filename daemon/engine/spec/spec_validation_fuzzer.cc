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
// - an accepted spec is resolved: alignment, batches (per job group),
//   threads and cpus filled in and consistent, cpus online, one TargetInfo
//   per target, no target smaller than the largest block, buffers within
//   the limits, writes only to allow_write targets.
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
#include "daemon/engine/spec/shape_validation.h"
#include "daemon/engine/spec/spec_validation.h"
#include "model/workload_spec.h"

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

std::vector<BlockSizeShare> Mix(ByteReader& in) {
  std::vector<BlockSizeShare> mix;
  const int n = in.U8() % 4;
  for (int i = 0; i < n; ++i) {
    mix.push_back({.block_size = in.Number() * 512, .percent = in.Number()});
  }
  return mix;
}

// The shape fields, after all the others (an input without them keeps
// every shape default: zero bytes decode to the defaults).
void DecodeShape(ByteReader& in, WorkloadSpec* spec) {
  spec->distribution.kind =
      static_cast<OffsetDistribution::Kind>(in.U8() % 4);
  spec->distribution.param = in.Number() / 16.0;
  spec->random_percent = 100 - in.Number() % 102;  // 0 -> the default 100
  spec->read_bssplit = Mix(in);
  spec->write_bssplit = Mix(in);
  spec->rate_iops = in.Number();
  spec->rate_bw = in.Bool() ? in.Number() * 4096ull : 0;
  spec->arrivals = static_cast<Arrivals>(in.U8() % 2);
  spec->fsync_every = in.Number() % 8;
  spec->fdatasync_every = in.Number() % 8;
  const int groups = in.U8() % 4;
  for (int i = 0; i < groups; ++i) {
    JobGroupSpec g;
    if (in.Bool()) g.name = absl::StrCat("g", in.U8());
    const int cpus = in.U8() % 3;
    for (int c = 0; c < cpus; ++c) g.cpus.push_back(in.U8() % 4);
    if (in.Bool()) g.op = static_cast<Op>(in.U8() % 7);
    if (in.Bool()) g.queue_depth = in.Number();
    if (in.Bool()) g.block_size = in.Number() * 512;
    if (in.Bool()) g.read_bssplit = Mix(in);
    if (in.Bool()) g.rate_iops = in.Number();
    spec->groups.push_back(std::move(g));
  }
  spec->slo.enabled = in.Bool();
  spec->slo.target.percentile = in.U8() % 101;
  spec->slo.target.bound = absl::Microseconds(in.Number());
  spec->slo.precision = in.U8() / 256.0;
  spec->slo.step = in.Millis();
  spec->slo.settle = in.Millis();
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
  spec.op = static_cast<Op>(in.U8() % 7);
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
  DecodeShape(in, &spec);
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
  // Every group's batches fit its own queue.
  uint32_t group_threads = 0;
  for (const GroupShape& g : r.groups) {
    if (g.alignment == 0) Fail("a group's alignment left 0");
    if (g.submit_batch == 0 || g.submit_batch > g.queue_depth ||
        g.complete_batch == 0 || g.complete_batch > g.queue_depth) {
      Fail(absl::StrCat("batches ", g.submit_batch, "/", g.complete_batch,
                        " for queue_depth ", g.queue_depth));
    }
    if (g.first_thread != group_threads) Fail("groups' threads overlap");
    group_threads += g.threads;
  }
  if (group_threads != s.threads || r.thread_group.size() != s.threads) {
    Fail(absl::StrCat(group_threads, " group threads for ", s.threads));
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
  if (r.min_target_bytes < r.max_block_size) {
    Fail(absl::StrCat("a target of ", r.min_target_bytes,
                      " bytes is smaller than the largest block ",
                      r.max_block_size));
  }
  if (internal::GroupBufferBytes(r.groups) > limits.max_buffer_bytes) {
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
