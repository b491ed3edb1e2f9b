#include "report/fio_json.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"

namespace blkperf {
namespace {

// An object whose members keep their insertion order, rendered with fio's
// layout ("key" : value, two spaces a level). Values are kept rendered.
class JsonObject {
 public:
  JsonObject& Int(absl::string_view key, uint64_t value) {
    return Raw(key, absl::StrCat(value));
  }
  // fio writes floats with "%f".
  JsonObject& Float(absl::string_view key, double value) {
    return Raw(key, absl::StrFormat("%f", std::isfinite(value) ? value : 0.0));
  }
  JsonObject& Str(absl::string_view key, absl::string_view value) {
    return Raw(key, Quote(value));
  }
  JsonObject& Obj(absl::string_view key, const JsonObject& value) {
    members_.emplace_back(std::string(key), value.members_, false);
    return *this;
  }
  JsonObject& StrArray(absl::string_view key,
                       const std::vector<std::string>& values) {
    std::vector<std::string> quoted;
    for (const std::string& v : values) quoted.push_back(Quote(v));
    return Raw(key, absl::StrCat("[", absl::StrJoin(quoted, ", "), "]"));
  }
  JsonObject& ObjArray(absl::string_view key,
                       const std::vector<JsonObject>& values) {
    Member m(std::string(key), {}, true);
    for (const JsonObject& v : values) m.elements.push_back(v.members_);
    members_.push_back(std::move(m));
    return *this;
  }
  JsonObject& Raw(absl::string_view key, std::string rendered) {
    Member m(std::string(key), {}, false);
    m.rendered = std::move(rendered);
    members_.push_back(std::move(m));
    return *this;
  }

  std::string Render() const {
    std::string out;
    RenderMembers(members_, 0, &out);
    return out;
  }

  static std::string Quote(absl::string_view text) {
    std::string out = "\"";
    for (char c : text) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        absl::StrAppendFormat(&out, "\\u%04x", c);
      } else {
        out += c;
      }
    }
    return out + "\"";
  }

 private:
  struct Member {
    Member(std::string k, std::vector<Member> c, bool a)
        : key(std::move(k)), children(std::move(c)), is_array(a) {}
    std::string key;
    std::string rendered;               // a scalar or array, when set
    std::vector<Member> children;       // an object otherwise
    bool is_array = false;              // an array of objects
    std::vector<std::vector<Member>> elements;
  };

  static void RenderMembers(const std::vector<Member>& members, int depth,
                            std::string* out) {
    const std::string pad(2 * (depth + 1), ' ');
    *out += "{\n";
    for (size_t i = 0; i < members.size(); ++i) {
      const Member& m = members[i];
      absl::StrAppend(out, pad, Quote(m.key), " : ");
      if (m.is_array) {
        *out += "[";
        for (size_t e = 0; e < m.elements.size(); ++e) {
          if (e != 0) *out += ",";
          absl::StrAppend(out, "\n", pad, "  ");
          RenderMembers(m.elements[e], depth + 2, out);
        }
        absl::StrAppend(out, m.elements.empty() ? "" : "\n" + pad, "]");
      } else if (!m.rendered.empty()) {
        *out += m.rendered;
      } else {
        RenderMembers(m.children, depth + 1, out);
      }
      absl::StrAppend(out, i + 1 < members.size() ? ",\n" : "\n");
    }
    absl::StrAppend(out, std::string(2 * depth, ' '), "}");
  }

  std::vector<Member> members_;
};

// Sample standard deviation from the bucket counts (blkperf keeps no sum of
// squares): each value taken at its bucket's midpoint, within 1/128 of it.
double BucketStddev(const LatencyHistogram& h) {
  if (h.Count() < 2) return 0;
  const double mean = h.Mean();
  double squares = 0;
  for (const auto& [index, count] : h.NonEmptyBuckets()) {
    const double d =
        static_cast<double>(LatencyHistogram::BucketMidpoint(index)) - mean;
    squares += d * d * static_cast<double>(count);
  }
  return std::sqrt(squares / static_cast<double>(h.Count() - 1));
}

