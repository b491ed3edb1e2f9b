#include "fio/import.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "google/protobuf/util/message_differencer.h"
#include "google/protobuf/util/time_util.h"
#include "model/steady_state.h"

namespace blkperf {
namespace {

absl::Status Refuse(const FioOption& o, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(o.Where(), " = '", o.value,
                                                 "': ", why));
}

// fio's sizes: a number with an optional k/m/g/t/p suffix, binary
// (kb_base=1024, fio's default), "KiB"/"KB" spellings included.
absl::StatusOr<uint64_t> ParseSize(const FioOption& o, absl::string_view text) {
  std::string t = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  for (absl::string_view unit : {"ib", "b"}) {
    if (t.size() > unit.size() + 1 && absl::EndsWith(t, unit) &&
        !absl::ascii_isdigit(t[t.size() - unit.size() - 1])) {
      t.resize(t.size() - unit.size());
      break;
    }
  }
  uint64_t scale = 1;
  if (!t.empty()) {
    const size_t pos = std::string("kmgtp").find(t.back());
    if (pos != std::string::npos) {
      scale = uint64_t{1} << (10 * (pos + 1));
      t.pop_back();
    }
  }
  uint64_t n = 0;
  if (!absl::SimpleAtoi(t, &n) || (n != 0 && scale > UINT64_MAX / n)) {
    return Refuse(o, "not a size (e.g. 4096, 4k, 1m)");
  }
  return n * scale;
}

absl::StatusOr<uint64_t> ParseCount(const FioOption& o) {
  uint64_t n = 0;
  if (!absl::SimpleAtoi(o.value, &n)) return Refuse(o, "not a whole number");
  return n;
}

absl::StatusOr<bool> ParseBool(const FioOption& o) {
  const std::string v = absl::AsciiStrToLower(o.value);
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  return Refuse(o, "not a boolean (0 or 1)");
}

// fio's times: plain numbers are seconds; else a number with a unit.
absl::StatusOr<absl::Duration> ParseTime(const FioOption& o) {
  uint64_t seconds = 0;
  if (absl::SimpleAtoi(o.value, &seconds)) return absl::Seconds(seconds);
  absl::Duration d;
  if (absl::ParseDuration(o.value, &d) && d >= absl::ZeroDuration()) return d;
  return Refuse(o, "not a time (e.g. 30, 30s, 500ms, 2m)");
}

google::protobuf::Duration ToProto(absl::Duration d) {
  return google::protobuf::util::TimeUtil::NanosecondsToDuration(
      absl::ToInt64Nanoseconds(d));
}

// "0-3,6" -> {0,1,2,3,6}.
absl::StatusOr<std::vector<int>> ParseCpus(const FioOption& o) {
  std::vector<int> cpus;
  for (absl::string_view part : absl::StrSplit(o.value, ',')) {
    std::vector<absl::string_view> range = absl::StrSplit(part, '-');
    int lo = 0, hi = 0;
    if (range.size() > 2 || !absl::SimpleAtoi(range[0], &lo) ||
        !absl::SimpleAtoi(range.back(), &hi) || lo < 0 || hi < lo ||
        hi - lo > 4096) {
      return Refuse(o, "not a CPU list (e.g. 0-3,6)");
    }
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

// Per-direction values "R,W[,T]" of fio: the read and write parts (a
// single value stands for both). A trim part must equal the write part.
absl::StatusOr<std::pair<std::string, std::string>> ReadWriteParts(
    const FioOption& o) {
  std::vector<std::string> parts = absl::StrSplit(o.value, ',');
  if (parts.size() == 1) return std::make_pair(parts[0], parts[0]);
  if (parts.size() == 3 && parts[2] != parts[1]) {
    return Refuse(o, "a trim value different from the write value is not "
                     "supported (blkperf's trims take the write setting)");
  }
  if (parts.size() > 3) return Refuse(o, "more than three directions");
  return std::make_pair(parts[0], parts[1].empty() ? parts[0] : parts[1]);
}

absl::StatusOr<std::vector<v1::BlockSizeShare>> ParseBssplit(
    const FioOption& o, absl::string_view text) {
  std::vector<v1::BlockSizeShare> shares;
  uint32_t total = 0;
  for (absl::string_view item : absl::StrSplit(text, ':')) {
    std::vector<absl::string_view> kv = absl::StrSplit(item, '/');
    uint32_t percent = 0;
    if (kv.size() != 2 || !absl::SimpleAtoi(kv[1], &percent)) {
      return Refuse(o, "each entry must be SIZE/PERCENT (an empty percent, "
                       "fio's 'the rest', is not supported)");
    }
    absl::StatusOr<uint64_t> size = ParseSize(o, kv[0]);
    if (!size.ok()) return size.status();
    if (*size == 0 || *size > UINT32_MAX) return Refuse(o, "block size out of range");
    v1::BlockSizeShare share;
    share.set_block_size(static_cast<uint32_t>(*size));
    share.set_percent(percent);
    shares.push_back(share);
    total += percent;
  }
  if (total != 100) return Refuse(o, "percentages do not add up to 100");
  return shares;
}

// Everything one job section (with the [global] options before it) says.
struct Job {
  std::string name;
  const FioSection* section = nullptr;
  v1::WorkloadSpec spec;  // shape and workload-wide fields
  uint32_t numjobs = 1;
  std::vector<int> cpus_allowed;
  const FioOption* cpus_allowed_option = nullptr;
  bool cpus_split = false;
  bool time_based = false;
  const FioOption* runtime = nullptr;
  std::optional<uint64_t> size;
  const FioOption* size_option = nullptr;
  std::string directory;
  std::vector<std::string> filenames;
  bool ioengine_given = false;
  bool fixedbufs = false, registerfiles = false, nonvectored = true;
  uint64_t rate_iops = 0, rate_bw = 0;
  bool writes = false;
  // steadystate (ss), ss_dur, ss_interval: checked together at the end.
  const FioOption* ss = nullptr;
  const FioOption* ss_dur = nullptr;
  const FioOption* ss_interval = nullptr;
  bool ss_slope = false;
};

// Options that cannot change the I/O issued: dropped with --fio_job_lenient.
bool OutputOnly(absl::string_view key) {
  static const char* const kKeys[] = {
      "description", "write_bw_log", "write_iops_log", "write_lat_log",
      "write_hist_log", "log_avg_msec", "log_hist_msec", "log_hist_coarseness",
      "log_max_value", "per_job_logs", "log_offset", "log_prio",
      "log_compression", "log_store_compressed", "log_unix_epoch",
      "log_alternate_epoch", "output", "output-format", "eta",
      "eta_newline", "eta_interval", "status-interval", "clat_percentiles",
      "lat_percentiles", "slat_percentiles", "significant_figures",
      "unified_rw_reporting", "disable_lat", "disable_clat", "disable_slat",
      "disable_bw_measurement", "stats", "gtod_reduce", "bwavgtime",
      "iopsavgtime"};
  for (const char* k : kKeys) {
    if (key == k) return true;
  }
  return false;
}

// fio's log options blkperf writes (docs/fio.md); the other log_* options
// only change fio's output (OutputOnly).
bool IsLogOption(absl::string_view key) {
  return key == "write_iops_log" || key == "write_bw_log" ||
         key == "write_lat_log" || key == "write_hist_log" ||
         key == "log_avg_msec" || key == "log_hist_msec";
}

// The log options seen, for the checks once the whole file is read.
struct LogOptionsSeen {
  std::vector<const FioOption*> averaged;  // write_iops/bw/lat_log
  const FioOption* histogram = nullptr;    // write_hist_log
};

// One log option into `logs`. A write_*_log without a name (bare, "1")
// takes its job's name, as fio's; one log of each kind per run.
absl::Status ApplyLogOption(const FioOption& o, const std::string& section,
                            FioLogOptions* logs, LogOptionsSeen* seen) {
  if (o.key == "log_avg_msec" || o.key == "log_hist_msec") {
    int64_t ms = 0;
    if (!absl::SimpleAtoi(o.value, &ms) || ms < 0) {
      return Refuse(o, "not a whole number of milliseconds");
    }
    (o.key == "log_avg_msec" ? logs->log_avg_msec : logs->log_hist_msec) = ms;
    return absl::OkStatus();
  }
  std::string name = o.value;
  if (name.empty() || name == "1") {
    if (section == "global") {
      return Refuse(o, "a log without a name takes its job's name: give it "
                       "one in [global]");
    }
    name = section;
  }
  std::string* prefix = o.key == "write_iops_log"  ? &logs->iops_prefix
                        : o.key == "write_bw_log"  ? &logs->bw_prefix
                        : o.key == "write_lat_log" ? &logs->lat_prefix
                                                   : &logs->hist_prefix;
  if (!prefix->empty() && *prefix != name) {
    return Refuse(o, absl::StrCat("blkperf writes one log of each kind per "
                                  "run, and another job named it '",
                                  *prefix, "'"));
  }
  *prefix = name;
  if (o.key == "write_hist_log") {
    seen->histogram = &o;
  } else {
    seen->averaged.push_back(&o);
  }
  return absl::OkStatus();
}

// fio's per-I/O logs (log_avg_msec / log_hist_msec 0, fio's default) need
// per-I/O samples blkperf does not keep: refused naming the log option, or
// dropped and listed with `lenient`.
absl::Status CheckLogWindows(const LogOptionsSeen& seen, bool lenient,
                             FioImport* out) {
  FioLogOptions& logs = out->logs;
  if (!seen.averaged.empty() && logs.log_avg_msec == 0) {
    if (!lenient) {
      return Refuse(*seen.averaged.front(),
                    "fio's per-I/O log (no log_avg_msec) is not supported: "
                    "blkperf logs windows; set log_avg_msec");
    }
    for (const FioOption* o : seen.averaged) out->dropped.push_back(o->Where());
    logs.iops_prefix.clear();
    logs.bw_prefix.clear();
    logs.lat_prefix.clear();
  }
  if (seen.histogram != nullptr && logs.log_hist_msec == 0) {
    if (!lenient) {
      return Refuse(*seen.histogram,
                    "needs log_hist_msec (blkperf logs windows)");
    }
    out->dropped.push_back(seen.histogram->Where());
    logs.hist_prefix.clear();
  }
  return absl::OkStatus();
}

absl::Status ApplyOp(const FioOption& o, Job* job) {
  static const std::map<std::string, v1::Op> kOps = {
      {"read", v1::OP_READ},         {"write", v1::OP_WRITE},
      {"randread", v1::OP_RANDREAD}, {"randwrite", v1::OP_RANDWRITE},
      {"randrw", v1::OP_RANDRW},     {"trim", v1::OP_TRIM},
      {"randtrim", v1::OP_RANDTRIM}};
  auto it = kOps.find(o.value);
  if (it == kOps.end()) {
    return Refuse(o, "blkperf runs read, write, randread, randwrite, randrw, "
                     "trim and randtrim (no sequential mix, no ':N' sequencer)");
  }
  job->spec.set_op(it->second);
  job->writes = it->second != v1::OP_READ && it->second != v1::OP_RANDREAD;
  return absl::OkStatus();
}

absl::Status ApplyBlockSize(const FioOption& o, Job* job) {
  if (o.value.find('-') != std::string::npos) {
    return Refuse(o, "block size ranges (bsrange) are not supported; use bssplit");
  }
  absl::StatusOr<std::pair<std::string, std::string>> rw = ReadWriteParts(o);
  if (!rw.ok()) return rw.status();
  absl::StatusOr<uint64_t> r = ParseSize(o, rw->first);
  if (!r.ok()) return r.status();
  absl::StatusOr<uint64_t> w = ParseSize(o, rw->second);
  if (!w.ok()) return w.status();
  if (*r == 0 || *r > UINT32_MAX || *w == 0 || *w > UINT32_MAX) {
    return Refuse(o, "block size out of range");
  }
  job->spec.set_block_size(static_cast<uint32_t>(*r));
  job->spec.clear_read_bssplit();
  job->spec.clear_write_bssplit();
  if (*r != *w) {  // fio's per-direction sizes: a one-entry mix each
    v1::BlockSizeShare read, write;
    read.set_block_size(static_cast<uint32_t>(*r));
    read.set_percent(100);
    write.set_block_size(static_cast<uint32_t>(*w));
    write.set_percent(100);
    *job->spec.add_read_bssplit() = read;
    *job->spec.add_write_bssplit() = write;
  }
  return absl::OkStatus();
}

absl::Status ApplyBssplit(const FioOption& o, Job* job) {
  absl::StatusOr<std::pair<std::string, std::string>> rw = ReadWriteParts(o);
  if (!rw.ok()) return rw.status();
  absl::StatusOr<std::vector<v1::BlockSizeShare>> r = ParseBssplit(o, rw->first);
  if (!r.ok()) return r.status();
  absl::StatusOr<std::vector<v1::BlockSizeShare>> w = ParseBssplit(o, rw->second);
  if (!w.ok()) return w.status();
  job->spec.clear_read_bssplit();
  job->spec.clear_write_bssplit();
  for (const auto& s : *r) *job->spec.add_read_bssplit() = s;
  for (const auto& s : *w) *job->spec.add_write_bssplit() = s;
  return absl::OkStatus();
}

absl::Status ApplyRate(const FioOption& o, bool iops, Job* job) {
  absl::StatusOr<std::pair<std::string, std::string>> rw = ReadWriteParts(o);
  if (!rw.ok()) return rw.status();
  if (rw->first != rw->second) {
    return Refuse(o, "different read and write rates are not supported");
  }
  FioOption part = o;
  part.value = rw->first;
  absl::StatusOr<uint64_t> v = iops ? ParseCount(part) : ParseSize(o, rw->first);
  if (!v.ok()) return v.status();
  (iops ? job->rate_iops : job->rate_bw) = *v;
  return absl::OkStatus();
}

// fio's steadystate options onto the spec's steady_state (docs/results.md
// "Steady state": the same definitions). std::nullopt when `o` is none.
absl::Status ApplySteadyStateCriterion(const FioOption& o, Job* job) {
  absl::StatusOr<SteadyStateCriterion> c = ParseSteadyStateCriterion(o.value);
  if (!c.ok()) return Refuse(o, c.status().message());
  if (c->metric == SteadyMetric::kP99) {
    return Refuse(o, "fio has no p99 criterion");
  }
  if (c->metric == SteadyMetric::kLatency) {
    return Refuse(o, "fio's lat is the mean completion latency, blkperf's "
                     "the mean total latency: give --steady_state=lat:... "
                     "to blkperf itself");
  }
  if (!c->percent) {
    return Refuse(o, "an absolute limit is in fio's own units: give a "
                     "percentage (e.g. iops:5%)");
  }
  v1::SteadyStateSpec& ss = *job->spec.mutable_steady_state();
  ss.set_criterion(SteadyStateCriterionName(*c));
  ss.set_mode(v1::STEADY_STATE_MODE_STOP);  // fio ends the job
  job->ss = &o;
  job->ss_slope = c->slope;
  return absl::OkStatus();
}

std::optional<absl::Status> ApplySteadyStateOption(const FioOption& o,
                                                   Job* job) {
  const std::string& k = o.key;
  if (k == "steadystate" || k == "ss") return ApplySteadyStateCriterion(o, job);
  if (k != "ss_dur" && k != "ss_interval" && k != "ss_ramp") {
    return std::nullopt;
  }
  absl::StatusOr<absl::Duration> d = ParseTime(o);
  if (!d.ok()) return d.status();
  if (k == "ss_ramp") {
    if (*d == absl::ZeroDuration()) return absl::OkStatus();
    return Refuse(o, "blkperf checks from the start of measuring: use "
                     "ramp_time (which also leaves the ramp unmeasured)");
  }
  if (k == "ss_dur") {
    *job->spec.mutable_steady_state()->mutable_window() = ToProto(*d);
    job->ss_dur = &o;
  } else {
    // fio's samples are its check interval: blkperf's are series points.
    *job->spec.mutable_series_interval() = ToProto(*d);
    job->ss_interval = &o;
  }
  return absl::OkStatus();
}

// After every option: fio ignores steadystate without ss_dur, and a
// slope is per second here, per sample in fio.
absl::Status FinishSteadyState(Job* job) {
  if (job->ss == nullptr && job->ss_dur == nullptr) {
    job->spec.clear_steady_state();
    return absl::OkStatus();
  }
  if (job->ss == nullptr) return Refuse(*job->ss_dur, "ss_dur without steadystate");
  if (job->ss_dur == nullptr) {
    return Refuse(*job->ss, "fio checks nothing without ss_dur: give ss_dur");
  }
  const google::protobuf::Duration& interval = job->spec.series_interval();
  if (job->ss_slope && job->ss_interval != nullptr &&
      (interval.seconds() != 1 || interval.nanos() != 0)) {
    return Refuse(*job->ss_interval,
                  "fio's slope is per sample, blkperf's per second: with a "
                  "slope criterion only ss_interval=1s imports exactly");
  }
  return absl::OkStatus();
}

// The I/O itself: direction, mix, sizes, alignment.
// std::nullopt when `o` is none of them.
std::optional<absl::Status> ApplyShapeOption(const FioOption& o, Job* job) {
  const std::string& k = o.key;
  v1::WorkloadSpec& s = job->spec;
  auto count = [&]() { return ParseCount(o); };
  if (k == "rw" || k == "readwrite") return ApplyOp(o, job);
  if (k == "rwmixread" || k == "rwmixwrite") {
    absl::StatusOr<uint64_t> n = count();
    if (!n.ok()) return n.status();
    if (*n > 100) return Refuse(o, "more than 100");
    s.set_read_percent(static_cast<uint32_t>(k == "rwmixread" ? *n : 100 - *n));
    return absl::OkStatus();
  }
  if (k == "percentage_random") {
    absl::StatusOr<std::pair<std::string, std::string>> rw = ReadWriteParts(o);
    if (!rw.ok()) return rw.status();
    uint32_t p = 0;
    if (rw->first != rw->second || !absl::SimpleAtoi(rw->first, &p) || p > 100) {
      return Refuse(o, "one percentage 0..100 for every direction");
    }
    s.set_random_percent(p);
    return absl::OkStatus();
  }
  if (k == "bs" || k == "blocksize") return ApplyBlockSize(o, job);
  if (k == "bssplit") return ApplyBssplit(o, job);
  if (k == "blockalign" || k == "ba") {
    absl::StatusOr<uint64_t> a = ParseSize(o, o.value);
    if (!a.ok()) return a.status();
    if (*a > UINT32_MAX || o.value.find(',') != std::string::npos) {
      return Refuse(o, "one alignment for every direction");
    }
    s.set_alignment(static_cast<uint32_t>(*a));
    return absl::OkStatus();
  }
  return std::nullopt;
}

// Queue depth, batches, jobs and their CPUs.
// std::nullopt when `o` is none of them.
std::optional<absl::Status> ApplyDepthOption(const FioOption& o, Job* job) {
  const std::string& k = o.key;
  v1::WorkloadSpec& s = job->spec;
  auto count = [&]() { return ParseCount(o); };
  if (k == "iodepth" || k == "iodepth_batch" || k == "iodepth_batch_submit" ||
      k == "iodepth_batch_complete" || k == "iodepth_batch_complete_min") {
    absl::StatusOr<uint64_t> n = count();
    if (!n.ok()) return n.status();
    if (*n > UINT32_MAX || (k == "iodepth" && *n == 0)) return Refuse(o, "out of range");
    const uint32_t v = static_cast<uint32_t>(*n);
    if (k == "iodepth") s.set_queue_depth(v);
    else if (k == "iodepth_batch" || k == "iodepth_batch_submit") s.set_submit_batch(v);
    else s.set_complete_batch(v);
    return absl::OkStatus();
  }
  if (k == "numjobs") {
    absl::StatusOr<uint64_t> n = count();
    if (!n.ok()) return n.status();
    if (*n == 0 || *n > 4096) return Refuse(o, "out of range 1..4096");
    job->numjobs = static_cast<uint32_t>(*n);
    return absl::OkStatus();
  }
  if (k == "cpus_allowed") {
    absl::StatusOr<std::vector<int>> cpus = ParseCpus(o);
    if (!cpus.ok()) return cpus.status();
    job->cpus_allowed = *cpus;
    job->cpus_allowed_option = &o;
    return absl::OkStatus();
  }
  if (k == "cpus_allowed_policy") {
    if (o.value != "split" && o.value != "shared") return Refuse(o, "not split or shared");
    job->cpus_split = o.value == "split";
    return absl::OkStatus();
  }
  return std::nullopt;
}

// How long, and over what: times, sizes, offset, files.
// std::nullopt when `o` is none of them.
std::optional<absl::Status> ApplyTimeAndRegionOption(const FioOption& o, Job* job) {
  const std::string& k = o.key;
  v1::WorkloadSpec& s = job->spec;
  if (k == "runtime" || k == "ramp_time") {
    absl::StatusOr<absl::Duration> d = ParseTime(o);
    if (!d.ok()) return d.status();
    *(k == "runtime" ? s.mutable_runtime() : s.mutable_ramp_time()) = ToProto(*d);
    if (k == "runtime") job->runtime = &o;
    return absl::OkStatus();
  }
  if (k == "time_based") {
    absl::StatusOr<bool> b = ParseBool(o);
    if (!b.ok()) return b.status();
    job->time_based = *b;
    return absl::OkStatus();
  }
  if (k == "size" || k == "filesize") {
    if (o.value.find('%') != std::string::npos || o.value.find('-') != std::string::npos) {
      return Refuse(o, "a percentage or range of the target is not supported");
    }
    absl::StatusOr<uint64_t> n = ParseSize(o, o.value);
    if (!n.ok()) return n.status();
    job->size = *n;
    job->size_option = &o;
    return absl::OkStatus();
  }
  if (k == "offset") {
    absl::StatusOr<uint64_t> n = ParseSize(o, o.value);
    if (!n.ok() || *n != 0) {
      return Refuse(o, "blkperf does I/O over the whole target: only offset=0");
    }
    return absl::OkStatus();
  }
  if (k == "filename") {
    job->filenames = absl::StrSplit(o.value, ':', absl::SkipEmpty());
    return absl::OkStatus();
  }
  if (k == "directory") { job->directory = o.value; return absl::OkStatus(); }
  return std::nullopt;
}

// How I/O is issued: direct, the engine, io_uring's switches.
// std::nullopt when `o` is none of them.
std::optional<absl::Status> ApplyEngineOption(const FioOption& o, Job* job) {
  const std::string& k = o.key;
  v1::WorkloadSpec& s = job->spec;
  auto count = [&]() { return ParseCount(o); };
  if (k == "direct" || k == "buffered") {
    absl::StatusOr<bool> b = ParseBool(o);
    if (!b.ok()) return b.status();
    s.set_direct(k == "direct" ? *b : !*b);
    return absl::OkStatus();
  }
  if (k == "ioengine") {
    if (o.value != "io_uring") {
      return Refuse(o, "blkperf issues I/O through io_uring only (ioengine=io_uring)");
    }
    job->ioengine_given = true;
    return absl::OkStatus();
  }
  if (k == "fixedbufs" || k == "registerfiles" || k == "hipri" ||
      k == "sqthread_poll" || k == "nonvectored" || k == "group_reporting" ||
      k == "thread" || k == "norandommap" || k == "randrepeat") {
    absl::StatusOr<bool> b = ParseBool(o);
    if (!b.ok()) return b.status();
    if (k == "fixedbufs") job->fixedbufs = *b;
    if (k == "registerfiles") job->registerfiles = *b;
    if (k == "nonvectored") job->nonvectored = *b;
    if (k == "hipri") s.set_polled(*b ? v1::POLL_MODE_ON : v1::POLL_MODE_OFF);
    if (k == "sqthread_poll") s.set_sqpoll(*b);
    return absl::OkStatus();
  }
  if (k == "sqthread_poll_cpu") {
    absl::StatusOr<uint64_t> n = count();
    if (!n.ok()) return n.status();
    if (*n > 4095) return Refuse(o, "out of range");
    s.set_sqpoll_cpu(static_cast<int32_t>(*n));
    return absl::OkStatus();
  }
  return std::nullopt;
}

// Offsets, rates, syncs and fio's verify.
// std::nullopt when `o` is none of them.
std::optional<absl::Status> ApplyPacingOption(const FioOption& o, Job* job) {
  const std::string& k = o.key;
  v1::WorkloadSpec& s = job->spec;
  auto count = [&]() { return ParseCount(o); };
  if (k == "random_distribution") {
    if (o.value != "random") {
      return Refuse(o, "only random (uniform) is mapped: fio's zipf, pareto, "
                       "normal and gauss differ from blkperf's distributions "
                       "in placement or definition (docs/fio.md)");
    }
    return absl::OkStatus();
  }
  if (k == "rate_iops") return ApplyRate(o, true, job);
  if (k == "rate") return ApplyRate(o, false, job);
  if (k == "rate_process") {
    if (o.value == "poisson") s.set_arrivals(v1::ARRIVALS_POISSON);
    else if (o.value == "linear") s.set_arrivals(v1::ARRIVALS_UNIFORM);
    else return Refuse(o, "not linear or poisson");
    return absl::OkStatus();
  }
  if (k == "fsync" || k == "fdatasync") {
    absl::StatusOr<uint64_t> n = count();
    if (!n.ok()) return n.status();
    if (*n > UINT32_MAX) return Refuse(o, "out of range");
    if (k == "fsync") s.set_fsync_every(static_cast<uint32_t>(*n));
    else s.set_fdatasync_every(static_cast<uint32_t>(*n));
    return absl::OkStatus();
  }
  if (k == "verify") {
    if (o.value == "0" || o.value == "none") return absl::OkStatus();
    return Refuse(o, "fio's verify (checksums written, then read back) is not "
                     "blkperf's verify (a header per block, checked on every "
                     "read); use blkperf's --verify");
  }
  return std::nullopt;
}

// One option onto `job`; Refuse for what blkperf cannot honour exactly.
absl::Status ApplyOption(const FioOption& o, Job* job) {
  if (o.key == "name") {
    job->name = o.value;
    return absl::OkStatus();
  }
  for (auto apply : {ApplyShapeOption, ApplyDepthOption,
                     ApplyTimeAndRegionOption, ApplyEngineOption,
                     ApplyPacingOption, ApplySteadyStateOption}) {
    if (std::optional<absl::Status> applied = apply(o, job)) return *applied;
  }
  return Refuse(o, "is not supported by blkperf");
}

// The job's targets from filename/directory (none: the daemon's default).
absl::Status ResolveTargets(Job* job, FioImport* out) {
  for (std::string name : job->filenames) {
    if (!job->directory.empty() && name[0] != '/') {
      name = job->directory + "/" + name;
    }
    v1::TargetSpec* t = job->spec.add_targets();
    t->set_path(name);
    t->set_allow_write(job->writes);
    if (!job->size.has_value()) continue;
    struct stat st;
    if (stat(name.c_str(), &st) != 0) {
      // fio lays out a missing file at `size`: creating is writing.
      t->set_create_size(*job->size);
      t->set_allow_write(true);
      out->notes.push_back(absl::StrCat(job->size_option->Where(),
                                        ": creates ", name, " (", *job->size,
                                        " bytes), as fio lays it out"));
    } else if (!S_ISREG(st.st_mode) ||
               static_cast<uint64_t>(st.st_size) != *job->size) {
      return Refuse(*job->size_option,
                    absl::StrCat("blkperf does I/O over the whole target, and ",
                                 name, " is not a regular file of exactly this "
                                 "size"));
    }
  }
  if (job->filenames.empty()) {
    out->notes.push_back(absl::StrCat(
        job->section->file, ":", job->section->line, ": job '", job->name,
        "' has no filename: the daemon's default target"));
  }
  return absl::OkStatus();
}

// fio's defaults and the options that need the whole job to map.
absl::Status FinishJob(Job* job, FioImport* out) {
  v1::WorkloadSpec& s = job->spec;
  if (absl::Status st = FinishSteadyState(job); !st.ok()) return st;
  if (!s.has_submit_batch()) s.set_submit_batch(1);    // fio's default
  if (!s.has_complete_batch()) s.set_complete_batch(1);
  if (s.submit_batch() == 0) s.set_submit_batch(s.has_queue_depth() ? s.queue_depth() : 1);
  if (!s.has_queue_depth()) s.set_queue_depth(1);      // fio's default iodepth
  s.set_fixed_buffers(job->fixedbufs);
  s.set_registered_files(job->registerfiles);
  s.set_vectored(!job->fixedbufs && !job->nonvectored);
  s.set_latency_mode(v1::LATENCY_MODE_PER_IO);  // fio's clat
  if (!s.has_direct()) s.set_direct(false);     // fio's default: buffered
  if (job->rate_iops != 0) s.set_rate_iops(job->rate_iops * job->numjobs);
  if (job->rate_bw != 0) s.set_rate_bw(job->rate_bw * job->numjobs);
  s.set_threads(job->numjobs);
  if (!job->cpus_allowed.empty()) {
    if (!job->cpus_split && job->cpus_allowed.size() != 1) {
      return Refuse(*job->cpus_allowed_option,
                    "blkperf pins each thread to one CPU: use "
                    "cpus_allowed_policy=split (or a single CPU)");
    }
    for (uint32_t i = 0; i < job->numjobs; ++i) {
      s.add_cpus(job->cpus_allowed[i % job->cpus_allowed.size()]);
    }
  }
  if (!job->ioengine_given) {
    out->notes.push_back(absl::StrCat(
        job->section->file, ":", job->section->line, ": job '", job->name,
        "' names no ioengine: blkperf runs it with io_uring"));
  }
  if (!job->time_based && job->size.has_value()) {
    const bool mixed_sizes = s.read_bssplit_size() != 0 || s.write_bssplit_size() != 0;
    if (mixed_sizes) {
      return Refuse(*job->size_option,
                    "without time_based, a size with a block-size mix is not "
                    "a whole number of I/Os blkperf can count");
    }
    s.set_io_count(job->numjobs * (*job->size / s.block_size()));
    if (!job->runtime) *s.mutable_runtime() = ToProto(absl::ZeroDuration());
  } else if (!job->time_based && job->runtime != nullptr) {
    return Refuse(*job->runtime,
                  "without time_based fio stops at the end of the file, "
                  "which blkperf cannot tell here: add time_based=1 or size=");
  } else if (!job->runtime) {
    out->notes.push_back(absl::StrCat(
        job->section->file, ":", job->section->line, ": job '", job->name,
        "' sets no runtime: blkperf's default runtime applies"));
  }
  return ResolveTargets(job, out);
}

// The fields that are the workload's, not a group's.
v1::WorkloadSpec WorkloadWide(const v1::WorkloadSpec& s) {
  v1::WorkloadSpec w = s;
  for (auto* f : {"op", "read_percent", "block_size", "alignment",
                  "queue_depth", "distribution", "random_percent",
                  "read_bssplit", "write_bssplit", "rate_iops", "rate_bw",
                  "arrivals", "fsync_every", "fdatasync_every", "cpus",
                  "threads"}) {
    const auto* field = w.GetDescriptor()->FindFieldByName(f);
    w.GetReflection()->ClearField(&w, field);
  }
  return w;
}

absl::Status AddGroup(const Job& job, v1::WorkloadSpec* spec) {
  const v1::WorkloadSpec& s = job.spec;
  if (s.cpus_size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        job.section->file, ":", job.section->line, ": job '", job.name,
        "' runs beside other jobs, as a blkperf job group: it needs "
        "cpus_allowed (with cpus_allowed_policy=split)"));
  }
  v1::JobGroup* g = spec->add_groups();
  g->set_name(job.name);
  *g->mutable_cpus() = s.cpus();
  g->set_op(s.op());
  if (s.has_read_percent()) g->set_read_percent(s.read_percent());
  if (s.has_block_size()) g->set_block_size(s.block_size());
  if (s.has_alignment()) g->set_alignment(s.alignment());
  if (s.has_queue_depth()) g->set_queue_depth(s.queue_depth());
  if (s.has_random_percent()) g->set_random_percent(s.random_percent());
  for (const auto& b : s.read_bssplit()) *g->mutable_read_bssplit()->add_shares() = b;
  for (const auto& b : s.write_bssplit()) *g->mutable_write_bssplit()->add_shares() = b;
  if (s.has_rate_iops()) g->set_rate_iops(s.rate_iops());
  if (s.has_rate_bw()) g->set_rate_bw(s.rate_bw());
  g->set_arrivals(s.arrivals());
  if (s.has_fsync_every()) g->set_fsync_every(s.fsync_every());
  if (s.has_fdatasync_every()) g->set_fdatasync_every(s.fdatasync_every());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<FioImport> ImportFioSections(const FioJobFile& file,
                                            const FioImportOptions& options) {
  FioImport out;
  std::vector<const FioOption*> global;
  std::vector<Job> jobs;
  LogOptionsSeen logs_seen;
  for (const FioSection& section : file.sections) {
    std::vector<const FioOption*> kept;
    for (const FioOption& o : section.options) {
      if (IsLogOption(o.key)) {
        if (absl::Status s =
                ApplyLogOption(o, section.name, &out.logs, &logs_seen);
            !s.ok()) {
          return s;
        }
        continue;
      }
      if (o.key == "percentile_list") {
        for (absl::string_view p : absl::StrSplit(o.value, absl::ByAnyChar(":,"))) {
          double v = 0;
          if (!absl::SimpleAtod(p, &v) || !(v > 0 && v <= 100)) {
            return Refuse(o, "each percentile must be in (0, 100]");
          }
          out.percentiles.push_back(v);
        }
        std::sort(out.percentiles.begin(), out.percentiles.end());
        continue;
      }
      if (OutputOnly(o.key)) {
        if (!options.lenient) {
          return Refuse(o, "is not supported by blkperf (it only changes "
                           "fio's output: --fio_job_lenient drops it)");
        }
        out.dropped.push_back(o.Where());
        continue;
      }
      kept.push_back(&o);
    }
    if (section.name == "global") {
      global.insert(global.end(), kept.begin(), kept.end());
      continue;
    }
    Job job{.name = section.name, .section = &section};
    for (const FioOption* o : global) {
      if (absl::Status st = ApplyOption(*o, &job); !st.ok()) return st;
    }
    for (const FioOption* o : kept) {
      if (absl::Status st = ApplyOption(*o, &job); !st.ok()) return st;
    }
    if (absl::Status st = FinishJob(&job, &out); !st.ok()) return st;
    jobs.push_back(std::move(job));
  }
  if (jobs.empty()) {
    return absl::InvalidArgumentError("the job file has no job section");
  }
  if (absl::Status st = CheckLogWindows(logs_seen, options.lenient, &out);
      !st.ok()) {
    return st;
  }
  if (jobs.size() == 1) {
    out.spec = jobs[0].spec;
    return out;
  }
  const v1::WorkloadSpec wide = WorkloadWide(jobs[0].spec);
  out.spec = wide;
  for (const Job& job : jobs) {
    google::protobuf::util::MessageDifferencer differ;
    std::string difference;
    differ.ReportDifferencesToString(&difference);
    if (!differ.Compare(wide, WorkloadWide(job.spec))) {
      return absl::InvalidArgumentError(absl::StrCat(
          job.section->file, ":", job.section->line, ": job '", job.name,
          "' differs from job '", jobs[0].name, "' in a workload-wide option "
          "that blkperf's job groups share (", 
          absl::StripAsciiWhitespace(difference), ")"));
    }
    if (absl::Status st = AddGroup(job, &out.spec); !st.ok()) return st;
  }
  return out;
}

absl::StatusOr<FioImport> ImportFioJob(const std::string& path,
                                       const FioImportOptions& options) {
  absl::StatusOr<FioJobFile> file = ReadFioJobFile(path, options.hooks);
  if (!file.ok()) return file.status();
  return ImportFioSections(*file, options);
}

}  // namespace blkperf
