#include "cli/spec_flags.h"

#include <unistd.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "base/units.h"
#include "cli/internal/flag_values.h"
#include "model/workload_spec.h"
#include "google/protobuf/util/json_util.h"

// Every flag maps to the WorkloadSpec field in its help text.
ABSL_FLAG(std::string, spec_file, "",
          "JSON file with a blkperf.v1.WorkloadSpec (protobuf JSON mapping); "
          "spec flags given too override its fields");
ABSL_FLAG(std::vector<std::string>, target, {},
          "targets: comma-separated block devices or regular files");
ABSL_FLAG(std::optional<std::string>, op, std::nullopt,
          "op: read, write, randread, randwrite, randrw, trim, randtrim "
          "(default randread)");
ABSL_FLAG(std::optional<uint32_t>, read_percent, std::nullopt,
          "read_percent: randrw reads in percent (default 50)");
ABSL_FLAG(std::optional<std::string>, bs, std::nullopt,
          "block_size: bytes per I/O, k/m suffixes (default 4k)");
ABSL_FLAG(std::optional<std::string>, alignment, std::nullopt,
          "alignment: offset alignment, 0 = bs");
ABSL_FLAG(std::optional<uint32_t>, qd, std::nullopt,
          "queue_depth: I/Os in flight per thread (default 32)");
ABSL_FLAG(std::optional<uint32_t>, submit_batch, std::nullopt,
          "submit_batch: SQEs per submit, 0 = min(32, qd)");
ABSL_FLAG(std::optional<uint32_t>, complete_batch, std::nullopt,
          "complete_batch: CQEs waited for, 0 = min(32, qd)");
ABSL_FLAG(std::optional<uint32_t>, threads, std::nullopt,
          "threads: submitter threads, 0 = one per --cpus entry");
ABSL_FLAG(std::optional<std::string>, cpus, std::nullopt,
          "cpus: CPUs to pin threads to, e.g. 0-3,6");
ABSL_FLAG(std::optional<absl::Duration>, runtime, std::nullopt,
          "runtime: measured time, e.g. 10s (default 10s)");
ABSL_FLAG(std::optional<uint64_t>, io_count, std::nullopt,
          "io_count: total I/Os to measure, 0 = no limit");
ABSL_FLAG(std::optional<absl::Duration>, ramp, std::nullopt,
          "ramp_time: unmeasured warm-up time");
ABSL_FLAG(std::optional<absl::Duration>, series_interval, std::nullopt,
          "series_interval: one time-series point per this much measured "
          "time (default 1s)");
ABSL_FLAG(std::optional<std::string>, steady_state, std::nullopt,
          "steady_state.criterion: METRIC:LIMIT checked on the series, e.g. "
          "iops:5% (iops, bw, lat, p99 and their *_slope forms; "
          "docs/results.md)");
ABSL_FLAG(std::optional<absl::Duration>, steady_state_window, std::nullopt,
          "steady_state.window: the window checked (default 30s)");
ABSL_FLAG(std::optional<absl::Duration>, steady_state_check, std::nullopt,
          "steady_state.check: how often the window is checked (default "
          "every series interval)");
ABSL_FLAG(std::optional<std::string>, steady_state_mode, std::nullopt,
          "steady_state.mode: stop (end the run once attained, the default) "
          "or gate (measure only from attainment)");
ABSL_FLAG(std::optional<std::string>, precondition, std::nullopt,
          "precondition: sequential:N writes every target N times (1..16) "
          "in sequential 128 KiB writes before the workload (SNIA PTS's "
          "workload-independent preconditioning; needs --allow_write); "
          "none: no preconditioning");
ABSL_FLAG(bool, direct, true, "direct: O_DIRECT");
ABSL_FLAG(std::optional<uint64_t>, seed, std::nullopt, "seed: random seed");
ABSL_FLAG(bool, fixed_buffers, true, "fixed_buffers: register I/O buffers");
ABSL_FLAG(bool, registered_files, true, "registered_files: register files");
ABSL_FLAG(bool, vectored, false,
          "vectored: READV/WRITEV with an iovec (needs --nofixed_buffers)");