// fio's add_ddir_lat_json: min, max, mean, stddev, N; percentiles (and bins
// for json+) when asked and the histogram is not empty.
JsonObject LatencyJson(const LatencyHistogram* h, bool percentiles,
                       const FioJsonOptions& options) {
  static const LatencyHistogram kEmpty;
  if (h == nullptr) h = &kEmpty;
  JsonObject o;
  o.Int("min", h->Min()).Int("max", h->Max()).Float("mean", h->Mean());
  o.Float("stddev", BucketStddev(*h)).Int("N", h->Count());
  if (!percentiles || h->Count() == 0) return o;
  JsonObject list;
  const std::vector<uint64_t> values = FioPercentiles(*h, options.percentiles);
  for (size_t i = 0; i < values.size(); ++i) {
    list.Int(absl::StrFormat("%f", options.percentiles[i]), values[i]);
  }
  o.Obj("percentile", list);
  if (options.plus) {
    JsonObject bins;
    for (const auto& [index, count] : h->NonEmptyBuckets()) {
      bins.Int(absl::StrCat(FioBinValue(index)), count);
    }
    o.Obj("bins", bins);
  }
  return o;
}

// One direction's per-interval rates, fio's bw and iops samples.
struct IntervalSamples {
  std::vector<double> iops;
  std::vector<double> kib_per_second;
};

// Which of the series' counts a direction's samples come from.
enum class SeriesCounts { kRead, kWrite, kReadAndWrite };

// The samples of the series' whole points (a point of under 90 % of the
// nominal length, the partial last one, is no sample), each a rate over
// its point's own length. As fio's __add_samples, a point without I/O in
// the direction is no sample.
IntervalSamples SamplesOf(const Series& series, SeriesCounts counts) {
  IntervalSamples samples;
  const absl::Duration whole = series.interval * series.ticks_per_point;
  for (const SeriesPoint& p : series.points) {
    if (whole <= absl::ZeroDuration() || p.length < whole * 0.9) continue;
    const bool reads = counts != SeriesCounts::kWrite;
    const bool writes = counts != SeriesCounts::kRead;
    const uint64_t ios = (reads ? p.read_ios : 0) + (writes ? p.write_ios : 0);
    if (ios == 0) continue;
    const uint64_t bytes =
        (reads ? p.read_bytes : 0) + (writes ? p.write_bytes : 0);
    const double seconds = absl::ToDoubleSeconds(p.length);
    samples.iops.push_back(static_cast<double>(ios) / seconds);
    samples.kib_per_second.push_back(static_cast<double>(bytes) / 1024 /
                                     seconds);
  }
  return samples;
}

// fio's calc_lat over samples: min, max, mean and the sample standard
// deviation (n - 1; 0 for one sample).
struct SampleStats {
  double min = 0, max = 0, mean = 0, stddev = 0;
};

SampleStats StatsOf(const std::vector<double>& values) {
  SampleStats s;
  if (values.empty()) return s;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  for (double v : values) s.mean += v;
  s.mean /= static_cast<double>(values.size());
  if (values.size() < 2) return s;
  double squares = 0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(squares / static_cast<double>(values.size() - 1));
  return s;
}

// One direction's counts, the latencies when they are its own, and its
// per-interval samples when the series has them (nullptr: not measured).
struct Direction {
  uint64_t ios = 0;
  uint64_t bytes = 0;
  const ThreadSnapshot* latency = nullptr;
  const IntervalSamples* samples = nullptr;
};

// fio's bw_* and iops_* from the samples; fio's "no samples" zeros without.
// bw_agg: the mean's percentage of the direction's bandwidth over the whole
// run (fio's share of the group's aggregate, capped at 100 as fio caps it).
void IntervalStatsJson(const IntervalSamples* samples, double kib_per_second,
                       JsonObject* o) {
  static const IntervalSamples kNone;
  if (samples == nullptr) samples = &kNone;
  const SampleStats bw = StatsOf(samples->kib_per_second);
  const SampleStats iops = StatsOf(samples->iops);
  const double agg =
      kib_per_second > 0 ? std::min(100.0, 100 * bw.mean / kib_per_second) : 0;
  o->Int("bw_min", static_cast<uint64_t>(bw.min));
  o->Int("bw_max", static_cast<uint64_t>(bw.max));
  o->Float("bw_agg", samples->kib_per_second.empty() ? 0 : agg);
  o->Float("bw_mean", bw.mean).Float("bw_dev", bw.stddev);
  o->Int("bw_samples", samples->kib_per_second.size());
  o->Int("iops_min", static_cast<uint64_t>(iops.min));
  o->Int("iops_max", static_cast<uint64_t>(iops.max));
  o->Float("iops_mean", iops.mean).Float("iops_stddev", iops.stddev);
  o->Int("iops_samples", samples->iops.size());
}

// `part` of `whole` (a direction's share of the job's counts), 0 for none.
double Fraction(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0 : static_cast<double>(part) / static_cast<double>(whole);
}

// fio's add_ddir_status_json for read, write, trim (or mixed). `job` is the
// job's total, whose share of options.rates (when set) is the direction's.
JsonObject DirectionJson(const Direction& d, const ThreadSnapshot& job,
                         absl::Duration elapsed, const FioJsonOptions& options) {
  const double seconds = absl::ToDoubleSeconds(elapsed);
  const bool ran = d.ios != 0 && seconds > 0;
  double iops = ran ? static_cast<double>(d.ios) / seconds : 0.0;
  double bytes_per_second = ran ? static_cast<double>(d.bytes) / seconds : 0.0;
  if (ran && options.rates) {
    iops = options.rates->ios_per_second * Fraction(d.ios, job.ios);
    bytes_per_second =
        options.rates->bytes_per_second * Fraction(d.bytes, job.bytes);
  }
  const uint64_t bw_bytes = static_cast<uint64_t>(bytes_per_second);
  JsonObject o;
  o.Int("io_bytes", d.bytes).Int("io_kbytes", d.bytes >> 10);
  o.Int("bw_bytes", bw_bytes).Int("bw", bw_bytes / 1024);
  o.Float("iops", iops);
  o.Int("runtime", ran ? static_cast<uint64_t>(absl::ToInt64Milliseconds(elapsed)) : 0);
  o.Int("total_ios", d.ios).Int("short_ios", 0).Int("drop_ios", 0);
  const ThreadSnapshot* t = d.latency;
  o.Obj("slat_ns", LatencyJson(t ? &t->submit_latency : nullptr, false, options));
  o.Obj("clat_ns", LatencyJson(t ? &t->completion_latency : nullptr, true, options));
  o.Obj("lat_ns", LatencyJson(t ? &t->latency : nullptr, false, options));
  IntervalStatsJson(d.samples, bytes_per_second / 1024, &o);
  return o;
}

// fio's percentages with its floor: a non-zero share below 0.01 % shows as
// 0.01.
double Share(uint64_t part, uint64_t whole) {
  if (whole == 0 || part == 0) return 0;
  return std::max(0.01, 100.0 * static_cast<double>(part) / whole);
}

// latency_ns / latency_us / latency_ms: the share of completion latencies
// in each of fio's ranges (io_u_mark_latency), a bucket counted in the
// range of its fio value.
void LatencyRangesJson(const LatencyHistogram& clat, JsonObject* job) {
  static constexpr uint64_t kEdges[] = {2,   4,   10,  20,  50,
                                        100, 250, 500, 750, 1000};
  uint64_t ns[10] = {}, us[10] = {}, ms[12] = {};
  auto range = [](uint64_t v) {
    int i = 0;
    while (i < 9 && v >= kEdges[i]) ++i;
    return i;
  };
  for (const auto& [index, count] : clat.NonEmptyBuckets()) {
    const uint64_t v = FioBinValue(index);
    if (v < 1000) {
      ns[range(v)] += count;
    } else if (v < 1000000) {
      us[range(v / 1000)] += count;
    } else {
      const uint64_t m = v / 1000000;
      ms[m >= 2000 ? 11 : m >= 1000 ? 10 : range(m)] += count;
    }
  }
  JsonObject n, u, m;
  for (int i = 0; i < 10; ++i) {
    n.Float(absl::StrCat(kEdges[i]), Share(ns[i], clat.Count()));
    u.Float(absl::StrCat(kEdges[i]), Share(us[i], clat.Count()));
    m.Float(absl::StrCat(kEdges[i]), Share(ms[i], clat.Count()));
  }
  m.Float("2000", Share(ms[10], clat.Count()));
  m.Float(">=2000", Share(ms[11], clat.Count()));
  job->Obj("latency_ns", n).Obj("latency_us", u).Obj("latency_ms", m);
}