ABSL_FLAG(bool, nop, false,
          "nop: no device, every I/O an IORING_OP_NOP (t/io_uring -N1); "
          "give no --target");
ABSL_FLAG(std::optional<std::string>, buffer_layout, std::nullopt,
          "buffer_layout: per_slot, one_region or auto (default auto: "
          "one_region where queue_depth x block_size <= 1 GiB)");
ABSL_FLAG(std::optional<std::string>, huge_pages, std::nullopt,
          "huge_pages: off, on, auto (default auto)");
ABSL_FLAG(std::optional<std::string>, polled, std::nullopt,
          "polled: off, on, auto (default off)");
ABSL_FLAG(bool, sqpoll, false, "sqpoll: kernel submission polling thread");
ABSL_FLAG(std::optional<int32_t>, sqpoll_cpu, std::nullopt,
          "sqpoll_cpu: CPU of the SQPOLL thread, -1 = any");
ABSL_FLAG(std::optional<std::string>, request_cache, std::nullopt,
          "request_cache: per_cpu (also spelled percpu) or shared "
          "(default per_cpu, the spec field's name)");
ABSL_FLAG(bool, latency_tracking, true, "latency_tracking: time every I/O");
ABSL_FLAG(std::optional<std::string>, latency_mode, std::nullopt,
          "latency_mode: batch (reap complete_batch at a time, t/io_uring) "
          "or per_io (reap completions as they arrive; exact per-I/O "
          "latency, more enters). Default batch");
ABSL_FLAG(std::optional<absl::Duration>, io_timeout, std::nullopt,
          "io_timeout: an I/O outstanding longer fails the workload; 0 = off "
          "(default 30s)");
ABSL_FLAG(bool, verify, false,
          "verify: write self-describing blocks and check every read");
ABSL_FLAG(bool, verify_pass, false,
          "verify_pass: with verify, read every block once and stop");
ABSL_FLAG(bool, verify_dump, false,
          "verify_dump: with verify, save the first bad blocks to the data "
          "directory");
ABSL_FLAG(bool, continue_on_error, false,
          "continue_on_error: count I/O errors and keep going");
ABSL_FLAG(bool, allow_write, false,
          "targets[].allow_write: allow writing every target");
ABSL_FLAG(std::vector<std::string>, create_size, {},
          "targets[].create_size: create/fill file targets to this size "
          "(k/m/g); one value for all targets or one per target");
ABSL_FLAG(std::optional<std::string>, split, std::nullopt,
          "split: none, limits or fixed:<bytes> (default none)");
ABSL_FLAG(bool, force_async, false,
          "force_async: IOSQE_ASYNC on every SQE, straight to io-wq workers");

namespace blkperf {
namespace {

using internal::BadFlag;
using internal::OpFromText;
using internal::ParseEnumFlag;
using internal::SetDuration;

// The flags SpecFromFlagsWithOverrides sets: given, whatever their values.
std::vector<std::string> forced_flags;

// Bool flags cannot be "unset": a bool counts as given when it differs from
// its default (so --direct=true cannot override a spec file's false).
bool BoolChanged(absl::string_view name) {
  for (const std::string& forced : forced_flags) {
    if (name == forced) return true;
  }
  const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  return flag != nullptr && flag->CurrentValue() != flag->DefaultValue();
}

absl::StatusOr<std::string> Absolute(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--target=", path,
                     ": relative, and the working "
                     "directory is unknown"));
  }
  return absl::StrCat(cwd, "/", path);
}

}  // namespace

absl::StatusOr<uint64_t> ParseSizeFlag(absl::string_view text,
                                       absl::string_view flag) {
  uint64_t bytes = 0;
  if (!ParseSize(text, &bytes)) {
    return BadFlag(flag, text, "not a size (e.g. 4096, 4k, 1m, 2g)");
  }
  return bytes;
}