// iodepth_level / iodepth_submit / iodepth_complete with fio's keys; blkperf
// does not record depth distributions (listed in not_measured).
void DepthLevelsJson(JsonObject* job) {
  JsonObject level, submit, complete;
  for (int i = 0; i < 7; ++i) {
    level.Float(i < 6 ? absl::StrCat(1 << i) : ">=64", 0);
    const std::string key = i == 0   ? "0"
                            : i < 6 ? absl::StrCat(1 << (i + 1))
                                    : ">=64";
    submit.Float(key, 0);
    complete.Float(key, 0);
  }
  job->Obj("iodepth_level", level).Obj("iodepth_submit", submit);
  job->Obj("iodepth_complete", complete);
}

// What one fio job stands for: a job group, or the whole workload.
struct JobView {
  std::string name;
  const ThreadSnapshot* total = nullptr;
  Op op = Op::kRandRead;
  uint32_t read_percent = 50;
  uint32_t block_size = 4096;
  uint32_t queue_depth = 32;
  uint32_t threads = 1;
  std::vector<int> cpus;
  uint32_t random_percent = 100;
  uint64_t rate_iops = 0;
};

std::string FioRw(Op op) {
  switch (op) {
    case Op::kRandRW: return "randrw";
    default: return std::string(OpName(op));
  }
}

JsonObject JobOptionsJson(const WorkloadSpec& spec,
                          const std::vector<TargetInfo>& targets,
                          const JobView& job) {
  std::vector<std::string> paths;
  for (const TargetInfo& t : targets) paths.push_back(t.path);
  JsonObject o;
  o.Str("name", job.name);
  if (!paths.empty()) o.Str("filename", absl::StrJoin(paths, ":"));
  o.Str("rw", FioRw(job.op));
  if (job.op == Op::kRandRW) o.Str("rwmixread", absl::StrCat(job.read_percent));
  o.Str("bs", absl::StrCat(job.block_size));
  o.Str("iodepth", absl::StrCat(job.queue_depth));
  if (spec.submit_batch != 0) {
    o.Str("iodepth_batch_submit", absl::StrCat(spec.submit_batch));
  }
  if (spec.complete_batch != 0) {
    o.Str("iodepth_batch_complete_min", absl::StrCat(spec.complete_batch));
  }
  o.Str("numjobs", absl::StrCat(job.threads));
  if (!job.cpus.empty()) o.Str("cpus_allowed", absl::StrJoin(job.cpus, ","));
  if (OpIsRandom(job.op) && job.random_percent != 100) {
    o.Str("percentage_random", absl::StrCat(job.random_percent));
  }
  if (job.rate_iops != 0) o.Str("rate_iops", absl::StrCat(job.rate_iops));
  o.Str("runtime", absl::StrCat(absl::ToInt64Seconds(spec.runtime)));
  if (spec.ramp_time > absl::ZeroDuration()) {
    o.Str("ramp_time", absl::StrCat(absl::ToInt64Seconds(spec.ramp_time)));
  }
  o.Str("direct", spec.direct ? "1" : "0");
  o.Str("fixedbufs", spec.fixed_buffers ? "1" : "0");
  o.Str("registerfiles", spec.registered_files ? "1" : "0");
  if (spec.polled == PollMode::kOn) o.Str("hipri", "1");
  if (spec.sqpoll) o.Str("sqthread_poll", "1");
  return o;
}

// fio's per-interval statistics keys of a direction.
constexpr const char* kIntervalKeys[] = {
    "bw_min",  "bw_max",    "bw_agg",      "bw_mean",     "bw_dev", "bw_samples",
    "iops_min", "iops_max", "iops_mean", "iops_stddev", "iops_samples"};

// What the job's fio keys cannot hold: `series` false when no per-interval
// series covers the job (job groups, a fleet's merge), `trims` when it has
// trims (the series counts reads and writes only).
std::vector<std::string> NotMeasured(bool series, bool trims) {
  std::vector<std::string> keys = {"short_ios", "drop_ios"};
  for (const char* k : kIntervalKeys) {
    if (!series) keys.push_back(k);
    if (series && trims) keys.push_back(absl::StrCat("trim.", k));
  }
  for (const char* k : {"sync.lat_ns", "ctx", "majf", "minf", "iodepth_level",
                        "iodepth_submit", "iodepth_complete", "latency_target",
                        "latency_window", "disk_util"}) {
    keys.push_back(k);
  }
  return keys;
}

// The job's "blkperf" object: what a reader must know to read the fio keys.
// `batch_turns`: the job's I/Os were timed in batch turns (closed loop in
// latency_mode batch; an open loop takes per_io turns whatever the mode).
JsonObject BlkperfJobNotes(const WorkloadSpec& spec, bool batch_turns,
                           bool by_direction,
                           const std::vector<std::string>& not_measured) {
  JsonObject o;
  o.Str("latency_mode", LatencyModeName(spec.latency_mode));
  o.Str("latency_semantics",
        !batch_turns
            ? "per_io: slat, clat and lat in fio's meaning (docs/fio.md)"
            : "batch: slat_ns is blkperf's batch_wait (the submitting enter "
              "also waited for completions) and clat_ns its after_wait (0 "
              "for I/Os done during that wait); not fio's slat and clat "
              "(docs/numbers.md)");
  o.Raw("latency_by_direction", by_direction ? "true" : "false");
  o.Str("stddev", "from histogram buckets (each value within 1/128)");
  o.StrArray("not_measured", not_measured);
  return o;
}