absl::StatusOr<std::vector<int>> ParseCpuList(absl::string_view text,
                                              absl::string_view flag) {
  std::vector<int> cpus;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::vector<absl::string_view> ends = absl::StrSplit(part, '-');
    int lo = 0, hi = 0;
    if (ends.size() > 2 || !absl::SimpleAtoi(ends[0], &lo) ||
        (ends.size() == 2 && !absl::SimpleAtoi(ends[1], &hi)) || lo < 0) {
      return BadFlag(flag, text, "not a CPU list (e.g. 0-3,6)");
    }
    if (ends.size() == 1) hi = lo;
    if (hi < lo) return BadFlag(flag, text, "a range runs backwards");
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

namespace {

// Shapes the protobuf JSON parser would accept but flatten or misread: an
// array directly inside an array ({"targets":[[]]} parses as one default
// target), and nesting deeper than any WorkloadSpec has. One pass, no
// allocation, before the parser sees the text.
absl::Status CheckJsonShape(absl::string_view json) {
  // '[' or '{' per open level; a WorkloadSpec nests 3 deep at most.
  char open[kMaxSpecJsonDepth];
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (c == '[' && depth > 0 && open[depth - 1] == '[') {
        return absl::InvalidArgumentError(absl::StrCat(
            "an array inside an array at byte ", i,
            ": no WorkloadSpec field is an array of arrays"));
      }
      if (depth == kMaxSpecJsonDepth) {
        return absl::InvalidArgumentError(absl::StrCat(
            "nested deeper than ", kMaxSpecJsonDepth, " levels at byte ", i,
            ": no WorkloadSpec is"));
      }
      open[depth++] = c;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SpecFromJson(absl::string_view json, v1::WorkloadSpec* spec) {
  if (json.size() > kMaxSpecJsonBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("is ", json.size(), " bytes, over the limit of ",
                     kMaxSpecJsonBytes, " for a spec"));
  }
  if (absl::Status shape = CheckJsonShape(json); !shape.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not a blkperf.v1.WorkloadSpec in JSON: ", shape.message()));
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(
      std::string(json), spec, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a blkperf.v1.WorkloadSpec in JSON: ",
                     status.message().as_string()));
  }
  return absl::OkStatus();
}

namespace {

absl::StatusOr<std::string> ReadSpecFile(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return BadFlag("spec_file", file, "cannot be read");
  // Read at most one byte past the limit: a huge file costs no memory.
  std::string text(kMaxSpecJsonBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxSpecJsonBytes) {
    return BadFlag("spec_file", file,
                   absl::StrCat("is larger than the limit of ",
                                kMaxSpecJsonBytes, " bytes for a spec"));
  }
  return text;
}

}  // namespace

JsonMemberCut CutTopLevelMember(absl::string_view json, absl::string_view key) {
  JsonMemberCut cut;
  cut.rest = std::string(json);
  int depth = 0;
  bool in_string = false;
  size_t string_start = 0;
  // The last string closed at depth 1 (a key when a ':' follows it).
  absl::string_view last_string;
  size_t last_string_start = 0;
  bool string_last = false;
  size_t last_comma = absl::string_view::npos;  // at depth 1, before the key
  size_t key_start = absl::string_view::npos;
  size_t value_start = absl::string_view::npos;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
        if (depth == 1) {
          last_string = json.substr(string_start + 1, i - string_start - 1);
          last_string_start = string_start;
          string_last = true;
        }
      }
      continue;
    }
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) continue;
    const bool after_string = string_last;
    string_last = false;
    if (c == '"') {
      in_string = true;
      string_start = i;
    } else if (c == ':' && depth == 1 && after_string &&
               value_start == absl::string_view::npos && last_string == key) {
      key_start = last_string_start;
      value_start = i + 1;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == ',' && depth == 1) || ((c == '}' || c == ']') && depth == 1)) {
      if (value_start != absl::string_view::npos) {
        cut.found = true;
        cut.value = std::string(absl::StripAsciiWhitespace(
            json.substr(value_start, i - value_start)));
        if (c == ',') {  // "key": value, ... : the comma after goes
          cut.rest = absl::StrCat(json.substr(0, key_start),
                                  absl::StripLeadingAsciiWhitespace(json.substr(i + 1)));
        } else if (last_comma != absl::string_view::npos) {  // ..., "key": value}
          cut.rest = absl::StrCat(json.substr(0, last_comma), json.substr(i));
        } else {  // {"key": value}
          cut.rest = absl::StrCat(json.substr(0, key_start), json.substr(i));
        }
        return cut;
      }
      if (c == ',') last_comma = i;
      if (c != ',') --depth;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return cut;
}