JsonObject JobJson(const WorkloadSpec& spec,
                   const std::vector<TargetInfo>& targets,
                   const WorkloadSnapshot& s, const JobView& job,
                   const FioJsonOptions& options) {
  const ThreadSnapshot& t = *job.total;
  const uint64_t reads = t.read_ios, writes = t.write_ios, trims = t.trim_ios;
  const int directions = (reads != 0) + (writes != 0) + (trims != 0);
  const bool by_direction = directions <= 1;
  auto own = [&](uint64_t ios) { return by_direction && ios != 0 ? &t : nullptr; };

  // bw_* and iops_*: the series is the whole workload's, kept for reads
  // and writes (not for a group's job, nor a fleet's merge).
  const bool series = job.total == &s.total && !options.rates &&
                      s.series.interval > absl::ZeroDuration();
  const IntervalSamples read_samples = SamplesOf(s.series, SeriesCounts::kRead);
  const IntervalSamples write_samples =
      SamplesOf(s.series, SeriesCounts::kWrite);
  const IntervalSamples both_samples =
      SamplesOf(s.series, SeriesCounts::kReadAndWrite);
  const IntervalSamples no_samples;
  auto samples = [&](const IntervalSamples& of) {
    return series ? &of : nullptr;
  };

  JsonObject o;
  o.Str("jobname", job.name).Int("groupid", 0);
  o.Int("job_start", static_cast<uint64_t>(s.start.first_realtime_ns / 1000000));
  o.Int("error", s.has_error ? static_cast<uint64_t>(s.error.errno_value) : 0);
  o.Int("eta", 0);
  o.Int("elapsed", static_cast<uint64_t>(
                       absl::ToInt64Seconds(s.elapsed + spec.ramp_time +
                                            absl::Milliseconds(500))));
  o.Obj("job options", JobOptionsJson(spec, targets, job));
  o.Obj("read", DirectionJson({reads, t.read_bytes, own(reads),
                               samples(read_samples)},
                              t, s.elapsed, options));
  o.Obj("write", DirectionJson({writes, t.write_bytes, own(writes),
                                samples(write_samples)},
                               t, s.elapsed, options));
  o.Obj("trim", DirectionJson({trims, t.trim_bytes, own(trims),
                               trims == 0 ? samples(no_samples) : nullptr},
                              t, s.elapsed, options));
  JsonObject sync;
  sync.Int("total_ios", t.sync_ios);
  sync.Obj("lat_ns", LatencyJson(nullptr, false, options));
  o.Obj("sync", sync);
  if (!by_direction) {
    o.Obj("mixed", DirectionJson({t.ios, t.bytes, &t,
                                  trims == 0 ? samples(both_samples) : nullptr},
                                 t, s.elapsed, options));
  }
  // fio's group_reporting: run time and CPU time summed over the threads.
  const double thread_seconds =
      absl::ToDoubleSeconds(s.elapsed) * std::max<uint32_t>(job.threads, 1);
  o.Int("job_runtime", static_cast<uint64_t>(thread_seconds * 1000));
  o.Float("usr_cpu", thread_seconds > 0 ? 100 * t.user_cpu_seconds / thread_seconds : 0);
  o.Float("sys_cpu", thread_seconds > 0 ? 100 * t.system_cpu_seconds / thread_seconds : 0);
  o.Int("ctx", 0).Int("majf", 0).Int("minf", 0);
  DepthLevelsJson(&o);
  LatencyRangesJson(t.completion_latency, &o);
  o.Int("latency_depth", job.queue_depth).Int("latency_target", 0);
  o.Float("latency_percentile", 100.0).Int("latency_window", 0);
  JsonObject notes =
      BlkperfJobNotes(spec, t.batch_turns, by_direction,
                      NotMeasured(series, trims != 0));
  if (series) {
    notes.Str("interval_samples",
              absl::StrCat("bw_* and iops_* over the series' whole ",
                           absl::FormatDuration(s.series.interval *
                                                s.series.ticks_per_point),
                           " points with I/O in the direction (docs/fio.md)"));
  }
  if (options.rates) notes.Str("rates", options.rates->meaning);
  o.Obj("blkperf", notes);
  return o;
}

std::vector<JobView> Jobs(const WorkloadSpec& spec, const WorkloadSnapshot& s) {
  std::vector<JobView> jobs;
  if (spec.groups.empty() || s.groups.size() != spec.groups.size()) {
    JobView v{.name = "blkperf", .total = &s.total, .op = spec.op,
              .read_percent = spec.read_percent, .block_size = spec.block_size,
              .queue_depth = spec.queue_depth,
              .threads = static_cast<uint32_t>(std::max<size_t>(s.threads.size(), 1)),
              .cpus = spec.cpus, .random_percent = spec.random_percent,
              .rate_iops = spec.rate_iops};
    jobs.push_back(std::move(v));
    return jobs;
  }
  for (size_t i = 0; i < spec.groups.size(); ++i) {
    const JobGroupSpec& g = spec.groups[i];
    JobView v{.name = s.groups[i].name, .total = &s.groups[i].total,
              .op = g.op.value_or(spec.op),
              .read_percent = g.read_percent.value_or(spec.read_percent),
              .block_size = g.block_size.value_or(spec.block_size),
              .queue_depth = g.queue_depth.value_or(spec.queue_depth),
              .threads = static_cast<uint32_t>(std::max<size_t>(g.cpus.size(), 1)),
              .cpus = g.cpus,
              .random_percent = g.random_percent.value_or(spec.random_percent),
              .rate_iops = g.rate_iops.value_or(0)};
    jobs.push_back(std::move(v));
  }
  return jobs;
}

}  // namespace

uint64_t FioBinValue(int index) {
  if (index < 128) return static_cast<uint64_t>(index);
  const int shift = index / 64 - 1;
  return LatencyHistogram::BucketLowerBound(index) + (uint64_t{1} << (shift - 1));
}

std::vector<uint64_t> FioPercentiles(const LatencyHistogram& h,
                                     absl::Span<const double> percentiles) {
  std::vector<uint64_t> values;
  if (h.Count() == 0) return values;
  const std::vector<std::pair<int, uint64_t>> buckets = h.NonEmptyBuckets();
  size_t b = 0;
  uint64_t running = 0;
  for (double p : percentiles) {
    const long double rank = static_cast<long double>(p) / 100.0L * h.Count();
    // Consume buckets until the running count reaches the rank (at least
    // one); the last consumed is the percentile's bucket.
    while (b < buckets.size() &&
           (b == 0 || static_cast<long double>(running) < rank)) {
      running += buckets[b++].second;
    }
    values.push_back(FioBinValue(buckets[b - 1].first));
  }
  return values;
}

namespace {

// fio's top-level keys before its job array.
JsonObject FioRoot(absl::Time taken) {
  JsonObject root;
  root.Str("fio version", "blkperf (fio-3 JSON layout; not fio)");
  const int64_t ms = absl::ToUnixMillis(taken);
  root.Int("timestamp", static_cast<uint64_t>(ms / 1000));
  root.Int("timestamp_ms", static_cast<uint64_t>(ms));
  const time_t secs = static_cast<time_t>(ms / 1000);
  char when[64] = "";
  struct tm tm_local;
  if (localtime_r(&secs, &tm_local) != nullptr) {
    std::strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm_local);
  }
  root.Str("time", when);
  JsonObject global;
  global.Str("ioengine", "io_uring");
  root.Obj("global options", global);
  return root;
}

std::vector<JsonObject> JobsJson(const WorkloadSpec& spec,
                                 const std::vector<TargetInfo>& targets,
                                 const WorkloadSnapshot& snapshot,
                                 const FioJsonOptions& options) {
  std::vector<JsonObject> jobs;
  for (const JobView& job : Jobs(spec, snapshot)) {
    jobs.push_back(JobJson(spec, targets, snapshot, job, options));
  }
  return jobs;
}

}  // namespace

std::string FormatFioJson(const WorkloadSpec& spec,
                          const std::vector<TargetInfo>& targets,
                          const WorkloadSnapshot& snapshot,
                          const FioJsonOptions& options) {
  JsonObject root = FioRoot(snapshot.taken);
  root.ObjArray("jobs", JobsJson(spec, targets, snapshot, options));
  root.ObjArray("disk_util", {});
  return root.Render() + "\n";
}

std::string FormatFioClientJson(absl::Span<const FioClientResult> hosts,
                                const FioClientResult& all_clients,
                                const FioJsonOptions& options) {
  JsonObject root = FioRoot(all_clients.snapshot->taken);
  std::vector<JsonObject> stats;
  for (const FioClientResult& h : hosts) {
    for (JsonObject& job :
         JobsJson(*h.spec, *h.targets, *h.snapshot, options)) {
      job.Str("hostname", h.hostname).Int("port", h.port);
      stats.push_back(std::move(job));
    }
  }
  if (hosts.size() > 1) {
    // One job of the whole workload, as fio sums every client's jobs.
    WorkloadSpec whole = *all_clients.spec;
    whole.groups.clear();
    std::vector<JobView> job = Jobs(whole, *all_clients.snapshot);
    job.front().name = "All clients";
    JsonObject all = JobJson(whole, *all_clients.targets,
                             *all_clients.snapshot, job.front(),
                             all_clients.options ? *all_clients.options
                                                 : options);
    all.Str("hostname", all_clients.hostname).Int("port", all_clients.port);
    stats.push_back(std::move(all));
  }
  root.ObjArray("client_stats", stats);
  root.ObjArray("disk_util", {});
  return root.Render() + "\n";
}

}  // namespace blkperf