absl::StatusOr<std::string> SpecFileExperimentJson() {
  const std::string file = absl::GetFlag(FLAGS_spec_file);
  if (file.empty()) return std::string();
  absl::StatusOr<std::string> text = ReadSpecFile(file);
  if (!text.ok()) return text.status();
  return CutTopLevelMember(*text, "experiment").value;
}

absl::StatusOr<v1::WorkloadSpec> SpecFromFlags() {
  return SpecFromFlagsOnto(v1::WorkloadSpec());
}

namespace {

// --spec_file: the spec the other flags start from.
absl::Status ApplySpecFile(v1::WorkloadSpec* spec) {
  if (const std::string file = absl::GetFlag(FLAGS_spec_file); !file.empty()) {
    absl::StatusOr<std::string> text = ReadSpecFile(file);
    if (!text.ok()) return text.status();
    // The experiment's arms are the experiment's (SpecFileExperimentJson).
    const JsonMemberCut cut = CutTopLevelMember(*text, "experiment");
    absl::Status parsed = SpecFromJson(cut.rest, spec);
    if (!parsed.ok()) return BadFlag("spec_file", file, parsed.message());
  }
  return absl::OkStatus();
}

// --target, --allow_write, --create_size.
absl::Status ApplyTargetFlags(v1::WorkloadSpec* spec) {
  const std::vector<std::string> targets = absl::GetFlag(FLAGS_target);
  if (!targets.empty()) {
    spec->clear_targets();
    for (const std::string& path : targets) {
      absl::StatusOr<std::string> absolute = Absolute(path);
      if (!absolute.ok()) return absolute.status();
      spec->add_targets()->set_path(*absolute);
    }
  }
  if (BoolChanged("allow_write")) {
    for (v1::TargetSpec& t : *spec->mutable_targets()) {
      t.set_allow_write(absl::GetFlag(FLAGS_allow_write));
    }
  }
  const std::vector<std::string> sizes = absl::GetFlag(FLAGS_create_size);
  if (!sizes.empty()) {
    if (sizes.size() != 1 &&
        sizes.size() != static_cast<size_t>(spec->targets_size())) {
      return BadFlag("create_size", absl::StrJoin(sizes, ","),
                     absl::StrCat("give one size or one per target (",
                                  spec->targets_size(), " targets)"));
    }
    for (int i = 0; i < spec->targets_size(); ++i) {
      absl::StatusOr<uint64_t> size =
          ParseSizeFlag(sizes[sizes.size() == 1 ? 0 : i], "create_size");
      if (!size.ok()) return size.status();
      spec->mutable_targets(i)->set_create_size(*size);
    }
  }
  return absl::OkStatus();
}

// What each I/O is and how many are in flight: --op to --cpus.
absl::Status ApplyIoFlags(v1::WorkloadSpec* spec) {
  if (auto op = absl::GetFlag(FLAGS_op)) {
    BLKPERF_ASSIGN_OR_RETURN(v1::Op value, OpFromText("op", *op));
    spec->set_op(value);
  }
  if (auto v = absl::GetFlag(FLAGS_read_percent)) spec->set_read_percent(*v);
  if (auto v = absl::GetFlag(FLAGS_bs)) {
    absl::StatusOr<uint64_t> size = ParseSizeFlag(*v, "bs");
    if (!size.ok()) return size.status();
    if (*size > UINT32_MAX) return BadFlag("bs", *v, "too large");
    spec->set_block_size(static_cast<uint32_t>(*size));
  }
  if (auto v = absl::GetFlag(FLAGS_alignment)) {
    absl::StatusOr<uint64_t> size = ParseSizeFlag(*v, "alignment");
    if (!size.ok()) return size.status();
    if (*size > UINT32_MAX) return BadFlag("alignment", *v, "too large");
    spec->set_alignment(static_cast<uint32_t>(*size));
  }
  if (auto v = absl::GetFlag(FLAGS_qd)) spec->set_queue_depth(*v);
  if (auto v = absl::GetFlag(FLAGS_submit_batch)) spec->set_submit_batch(*v);
  if (auto v = absl::GetFlag(FLAGS_complete_batch)) {
    spec->set_complete_batch(*v);
  }
  if (auto v = absl::GetFlag(FLAGS_threads)) spec->set_threads(*v);
  if (auto v = absl::GetFlag(FLAGS_cpus)) {
    absl::StatusOr<std::vector<int>> cpus = ParseCpuList(*v, "cpus");
    if (!cpus.ok()) return cpus.status();
    spec->clear_cpus();
    for (int cpu : *cpus) spec->add_cpus(cpu);
  }
  return absl::OkStatus();
}

// --steady_state and its window, check and mode (the criterion and the
// durations are checked by the daemon, naming spec.steady_state.<field>).
absl::Status ApplySteadyStateFlags(v1::WorkloadSpec* spec) {
  const std::optional<std::string> criterion =
      absl::GetFlag(FLAGS_steady_state);
  const bool others = absl::GetFlag(FLAGS_steady_state_window) ||
                      absl::GetFlag(FLAGS_steady_state_check) ||
                      absl::GetFlag(FLAGS_steady_state_mode);
  if (!criterion && !others) return absl::OkStatus();
  if (criterion && criterion->empty()) {
    spec->clear_steady_state();  // --steady_state= drops a spec file's
    return absl::OkStatus();
  }
  if (!criterion && !spec->has_steady_state()) {
    return absl::InvalidArgumentError(
        "--steady_state_window, --steady_state_check and "
        "--steady_state_mode need --steady_state=METRIC:LIMIT");
  }
  v1::SteadyStateSpec* ss = spec->mutable_steady_state();
  if (criterion) ss->set_criterion(*criterion);
  if (auto v = absl::GetFlag(FLAGS_steady_state_window)) {
    SetDuration(*v, ss->mutable_window());
  }
  if (auto v = absl::GetFlag(FLAGS_steady_state_check)) {
    SetDuration(*v, ss->mutable_check());
  }
  if (auto v = absl::GetFlag(FLAGS_steady_state_mode)) {
    if (*v == "stop") {
      ss->set_mode(v1::STEADY_STATE_MODE_STOP);
    } else if (*v == "gate") {
      ss->set_mode(v1::STEADY_STATE_MODE_GATE);
    } else {
      return BadFlag("steady_state_mode", *v, "is stop or gate");
    }
  }
  return absl::OkStatus();
}

// How long: --runtime, --io_count, --ramp, --series_interval.
absl::Status ApplyTimeFlags(v1::WorkloadSpec* spec) {
  if (auto v = absl::GetFlag(FLAGS_runtime)) {
    SetDuration(*v, spec->mutable_runtime());
  }
  if (auto v = absl::GetFlag(FLAGS_io_count)) {
    spec->set_io_count(*v);
    // An I/O count alone means "until done", not "10 s or done".
    if (*v != 0 && !spec->has_runtime()) spec->mutable_runtime();
  }
  if (auto v = absl::GetFlag(FLAGS_ramp))
    SetDuration(*v, spec->mutable_ramp_time());
  if (auto v = absl::GetFlag(FLAGS_series_interval)) {
    SetDuration(*v, spec->mutable_series_interval());
  }
  if (auto v = absl::GetFlag(FLAGS_precondition)) {
    if (*v == "none") {
      spec->clear_precondition();
      return ApplySteadyStateFlags(spec);
    }
    constexpr absl::string_view kForm = "sequential:";
    uint32_t passes = 0;
    if (!absl::StartsWith(*v, kForm) ||
        !absl::SimpleAtoi(absl::string_view(*v).substr(kForm.size()), &passes)) {
      return BadFlag("precondition", *v,
                     "not sequential:N (N full sequential 128 KiB write "
                     "passes, e.g. sequential:2) nor none");
    }
    if (passes < 1 || passes > kMaxPreconditionPasses) {
      return BadFlag("precondition", *v,
                     absl::StrCat("the pass count must be 1..",
                                  kMaxPreconditionPasses));
    }
    spec->mutable_precondition()->set_sequential_passes(passes);
  }
  return ApplySteadyStateFlags(spec);
}

// How the ring issues I/O: --direct to --latency_mode.
absl::Status ApplyRingFlags(v1::WorkloadSpec* spec) {
  if (BoolChanged("direct")) spec->set_direct(absl::GetFlag(FLAGS_direct));
  if (auto v = absl::GetFlag(FLAGS_seed)) spec->set_seed(*v);
  if (BoolChanged("fixed_buffers")) {
    spec->set_fixed_buffers(absl::GetFlag(FLAGS_fixed_buffers));
  }
  if (BoolChanged("registered_files")) {
    spec->set_registered_files(absl::GetFlag(FLAGS_registered_files));
  }
  if (BoolChanged("vectored")) {
    spec->set_vectored(absl::GetFlag(FLAGS_vectored));
  }
  if (BoolChanged("nop")) spec->set_nop(absl::GetFlag(FLAGS_nop));
  if (auto v = absl::GetFlag(FLAGS_buffer_layout)) {
    BLKPERF_ASSIGN_OR_RETURN(
        v1::BufferLayout layout,
        ParseEnumFlag("buffer_layout", *v, "BUFFER_LAYOUT_",
                      &v1::BufferLayout_Parse, "per_slot, one_region, auto"));
    spec->set_buffer_layout(layout);
  }
  if (auto v = absl::GetFlag(FLAGS_huge_pages)) {
    BLKPERF_ASSIGN_OR_RETURN(
        v1::HugePageMode mode,
        ParseEnumFlag("huge_pages", *v, "HUGE_PAGE_MODE_",
                      &v1::HugePageMode_Parse, "off, on, auto"));
    spec->set_huge_pages(mode);
  }
  if (auto v = absl::GetFlag(FLAGS_polled)) {
    BLKPERF_ASSIGN_OR_RETURN(
        v1::PollMode mode, ParseEnumFlag("polled", *v, "POLL_MODE_",
                                         &v1::PollMode_Parse, "off, on, auto"));
    spec->set_polled(mode);
  }
  if (BoolChanged("sqpoll")) spec->set_sqpoll(absl::GetFlag(FLAGS_sqpoll));
  if (auto v = absl::GetFlag(FLAGS_sqpoll_cpu)) spec->set_sqpoll_cpu(*v);
  if (auto v = absl::GetFlag(FLAGS_request_cache)) {
    const std::string name =
        absl::AsciiStrToLower(*v) == "percpu" ? "per_cpu" : *v;
    BLKPERF_ASSIGN_OR_RETURN(
        v1::RequestCacheMode mode,
        ParseEnumFlag("request_cache", name, "REQUEST_CACHE_MODE_",
                      &v1::RequestCacheMode_Parse,
                      "per_cpu (percpu), shared"));
    spec->set_request_cache(mode);
  }
  if (BoolChanged("latency_tracking")) {
    spec->set_latency_tracking(absl::GetFlag(FLAGS_latency_tracking));
  }
  if (auto v = absl::GetFlag(FLAGS_latency_mode)) {
    BLKPERF_ASSIGN_OR_RETURN(
        v1::LatencyMode mode,
        ParseEnumFlag("latency_mode", *v, "LATENCY_MODE_",
                      &v1::LatencyMode_Parse, "batch, per_io"));
    spec->set_latency_mode(mode);
  }
  return absl::OkStatus();
}

// Checks and strategies: --io_timeout to --force_async.
absl::Status ApplyCheckFlags(v1::WorkloadSpec* spec) {
  if (auto v = absl::GetFlag(FLAGS_io_timeout)) {
    if (*v < absl::ZeroDuration()) {
      return BadFlag("io_timeout", absl::FormatDuration(*v),
                     "must not be negative");
    }
    SetDuration(*v, spec->mutable_io_timeout());
  }
  if (BoolChanged("verify")) spec->set_verify(absl::GetFlag(FLAGS_verify));
  if (BoolChanged("verify_pass")) {
    spec->set_verify_pass(absl::GetFlag(FLAGS_verify_pass));
  }
  if (BoolChanged("verify_dump")) {
    spec->set_verify_dump(absl::GetFlag(FLAGS_verify_dump));
  }
  if (BoolChanged("continue_on_error")) {
    spec->set_continue_on_error(absl::GetFlag(FLAGS_continue_on_error));
  }
  if (auto v = absl::GetFlag(FLAGS_split)) spec->set_split(*v);
  if (BoolChanged("force_async")) {
    spec->set_force_async(absl::GetFlag(FLAGS_force_async));
  }
  // --ab and --ab_slice are experiment flags (experiment/flags.h): an
  // A/B schedule in a spec comes from the --spec_file's ab_strategies.
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::WorkloadSpec> SpecFromFlagsOnto(v1::WorkloadSpec base) {
  v1::WorkloadSpec spec = std::move(base);
  // In this order: a later flag overrides the spec file, and io_count
  // sees whether runtime was given.
  for (absl::Status (*apply)(v1::WorkloadSpec*) :
       {ApplySpecFile, ApplyTargetFlags, ApplyIoFlags, ApplyTimeFlags,
        ApplyRingFlags, ApplyCheckFlags, ShapeFromFlags}) {
    BLKPERF_RETURN_IF_ERROR(apply(&spec));
  }
  return spec;
}

namespace {

// Restores the flags an arm's overrides set, in reverse order, on scope
// exit; records the first flag that could not be restored.
class FlagRestorer {
 public:
  ~FlagRestorer() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      std::string error;
      it->first->ParseFrom(it->second, &error);
    }
    forced_flags.clear();
  }
  void Save(absl::CommandLineFlag* flag) {
    saved_.emplace_back(flag, flag->CurrentValue());
    forced_flags.push_back(std::string(flag->Name()));
  }

 private:
  std::vector<std::pair<absl::CommandLineFlag*, std::string>> saved_;
};

}  // namespace

absl::StatusOr<v1::WorkloadSpec> SpecFromFlagsWithOverrides(
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  FlagRestorer restorer;
  for (const auto& override_flag : overrides) {
    // Named, not a structured binding: clang 14 (the fuzz build) cannot
    // capture a binding in a lambda.
    const std::string& name = override_flag.first;
    const std::string& value = override_flag.second;
    const auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, "=", value, ": ", why));
    };
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    // A spec flag is one defined in this package's two flag files.
    const bool spec_flag =
        flag != nullptr &&
        (absl::EndsWith(flag->Filename(), "cli/spec_flags.cc") ||
         absl::EndsWith(flag->Filename(), "cli/shape_flags.cc"));
    if (!spec_flag) return bad("not a spec flag");
    for (absl::string_view own :
         {"runtime", "io_count", "ramp", "spec_file"}) {
      if (name == own) return bad("an experiment sets this field itself");
    }
    restorer.Save(flag);
    std::string error;
    if (!flag->ParseFrom(value, &error)) return bad(error);
  }
  return SpecFromFlags();
}

absl::StatusOr<v1::WorkloadSpec> SpecFromFlagsWith(absl::string_view name,
                                                   absl::string_view value) {
  absl::StatusOr<v1::WorkloadSpec> spec =
      SpecFromFlagsWithOverrides({{std::string(name), std::string(value)}});
  if (!spec.ok() && spec.status().code() == absl::StatusCode::kInvalidArgument &&
      absl::StartsWith(spec.status().message(),
                       absl::StrCat("--", name, "=", value, ": "))) {
    return absl::InvalidArgumentError(
        absl::StrCat("--vary=", spec.status().message().substr(2)));
  }
  return spec;
}

}  // namespace blkperf
