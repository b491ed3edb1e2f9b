#include "report/report.h"

#include <cmath>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/bounded_text.h"
#include "base/units.h"
#include "model/split_strategy.h"
#include "report/context.h"

namespace blkperf {
namespace {

std::string PercentileName(double p) {
  return absl::StrCat("p", absl::StrFormat("%g", p));
}

std::string Percent(double part, double whole) {
  return whole > 0 ? absl::StrFormat("%.1f%%", 100.0 * part / whole) : "-";
}

std::string JsonEscape(absl::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string Quote(absl::string_view text) {
  return absl::StrCat("\"", JsonEscape(text), "\"");
}

std::string Number(double value) {
  if (!std::isfinite(value)) return "0";
  return absl::StrFormat("%.6g", value);
}

std::string LatencyLine(const LatencyHistogram& h) {
  std::vector<std::string> parts;
  for (double p : kReportPercentiles) {
    parts.push_back(absl::StrCat(PercentileName(p), "=",
                                 FormatNanos(static_cast<double>(h.Percentile(p)))));
  }
  return absl::StrJoin(parts, " ");
}

std::string ErrorsText(const ThreadSnapshot& t) {
  if (t.errors.empty()) return "none";
  std::vector<std::string> parts;
  for (const ErrorCount& e : t.errors) {
    parts.push_back(absl::StrCat(e.name, "=", e.count));
  }
  return absl::StrJoin(parts, " ");
}

std::string TargetLine(const TargetInfo& t) {
  const char* kind = t.kind == TargetKind::kBlockDevice ? "block device"
                     : t.kind == TargetKind::kNop       ? "no device: NOPs"
                                                        : "regular file";
  std::string line = absl::StrCat(OneLine(t.path), " (", kind, ", ",
                                  FormatBytes(static_cast<double>(t.size_bytes)),
                                  ", logical block ", t.logical_block_size);
  if (!t.device_name.empty()) absl::StrAppend(&line, ", on ", t.device_name);
  if (!t.limits.scheduler.empty()) {
    absl::StrAppend(&line, ", scheduler ", t.limits.scheduler);
  }
  absl::StrAppend(&line, ")");
  return line;
}

std::string JsonLatency(const LatencyHistogram& h) {
  std::vector<std::string> parts = {
      absl::StrCat("\"count\":", h.Count()),
      absl::StrCat("\"min_ns\":", h.Min()),
      absl::StrCat("\"mean_ns\":", Number(h.Mean())),
      absl::StrCat("\"max_ns\":", h.Max()),
  };
  for (double p : kReportPercentiles) {
    parts.push_back(absl::StrCat("\"", PercentileName(p), "_ns\":",
                                 h.Percentile(p)));
  }
  // Every non-empty bucket as [index, count] in model/histogram.h's layout
  // (fio's io_u_plat), so any percentile can be recomputed exactly.
  std::vector<std::string> buckets;
  for (const auto& [index, count] : h.NonEmptyBuckets()) {
    buckets.push_back(absl::StrCat("[", index, ",", count, "]"));
  }
  parts.push_back(absl::StrCat("\"sum_ns\":", h.Sum()));
  parts.push_back(absl::StrCat("\"buckets\":[", absl::StrJoin(buckets, ","), "]"));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

std::string JsonDevice(const DeviceCounters& d) {
  if (!d.available) return "null";
  return absl::StrCat("{\"requests\":", d.requests, ",\"merges\":", d.merges,
                      ",\"sectors\":", d.sectors,
                      ",\"requests_per_sqe\":", Number(d.requests_per_sqe), "}");
}

// null until the run has finished; {"unreadable": why} when it could not be read.
std::string JsonBufferPlacement(const BufferPlacement& p) {
  if (p.read) {
    return absl::StrCat("{\"pages_present\":", p.pages_present,
                        ",\"adjacent_share\":", Number(p.adjacent_share), "}");
  }
  if (!p.unreadable.empty()) {
    return absl::StrCat("{\"unreadable\":", Quote(p.unreadable), "}");
  }
  return "null";
}

std::string JsonThread(const ThreadSnapshot& t, absl::Duration elapsed) {
  std::vector<std::string> errors;
  for (const ErrorCount& e : t.errors) {
    errors.push_back(absl::StrCat("{\"errno\":", e.errno_value,
                                  ",\"name\":", Quote(e.name),
                                  ",\"count\":", e.count, "}"));
  }
  return absl::StrCat(
      "{\"thread\":", t.thread_index, ",\"cpu\":", t.cpu,
      ",\"ios\":", t.ios, ",\"bytes\":", t.bytes,
      ",\"read_ios\":", t.read_ios, ",\"read_bytes\":", t.read_bytes,
      ",\"write_ios\":", t.write_ios, ",\"write_bytes\":", t.write_bytes,
      ",\"iops\":", Number(t.Iops(elapsed)),
      ",\"bytes_per_second\":", Number(t.BytesPerSecond(elapsed)),
      ",\"sqes\":", t.sqes, ",\"enter_calls\":", t.enter_calls,
      ",\"ios_per_call\":", Number(t.IosPerCall()),
      ",\"mean_inflight\":", Number(t.MeanInflight(elapsed)),
      ",\"inflight\":", t.inflight,
      ",\"cache_hits\":", t.cache_hits, ",\"cache_misses\":", t.cache_misses,
      ",\"user_cpu_seconds\":", Number(t.user_cpu_seconds),
      ",\"system_cpu_seconds\":", Number(t.system_cpu_seconds),
      ",\"io_worker_cpu_seconds\":", Number(t.io_worker_cpu_seconds),
      ",\"errors\":[", absl::StrJoin(errors, ","), "]",
      ",\"latency\":", JsonLatency(t.latency),
      // Batch turns' parts are not fio's slat and clat: their own names.
      ",\"latency_turns\":", t.batch_turns ? "\"batch\"" : "\"per_io\"",
      t.batch_turns ? ",\"batch_wait_latency\":" : ",\"submit_latency\":",
      JsonLatency(t.submit_latency),
      t.batch_turns ? ",\"after_wait_latency\":" : ",\"completion_latency\":",
      JsonLatency(t.completion_latency),
      ",\"intended_latency\":", JsonLatency(t.intended_latency),
      ",\"issue_lag\":", JsonLatency(t.issue_lag),
      ",\"intended_tail\":",
      t.intended_latency.Count() != 0
          ? Quote(IntendedTailName(IntendedTailOf(t)))
          : std::string("null"),
      ",\"late_ios\":", t.late_ios, ",\"trim_ios\":", t.trim_ios,
      ",\"trim_bytes\":", t.trim_bytes, ",\"sync_ios\":", t.sync_ios, "}");
}

// "lat", "slat", "clat": one line of min/mean/max and one of percentiles.
void AppendLatency(absl::string_view name, absl::string_view what,
                   const LatencyHistogram& h, std::string* out) {
  absl::StrAppend(out, "  ", name, ": min=",
                  FormatNanos(static_cast<double>(h.Min())),
                  " mean=", FormatNanos(h.Mean()),
                  " max=", FormatNanos(static_cast<double>(h.Max())), "  (",
                  what, ")\n");
  absl::StrAppend(out, "  ", name, " percentiles: ", LatencyLine(h), "\n");
}

}  // namespace

std::string ErrorSitesText(const WorkloadSnapshot& s) {
  std::vector<std::string> parts;
  for (const ErrorSite& site : s.error_sites) {
    // A verify mismatch's site is its first wrong byte, not the I/O's
    // offset (ErrorSite.offset): say so where it is listed.
    parts.push_back(absl::StrCat(site.target, "@", site.offset,
                                 site.errno_value == kVerifyMismatchErrno
                                     ? "(first wrong byte)"
                                     : ""));
  }
  return absl::StrJoin(parts, " ");
}

std::string VerifyText(const VerifySummary& v) {
  if (!v.enabled) return "";
  std::vector<std::string> kinds;
  for (const auto& [kind, count] : v.by_kind) {
    if (count != 0) kinds.push_back(absl::StrCat(kind, "=", count));
  }
  std::string out = absl::StrCat(
      "  verify: checked=", v.checked, " mismatches=", v.mismatches,
      kinds.empty() ? "" : absl::StrCat(" (", absl::StrJoin(kinds, " "), ")"),
      " unwritten=", v.unwritten, "\n");
  for (const VerifyMismatchRecord& r : v.records) {
    absl::StrAppend(
        &out, "  verify mismatch: ", r.target, " offset ", r.offset,
        " first bad byte ", r.bad_byte_offset, " ", r.kind,
        absl::StrFormat(": expected target %016x offset %d length %d seed %d "
                        "generation %d..%d; found magic %s target %016x "
                        "offset %d length %d seed %d generation %d crc "
                        "%08x (computed %08x)",
                        r.expected_target_id, r.offset, r.expected_length,
                        r.expected_seed, r.expected_generation_lo,
                        r.expected_generation_hi,
                        r.found_magic_ok ? "ok" : "bad", r.found_target_id,
                        r.found_offset, r.found_length, r.found_seed,
                        r.found_generation, r.found_crc, r.computed_crc),
        r.dump_path.empty() ? "" : absl::StrCat(" dumped to ", r.dump_path),
        "\n");
  }
  if (v.mismatches > v.records.size()) {
    absl::StrAppend(&out, "  verify: ", v.mismatches - v.records.size(),
                    " more mismatch(es) counted, not listed (the first 16 "
                    "per thread are)\n");
  }
  for (const std::string& path : v.state_files) {
    absl::StrAppend(&out, "  verify state: ",
                    path.empty() ? "(not saved)" : path, "\n");
  }
  return out;
}

std::string VerifyJson(const VerifySummary& v) {
  if (!v.enabled) return "null";
  std::vector<std::string> kinds;
  for (const auto& [kind, count] : v.by_kind) {
    kinds.push_back(absl::StrCat(Quote(kind), ":", count));
  }
  std::vector<std::string> records;
  for (const VerifyMismatchRecord& r : v.records) {
    records.push_back(absl::StrCat(
        "{\"target\":", Quote(r.target), ",\"offset\":", r.offset,
        ",\"bad_byte_offset\":", r.bad_byte_offset, ",\"kind\":",
        Quote(r.kind), ",\"expected\":{\"target_id\":", r.expected_target_id,
        ",\"offset\":", r.offset, ",\"length\":", r.expected_length,
        ",\"seed\":", r.expected_seed,
        ",\"generation_min\":", r.expected_generation_lo,
        ",\"generation_max\":", r.expected_generation_hi,
        "},\"found\":{\"magic_ok\":", r.found_magic_ok ? "true" : "false",
        ",\"target_id\":", r.found_target_id, ",\"offset\":", r.found_offset,
        ",\"length\":", r.found_length, ",\"seed\":", r.found_seed,
        ",\"generation\":", r.found_generation, ",\"crc\":", r.found_crc,
        ",\"computed_crc\":", r.computed_crc, "},\"dump_path\":",
        Quote(r.dump_path), ",\"message\":", Quote(r.message), "}"));
  }
  std::vector<std::string> states;
  for (const std::string& path : v.state_files) states.push_back(Quote(path));
  return absl::StrCat("{\"checked\":", v.checked, ",\"unwritten\":",
                      v.unwritten, ",\"mismatches\":", v.mismatches,
                      ",\"by_kind\":{", absl::StrJoin(kinds, ","), "}",
                      ",\"first\":[", absl::StrJoin(records, ","), "]",
                      ",\"state_files\":[", absl::StrJoin(states, ","),
                      "]}");
}

namespace {

std::string BssplitText(const std::vector<BlockSizeShare>& reads,
                        const std::vector<BlockSizeShare>& writes) {
  if (reads == writes) return BlockSizeSplitName(reads);
  return absl::StrCat(BlockSizeSplitName(reads), ",",
                      BlockSizeSplitName(writes));
}

}  // namespace

std::string ShapeSummary(const WorkloadSpec& spec) {
  std::string line;
  if (spec.distribution.kind != OffsetDistribution::Kind::kUniform) {
    absl::StrAppend(&line, " distribution=",
                    OffsetDistributionName(spec.distribution));
  }
  if (OpIsRandom(spec.op) && spec.random_percent != 100) {
    absl::StrAppend(&line, " random_percent=", spec.random_percent);
  }
  if (!spec.read_bssplit.empty() || !spec.write_bssplit.empty()) {
    absl::StrAppend(&line, " bssplit=",
                    BssplitText(spec.read_bssplit, spec.write_bssplit));
  }
  if (spec.rate_iops != 0) {
    absl::StrAppend(&line, " rate_iops=", spec.rate_iops, " (",
                    ArrivalsName(spec.arrivals), ")");
  }
  if (spec.rate_bw != 0) {
    absl::StrAppend(&line, " rate_bw=", FormatBytes(spec.rate_bw), "/s (",
                    ArrivalsName(spec.arrivals), ")");
  }
  if (spec.fsync_every != 0) absl::StrAppend(&line, " fsync=", spec.fsync_every);
  if (spec.fdatasync_every != 0) {
    absl::StrAppend(&line, " fdatasync=", spec.fdatasync_every);
  }
  if (!spec.groups.empty()) {
    absl::StrAppend(&line, " groups=", spec.groups.size());
  }
  if (spec.slo.enabled) {
    absl::StrAppend(&line, " slo=", SloTargetName(spec.slo.target),
                    " precision=", spec.slo.precision,
                    " step=", absl::FormatDuration(spec.slo.step),
                    " settle=", absl::FormatDuration(spec.slo.settle));
  }
  return line;
}

std::string GroupSummary(const WorkloadSpec& spec, const JobGroupSpec& g) {
  const Op op = g.op.value_or(spec.op);
  std::string line = absl::StrCat(OpName(op));
  if (op == Op::kRandRW) {
    absl::StrAppend(&line, " read_percent=",
                    g.read_percent.value_or(spec.read_percent));
  }
  const auto reads = g.read_bssplit.value_or(spec.read_bssplit);
  const auto writes = g.write_bssplit.value_or(spec.write_bssplit);
  if (reads.empty() && writes.empty()) {
    absl::StrAppend(&line, " bs=",
                    FormatBytes(g.block_size.value_or(spec.block_size)));
  } else {
    absl::StrAppend(&line, " bssplit=", BssplitText(reads, writes));
  }
  absl::StrAppend(&line, " qd=", g.queue_depth.value_or(spec.queue_depth),
                  " cpus=", absl::StrJoin(g.cpus, ","));
  const OffsetDistribution d = g.distribution.value_or(spec.distribution);
  if (d.kind != OffsetDistribution::Kind::kUniform) {
    absl::StrAppend(&line, " distribution=", OffsetDistributionName(d));
  }
  const uint32_t random = g.random_percent.value_or(spec.random_percent);
  if (OpIsRandom(op) && random != 100) {
    absl::StrAppend(&line, " random_percent=", random);
  }
  const Arrivals arrivals = g.arrivals.value_or(spec.arrivals);
  if (g.rate_iops.value_or(0) != 0) {
    absl::StrAppend(&line, " rate_iops=", *g.rate_iops, " (",
                    ArrivalsName(arrivals), ")");
  }
  if (g.rate_bw.value_or(0) != 0) {
    absl::StrAppend(&line, " rate_bw=", FormatBytes(*g.rate_bw), "/s (",
                    ArrivalsName(arrivals), ")");
  }
  const uint32_t fsync = g.fsync_every.value_or(spec.fsync_every);
  const uint32_t fdatasync = g.fdatasync_every.value_or(spec.fdatasync_every);
  if (fsync != 0) absl::StrAppend(&line, " fsync=", fsync);
  if (fdatasync != 0) absl::StrAppend(&line, " fdatasync=", fdatasync);
  return line;
}

std::string SpecSummary(const WorkloadSpec& spec) {
  std::string line = absl::StrCat(
      OpName(spec.op), spec.op == Op::kRandRW
                           ? absl::StrCat(" read_percent=", spec.read_percent)
                           : "",
      " bs=", FormatBytes(spec.block_size), " qd=", spec.queue_depth,
      " batch=", spec.submit_batch, "/", spec.complete_batch,
      " threads=", spec.threads, " cpus=", absl::StrJoin(spec.cpus, ","));
  if (spec.runtime > absl::ZeroDuration() && !spec.slo.enabled) {
    absl::StrAppend(&line, " runtime=", absl::FormatDuration(spec.runtime));
  }
  if (spec.io_count != 0) absl::StrAppend(&line, " io_count=", spec.io_count);
  if (spec.ramp_time > absl::ZeroDuration()) {
    absl::StrAppend(&line, " ramp=", absl::FormatDuration(spec.ramp_time));
  }
  if (spec.steady_state.enabled) {
    absl::StrAppend(&line, " steady_state=",
                    SteadyStateCriterionName(spec.steady_state.criterion), "/",
                    SteadyStateModeName(spec.steady_state.mode));
  }
  absl::StrAppend(&line, spec.direct ? " direct" : " buffered",
                  " fixed_buffers=", spec.fixed_buffers ? "on" : "off",
                  spec.vectored ? " vectored" : "",
                  " buffer_layout=", BufferLayoutName(spec.buffer_layout),
                  " huge_pages=", HugePageModeName(spec.huge_pages),
                  " registered_files=", spec.registered_files ? "on" : "off",
                  " polled=", PollModeName(spec.polled),
                  " request_cache=", RequestCacheModeName(spec.request_cache));
  if (spec.ab_strategies.empty()) {
    absl::StrAppend(&line, " split=", SplitStrategyName(spec.split));
  } else {  // `split` is ignored in A/B mode
    absl::StrAppend(&line, " ab=",
                    absl::StrJoin(spec.ab_strategies, ",",
                                  [](std::string* out, const SplitStrategy& s) {
                                    out->append(SplitStrategyName(s));
                                  }),
                    " ab_slice=", absl::FormatDuration(spec.ab_slice));
  }
  if (spec.sqpoll) absl::StrAppend(&line, " sqpoll");
  if (spec.verify) absl::StrAppend(&line, " verify");
  if (spec.verify_pass) absl::StrAppend(&line, " verify_pass");
  if (spec.force_async) absl::StrAppend(&line, " force_async");
  absl::StrAppend(&line, " latency_mode=", LatencyModeName(spec.latency_mode),
                  " io_timeout=", absl::FormatDuration(spec.io_timeout));
  absl::StrAppend(&line, ShapeSummary(spec));
  if (spec.precondition.sequential_passes != 0) {
    absl::StrAppend(&line, " precondition=sequential:",
                    spec.precondition.sequential_passes);
  }
  return line;
}

namespace {

std::string Ns(uint64_t ns) { return FormatNanos(static_cast<double>(ns)); }

}  // namespace

IntendedTail IntendedTailOf(const ThreadSnapshot& t) {
  if (t.intended_latency.Count() == 0) return IntendedTail::kNone;
  if (t.issue_lag.Percentile(99) < t.latency.Percentile(99)) {
    return IntendedTail::kServiceLatency;
  }
  // At least 1 % of the I/Os (the p99 tail) found the queue full.
  return t.late_ios * 100 >= t.ios ? IntendedTail::kQueueFull
                                   : IntendedTail::kGenerator;
}

absl::string_view IntendedTailName(IntendedTail tail) {
  switch (tail) {
    case IntendedTail::kNone:
      return "";
    case IntendedTail::kServiceLatency:
      return "service_latency";
    case IntendedTail::kQueueFull:
      return "issue_lag_queue_full";
    case IntendedTail::kGenerator:
      return "issue_lag_generator";
  }
  return "";
}

std::string RequestCacheText(RequestCacheMode mode, const ThreadSnapshot& t) {
  if (mode == RequestCacheMode::kShared) {
    // Every Get takes from the one pool under its lock: no "hit" exists,
    // and no take allocates (the pool's objects are made at setup).
    return absl::StrCat(
        "  request cache: shared: ", t.cache_misses,
        " requests taken from the shared pool (under its lock; its objects "
        "were all made at setup, none per I/O)\n");
  }
  const uint64_t gets = t.cache_hits + t.cache_misses;
  return absl::StrCat(
      "  request cache: ", RequestCacheModeName(mode), " hits=", t.cache_hits,
      " (thread's own cache) misses=", t.cache_misses,
      " (taken from the shared pool; none allocates) (hit rate ",
      Percent(static_cast<double>(t.cache_hits), static_cast<double>(gets)),
      ")\n");
}

std::string OpenLoopText(const ThreadSnapshot& t) {
  if (t.intended_latency.Count() == 0) return "";
  std::string out;
  AppendLatency("ilat", "intended time: from each I/O's scheduled issue "
                "time to its reap; ilat = lag + lat per I/O",
                t.intended_latency, &out);
  AppendLatency("lag", "issue lag: from the scheduled issue time to "
                "submission", t.issue_lag, &out);
  absl::StrAppend(
      &out, "  open loop: late=", t.late_ios, " of ", t.ios,
      " I/Os issued after their intended time because every queue slot "
      "was taken when they were due (", Percent(static_cast<double>(t.late_ios),
                                              static_cast<double>(t.ios)),
      "); lat above is the service time from submission\n");
  const std::string ilat = Ns(t.intended_latency.Percentile(99));
  const std::string lag = Ns(t.issue_lag.Percentile(99));
  const std::string lat = Ns(t.latency.Percentile(99));
  switch (IntendedTailOf(t)) {
    case IntendedTail::kServiceLatency:
      absl::StrAppend(&out, "  tail: ilat p99=", ilat,
                      " is carried by service latency (lat p99=", lat,
                      " >= lag p99=", lag, "): the device\n");
      break;
    case IntendedTail::kQueueFull:
      absl::StrAppend(&out, "  tail: ilat p99=", ilat,
                      " is carried by issue lag (lag p99=", lag,
                      " > lat p99=", lat,
                      "): I/Os waited for a queue slot, the device is "
                      "behind the rate\n");
      break;
    case IntendedTail::kGenerator:
      absl::StrAppend(&out, "  tail: ilat p99=", ilat,
                      " is carried by issue lag (lag p99=", lag,
                      " > lat p99=", lat,
                      ") with the queue not full: the submitter itself "
                      "issued late (short of CPU?), not the device\n");
      break;
    case IntendedTail::kNone:
      break;
  }
  return out;
}

std::string GroupText(absl::string_view name, absl::string_view summary,
                      const ThreadSnapshot& t, double iops,
                      double bytes_per_second) {
  return absl::StrCat(
      "  group ", name, ": ", summary, "\n    IOPS=", FormatCount(iops),
      " BW=", FormatBytes(bytes_per_second), "/s",
      " read_ios=", t.read_ios, " write_ios=", t.write_ios,
      t.trim_ios != 0 ? absl::StrCat(" trim_ios=", t.trim_ios) : "",
      " p50=", Ns(t.latency.Percentile(50)),
      " p99=", Ns(t.latency.Percentile(99)),
      t.intended_latency.Count() != 0
          ? absl::StrCat(" intended p99=", Ns(t.intended_latency.Percentile(99)),
                         " p99.9=", Ns(t.intended_latency.Percentile(99.9)),
                         " late=", t.late_ios)
          : "",
      "\n");
}

namespace {

// Open loop: intended-time latency and the I/Os a full queue held back.
// Trims and syncs when there were any.
std::string ShapeText(const ThreadSnapshot& t, double seconds) {
  std::string out;
  if (t.trim_ios != 0) {
    absl::StrAppend(&out, "  trim: IOPS=",
                    FormatCount(t.trim_ios / std::max(seconds, 1e-9)),
                    " BW=", FormatBytes(t.trim_bytes / std::max(seconds, 1e-9)),
                    "/s  trims=", t.trim_ios, " (in ios and bytes)\n");
  }
  if (t.sync_ios != 0) {
    absl::StrAppend(&out, "  syncs: ", t.sync_ios,
                    " completed (not in ios, IOPS or latency)\n");
  }
  absl::StrAppend(&out, OpenLoopText(t));
  return out;
}

std::string GroupsText(const WorkloadSpec& spec, const WorkloadSnapshot& s) {
  std::string out;
  for (size_t i = 0; i < s.groups.size(); ++i) {
    const GroupSnapshot& g = s.groups[i];
    absl::StrAppend(
        &out, GroupText(g.name,
                        i < spec.groups.size() ? GroupSummary(spec, spec.groups[i])
                                               : "",
                        g.total, g.total.Iops(s.elapsed),
                        g.total.BytesPerSecond(s.elapsed)));
  }
  return out;
}

// " value 95% [low, high] from N tail I/Os": the objective percentile's
// order-statistic interval; "high" is "none" with too few tail I/Os.
std::string SloIntervalText(const SloStep& st) {
  if (!st.interval_known) return "";
  return absl::StrCat(
      " value=", Ns(st.value_ns), " ", absl::StrFormat("%g", 100 * kSloConfidence),
      "%[", Ns(st.value_low_ns), ", ",
      st.value_bounded_above ? Ns(st.value_high_ns) : std::string("unbounded"),
      "] from ", st.tail_ios, " tail I/Os");
}

std::string SloStepText(size_t i, const SloStep& st) {
  return absl::StrCat(
      "    step ", i, " ",
      st.asked_iops > 0 ? absl::StrCat("rate ", FormatCount(st.asked_iops))
                        : std::string("closed loop"),
      ": IOPS=", FormatCount(st.iops), " p50=", Ns(st.p50_ns),
      " p99=", Ns(st.p99_ns), " p99.9=", Ns(st.p99_9_ns),
      st.asked_iops > 0 ? absl::StrCat(" late=", st.late_ios) : "",
      SloIntervalText(st),
      st.asked_iops > 0 ? absl::StrCat(" ", SloVerdictName(st.verdict)) : "",
      st.retest ? " (re-test)" : "", "\n");
}

std::string SloText(const SloSummary& slo) {
  if (!slo.enabled) return "";
  std::string out = absl::StrCat(
      "  slo search ", SloTargetName(slo.target), " (intended-time latency; ",
      "precision ", absl::StrFormat("%g%%", 100 * slo.precision), " of the ",
      "closed-loop IOPS; steps of ", absl::FormatDuration(slo.step), " after ",
      absl::FormatDuration(slo.settle), " to settle):\n");
  for (size_t i = 0; i < slo.steps.size(); ++i) {
    absl::StrAppend(&out, SloStepText(i, slo.steps[i]));
  }
  if (!slo.done) {
    absl::StrAppend(&out, "    (searching)\n");
  } else if (slo.best_iops > 0) {
    absl::StrAppend(
        &out, "    answer: ", FormatCount(slo.best_iops), " IOPS meet ",
        SloTargetName(slo.target), " (achieved ",
        FormatCount(slo.best_achieved_iops), "; its ",
        SloTargetName(slo.target).substr(0, SloTargetName(slo.target).find_first_of("<")),
        " ", absl::StrFormat("%g", 100 * kSloConfidence), "% interval [",
        Ns(slo.best_value_low_ns), ", ", Ns(slo.best_value_high_ns), "]); ",
        slo.failed_iops < slo.max_iops
            ? absl::StrCat("missed at ", FormatCount(slo.failed_iops))
            : absl::StrCat("no tested rate missed up to the closed-loop ",
                           FormatCount(slo.max_iops)),
        "\n");
  }
  if (slo.done) {
    absl::StrAppend(&out, "    knee: ",
                    slo.knee_iops > 0 ? absl::StrCat(FormatCount(slo.knee_iops),
                                                     " IOPS")
                                      : std::string("none (too few steps or "
                                                    "a flat curve)"),
                    "\n");
  }
  if (!slo.note.empty()) absl::StrAppend(&out, "    note: ", slo.note, "\n");
  if (!slo.warning.empty()) {
    absl::StrAppend(&out, "    warning: repeats disagree: ", slo.warning, "\n");
  }
  return out;
}

std::string SloJson(const SloSummary& slo) {
  if (!slo.enabled) return "null";
  std::vector<std::string> steps;
  for (const SloStep& st : slo.steps) {
    steps.push_back(absl::StrCat(
        "{\"asked_iops\":", Number(st.asked_iops), ",\"iops\":",
        Number(st.iops), ",\"ios\":", st.ios, ",\"late_ios\":", st.late_ios,
        ",\"p50_ns\":", st.p50_ns, ",\"p99_ns\":", st.p99_ns,
        ",\"p99_9_ns\":", st.p99_9_ns, ",\"value_ns\":", st.value_ns,
        ",\"met\":", st.met ? "true" : "false",
        ",\"verdict\":", Quote(SloVerdictName(st.verdict)),
        ",\"retest\":", st.retest ? "true" : "false",
        ",\"tail_ios\":", st.tail_ios,
        ",\"value_low_ns\":", st.value_low_ns,
        ",\"value_high_ns\":",
        st.value_bounded_above ? absl::StrCat(st.value_high_ns) : "null",
        ",\"elapsed_seconds\":", Number(absl::ToDoubleSeconds(st.elapsed)),
        "}"));
  }
  return absl::StrCat(
      "{\"objective\":", Quote(SloTargetName(slo.target)),
      ",\"precision\":", Number(slo.precision),
      ",\"step_seconds\":", Number(absl::ToDoubleSeconds(slo.step)),
      ",\"settle_seconds\":", Number(absl::ToDoubleSeconds(slo.settle)),
      ",\"done\":", slo.done ? "true" : "false",
      ",\"max_iops\":", Number(slo.max_iops),
      ",\"best_iops\":", Number(slo.best_iops),
      ",\"best_achieved_iops\":", Number(slo.best_achieved_iops),
      ",\"failed_iops\":", Number(slo.failed_iops),
      ",\"knee_iops\":", Number(slo.knee_iops),
      ",\"best_value_low_ns\":", slo.best_value_low_ns,
      ",\"best_value_high_ns\":", slo.best_value_high_ns,
      ",\"confidence\":", Number(kSloConfidence),
      ",\"warning\":", Quote(slo.warning),
      ",\"note\":", Quote(slo.note), ",\"steps\":[",
      absl::StrJoin(steps, ","), "]}");
}

// Fleet runs: how the scheduled start went, e.g. "start: scheduled
// 12.000000000s (monotonic), first submit 41.2us after it, threads spread
// 8.1us, real-time wait 2/2 threads".
std::string StartLine(const StartTimes& st) {
  const auto us = [](int64_t ns) {
    return absl::StrFormat("%.1fus", static_cast<double>(ns) / 1e3);
  };
  return absl::StrCat(
      "start: scheduled ",
      absl::StrFormat("%.9fs", st.scheduled_monotonic_ns / 1e9),
      " (monotonic), first submit ",
      us(std::abs(st.first_monotonic_ns - st.scheduled_monotonic_ns)),
      st.first_monotonic_ns >= st.scheduled_monotonic_ns ? " after" : " before",
      " it, threads spread ", us(st.last_monotonic_ns - st.first_monotonic_ns),
      ", real-time wait ", st.realtime_wait_threads, "/", st.threads_started,
      " threads",
      st.realtime_wait_threads < st.threads_started
          ? absl::StrCat(" (the others waited at normal priority and may "
                         "start late under load: ",
                         st.realtime_wait_error, ")")
          : "",
      "\n");
}

}  // namespace

namespace {

// "ring: ..." : how the rings were set up.
std::string RingText(const WorkloadSnapshot& s) {
  std::string out;
  std::vector<std::string> ring = s.ring.setup_flags;
  if (ring.empty()) ring.push_back("no setup flags");
  absl::StrAppend(
      &out, "ring: ", absl::StrJoin(ring, "|"),
      s.ring.registered_ring_fd ? ", registered ring fd" : "",
      ", ", s.ring.io_mode, " I/O",
      s.ring.fixed_buffers
          ? absl::StrCat(", fixed buffers (", s.ring.buffer_layout, ")")
          : ", unregistered buffers",
      s.ring.registered_files ? ", registered files" : "",
      s.ring.polled ? ", polled completions" : ", interrupt completions",
      s.ring.sqpoll ? ", sqpoll" : "",
      s.ring.huge_pages ? ", huge-page buffers" : "",
      absl::StrFormat(", %u SQ / %u CQ entries for %u piece(s) per I/O",
                      s.ring.sq_entries, s.ring.cq_entries,
                      s.ring.pieces_per_io),
      s.ring.wait_bound.empty() ? "" : ", waits bounded by ",
      s.ring.wait_bound, s.ring.clock.empty() ? "" : ", clock ", s.ring.clock,
      "\n");
  return out;
}

// Rates, depth, I/Os per syscall and CPU of the total.
std::string RatesText(const WorkloadSpec& spec, const WorkloadSnapshot& s) {
  std::string out;
  const ThreadSnapshot& t = s.total;
  const double seconds = absl::ToDoubleSeconds(s.elapsed);
  absl::StrAppend(&out, "  IOPS=", FormatCount(t.Iops(s.elapsed)),
                  "  BW=", FormatBytes(t.BytesPerSecond(s.elapsed)), "/s",
                  "  ios=", t.ios, "  bytes=", t.bytes, " (",
                  FormatBytes(static_cast<double>(t.bytes)), ")\n");
  if (t.read_ios != 0 && t.write_ios != 0) {
    absl::StrAppend(
        &out, "  read: IOPS=", FormatCount(t.read_ios / std::max(seconds, 1e-9)),
        " BW=", FormatBytes(t.read_bytes / std::max(seconds, 1e-9)), "/s",
        "  write: IOPS=", FormatCount(t.write_ios / std::max(seconds, 1e-9)),
        " BW=", FormatBytes(t.write_bytes / std::max(seconds, 1e-9)), "/s\n");
  }
  if (t.latency.Count() != 0 && !s.threads.empty()) {
    const double per_thread =
        t.MeanInflight(s.elapsed) / static_cast<double>(s.threads.size());
    absl::StrAppend(
        &out, "  depth: ", absl::StrFormat("%.2f", per_thread),
        " I/Os in flight on average per thread",
        spec.groups.empty() ? absl::StrCat(" of qd=", spec.queue_depth, " asked")
                            : "",
        " (Little's law: IOPS x mean lat)\n");
  }
  absl::StrAppend(&out, "  IOs per syscall: ",
                  absl::StrFormat("%.2f", t.IosPerCall()), " (", t.enter_calls,
                  " io_uring_enter calls, ", t.sqes, " SQEs)\n");
  const double cpu_wall = seconds * static_cast<double>(s.threads.size());
  absl::StrAppend(&out, "  cpu: usr=", Percent(t.user_cpu_seconds, cpu_wall),
                  " sys=", Percent(t.system_cpu_seconds, cpu_wall),
                  " (of ", s.threads.size(), " submitter thread(s))",
                  "  io_uring workers=",
                  Percent(t.io_worker_cpu_seconds, cpu_wall), "\n");
  return out;
}

// lat, slat and clat, or why there are none.
std::string LatencyText(const WorkloadSpec& spec, const ThreadSnapshot& t) {
  std::string out;
  if (t.latency.Count() != 0) {
    if (t.batch_turns) {  // not fio's slat and clat: their own names
      AppendLatency("lat", "total = batch_wait + after_wait", t.latency, &out);
      AppendLatency("batch_wait", "the enter that submitted and waited",
                    t.submit_latency, &out);
      AppendLatency("after_wait", "its return to the reap",
                    t.completion_latency, &out);
    } else {
      AppendLatency("lat", "total = slat + clat", t.latency, &out);
      AppendLatency("slat", "submission", t.submit_latency, &out);
      AppendLatency("clat", "completion", t.completion_latency, &out);
    }
  } else if (!spec.latency_tracking) {
    absl::StrAppend(&out, "  lat: not tracked (latency_tracking off)\n");
  }
  return out;
}

// Split pieces, device requests and the buffers' page placement.
std::string SplitText(const WorkloadSnapshot& s) {
  std::string out;
  const ThreadSnapshot& t = s.total;
  absl::StrAppend(&out, "  split: ", s.split_strategy, "  pieces per I/O: ",
                  absl::StrFormat("%.2f", t.ios != 0 ? static_cast<double>(t.sqes) / t.ios : 0.0));
  if (s.device.available) {
    absl::StrAppend(&out, "  device requests per SQE: ",
                    absl::StrFormat("%.2f", s.device.requests_per_sqe),
                    " (requests=", s.device.requests,
                    " merges=", s.device.merges,
                    "; counts any other I/O on the device too)");
  }
  absl::StrAppend(&out, "\n");
  if (s.buffer_placement.read) {
    absl::StrAppend(
        &out, "  buffer pages: ", s.buffer_placement.pages_present,
        " present, ",
        absl::StrFormat("%.2f", s.buffer_placement.adjacent_share),
        " physically next to the page before (1 = contiguous; on 4 KiB "
        "pages it moves what plain buffers cost)\n");
  } else if (!s.buffer_placement.unreadable.empty()) {
    absl::StrAppend(&out, "  buffer pages: placement not read: ",
                    s.buffer_placement.unreadable, "\n");
  }
  return out;
}

// Split-strategy phases and A/B results.
std::string PhasesText(const WorkloadSnapshot& s) {
  std::string out;
  if (s.phases.size() > 1) {
    for (const PhaseSnapshot& p : s.phases) {
      absl::StrAppend(
          &out, "  phase ", p.index, " ", p.strategy, " ",
          absl::StrFormat("%.2fs-%.2fs", absl::ToDoubleSeconds(p.start),
                          absl::ToDoubleSeconds(p.end)),
          ": IOPS=", FormatCount(p.total.Iops(p.elapsed)),
          " BW=", FormatBytes(p.total.BytesPerSecond(p.elapsed)), "/s",
          " pieces/IO=", absl::StrFormat("%.2f", p.PiecesPerIo()),
          p.device.available
              ? absl::StrFormat(" dev req/SQE=%.2f", p.device.requests_per_sqe)
              : "",
          " p50=", FormatNanos(static_cast<double>(p.total.latency.Percentile(50))),
          " p99=", FormatNanos(static_cast<double>(p.total.latency.Percentile(99))),
          "\n");
    }
  }
  for (const AbStrategyResult& r : s.ab) {
    absl::StrAppend(&out, "  A/B ", r.strategy, ": median IOPS=",
                    FormatCount(r.median_iops), " BW=",
                    FormatBytes(r.median_bytes_per_second), "/s over ",
                    r.slices, " slices, ratio to ", s.ab[0].strategy, " ",
                    absl::StrFormat("%.3f", r.ratio_to_first),
                    r.verdict.empty()
                        ? ""
                        : absl::StrFormat(
                              "; slice by slice %.3f, 95%% interval "
                              "%.3f-%.3f over %d pairs: %s against a 2%% "
                              "margin",
                              r.paired_ratio, r.paired_ratio_ci_low,
                              r.paired_ratio_ci_high, r.pairs, r.verdict),
                    r.note.empty() ? "" : absl::StrCat(" (note: ", r.note, ")"),
                    "\n");
  }
  return out;
}

// Errors: counts, the first, the sites of failed I/Os.
std::string ErrorsSection(const WorkloadSnapshot& s) {
  std::string out;
  const ThreadSnapshot& t = s.total;
  absl::StrAppend(&out, "  errors: ", ErrorsText(t), "\n");
  if (s.has_error) absl::StrAppend(&out, "  first error: ", s.error.message, "\n");
  if (!s.error_sites.empty()) {
    absl::StrAppend(&out, "  failed I/Os: ", t.ErrorTotal(), " counted; the first ",
                    s.error_sites.size(), " at (target@byte offset of the I/O, "
                    "or of a verify mismatch's first wrong byte): ",
                    ErrorSitesText(s), "\n");
  }
  return out;
}

// One line per submitter thread.
std::string ThreadsText(const WorkloadSnapshot& s) {
  std::string out;
  const double seconds = absl::ToDoubleSeconds(s.elapsed);
  for (const ThreadSnapshot& th : s.threads) {
    absl::StrAppend(
        &out, "  thread ", th.thread_index, " cpu ", th.cpu,
        ": IOPS=", FormatCount(th.Iops(s.elapsed)),
        " BW=", FormatBytes(th.BytesPerSecond(s.elapsed)), "/s",
        " IOs/call=", absl::StrFormat("%.2f", th.IosPerCall()),
        " p50=", FormatNanos(static_cast<double>(th.latency.Percentile(50))),
        " p99=", FormatNanos(static_cast<double>(th.latency.Percentile(99))),
        " usr=", Percent(th.user_cpu_seconds, seconds),
        " sys=", Percent(th.system_cpu_seconds, seconds), "\n");
  }
  return out;
}

}  // namespace

std::string FormatTextReport(const WorkloadSpec& spec,
                             const std::vector<TargetInfo>& targets,
                             const WorkloadSnapshot& s) {
  const ThreadSnapshot& t = s.total;
  const double seconds = absl::ToDoubleSeconds(s.elapsed);
  std::string out = absl::StrCat("blkperf: ", SpecSummary(spec), "\n");
  absl::StrAppend(&out, EnvironmentText(s.environment));
  for (const TargetInfo& target : targets) {
    absl::StrAppend(&out, "target: ", TargetLine(target), "\n");
  }
  absl::StrAppend(&out, RingText(s));
  absl::StrAppend(&out, PreconditionText(s.precondition));
  absl::StrAppend(&out, "state: ", WorkloadStateName(s.state), "  measured ",
                  absl::StrFormat("%.2fs", seconds), "\n");
  if (s.start.scheduled_monotonic_ns != 0 && s.start.first_monotonic_ns != 0) {
    absl::StrAppend(&out, StartLine(s.start));
  }
  absl::StrAppend(&out, RatesText(spec, s), LatencyText(spec, t),
                  ShapeText(t, seconds),
                  RequestCacheText(spec.request_cache, t), SplitText(s),
                  PhasesText(s));
  absl::StrAppend(&out, GroupsText(spec, s), SloText(s.slo),
                  SeriesText(s.series), SteadyStateText(s.steady_state));
  absl::StrAppend(&out, ErrorsSection(s), VerifyText(s.verify), ThreadsText(s));
  for (const std::string& note : s.notes) {
    absl::StrAppend(&out, "note: ", note, "\n");
  }
  return out;
}

namespace {

// "[{path, kind, size_bytes, logical_block_size, device}, ...]".
std::string TargetsJson(const std::vector<TargetInfo>& targets) {
  std::vector<std::string> target_json;
  for (const TargetInfo& t : targets) {
    target_json.push_back(absl::StrCat(
        "{\"path\":", Quote(t.path), ",\"kind\":",
        Quote(t.kind == TargetKind::kBlockDevice ? "block"
              : t.kind == TargetKind::kNop       ? "nop"
                                                 : "file"),
        ",\"size_bytes\":", t.size_bytes,
        ",\"logical_block_size\":", t.logical_block_size,
        ",\"device\":", Quote(t.device_name), "}"));
  }
  return absl::StrCat("[", absl::StrJoin(target_json, ","), "]");
}

std::string PhasesJson(const WorkloadSnapshot& s) {
  std::vector<std::string> phases;
  for (const PhaseSnapshot& p : s.phases) {
    phases.push_back(absl::StrCat(
        "{\"index\":", p.index, ",\"strategy\":", Quote(p.strategy),
        ",\"start_seconds\":", Number(absl::ToDoubleSeconds(p.start)),
        ",\"end_seconds\":", Number(absl::ToDoubleSeconds(p.end)),
        ",\"pieces_per_io\":", Number(p.PiecesPerIo()),
        ",\"device\":", JsonDevice(p.device),
        ",\"total\":", JsonThread(p.total, p.elapsed), "}"));
  }
  return absl::StrCat("[", absl::StrJoin(phases, ","), "]");
}

std::string AbJson(const WorkloadSnapshot& s) {
  std::vector<std::string> ab;
  for (const AbStrategyResult& r : s.ab) {
    ab.push_back(absl::StrCat(
        "{\"strategy\":", Quote(r.strategy), ",\"slices\":", r.slices,
        ",\"median_iops\":", Number(r.median_iops),
        ",\"median_bytes_per_second\":", Number(r.median_bytes_per_second),
        ",\"ratio_to_first\":", Number(r.ratio_to_first),
        ",\"paired_ratio\":", Number(r.paired_ratio),
        ",\"paired_ratio_ci\":[", Number(r.paired_ratio_ci_low), ",",
        Number(r.paired_ratio_ci_high), "],\"pairs\":", r.pairs,
        ",\"verdict\":", r.verdict.empty() ? "null" : Quote(r.verdict),
        ",\"note\":", Quote(r.note), "}"));
  }
  return absl::StrCat("[", absl::StrJoin(ab, ","), "]");
}

std::string ErrorSitesJson(const WorkloadSnapshot& s) {
  std::vector<std::string> sites;
  for (const ErrorSite& site : s.error_sites) {
    sites.push_back(absl::StrCat("{\"errno\":", site.errno_value,
                                 ",\"target\":", Quote(site.target),
                                 ",\"offset\":", site.offset, "}"));
  }
  return absl::StrCat("[", absl::StrJoin(sites, ","), "]");
}

// The first error, or null.
std::string FirstErrorJson(const WorkloadSnapshot& s) {
  std::string error = "null";
  if (s.has_error) {
    error = absl::StrCat("{\"errno\":", s.error.errno_value,
                         ",\"target\":", Quote(s.error.target),
                         ",\"offset\":", s.error.offset,
                         ",\"message\":", Quote(s.error.message), "}");
  }
  return error;
}

std::string GroupsJson(const WorkloadSnapshot& s) {
  std::vector<std::string> groups;
  for (const GroupSnapshot& g : s.groups) {
    groups.push_back(absl::StrCat("{\"name\":", Quote(g.name),
                                  ",\"threads\":[", absl::StrJoin(g.threads, ","),
                                  "],\"total\":", JsonThread(g.total, s.elapsed),
                                  "}"));
  }
  return absl::StrCat("[", absl::StrJoin(groups, ","), "]");
}

std::string StartJson(const StartTimes& st) {
  return absl::StrCat(
      "{\"scheduled_monotonic_ns\":", st.scheduled_monotonic_ns,
      ",\"first_submit_monotonic_ns\":", st.first_monotonic_ns,
      ",\"first_submit_realtime_ns\":", st.first_realtime_ns,
      ",\"last_thread_first_submit_monotonic_ns\":", st.last_monotonic_ns,
      ",\"threads_started\":", st.threads_started,
      ",\"realtime_wait_threads\":", st.realtime_wait_threads,
      ",\"realtime_wait_error\":", Quote(st.realtime_wait_error),
      ",\"measure_start_monotonic_ns\":", st.measure_start_monotonic_ns, "}");
}

std::string RingJson(const RingSetup& ring) {
  std::vector<std::string> flags;
  for (const std::string& f : ring.setup_flags) flags.push_back(Quote(f));
  const auto boolean = [](bool b) { return b ? "true" : "false"; };
  return absl::StrCat(
      "{\"setup_flags\":[", absl::StrJoin(flags, ","), "]",
      ",\"registered_ring_fd\":", boolean(ring.registered_ring_fd),
      ",\"fixed_buffers\":", boolean(ring.fixed_buffers),
      ",\"registered_files\":", boolean(ring.registered_files),
      ",\"polled\":", boolean(ring.polled),
      ",\"sqpoll\":", boolean(ring.sqpoll),
      ",\"huge_pages\":", boolean(ring.huge_pages),
      ",\"sq_entries\":", ring.sq_entries,
      ",\"cq_entries\":", ring.cq_entries,
      ",\"pieces_per_io\":", ring.pieces_per_io,
      ",\"buffer_layout\":", Quote(ring.buffer_layout),
      ",\"io_mode\":", Quote(ring.io_mode),
      ",\"wait_bound\":", Quote(ring.wait_bound),
      ",\"clock\":", Quote(ring.clock), "}");
}

}  // namespace

std::string FormatJsonReport(const WorkloadSpec& spec,
                             const std::vector<TargetInfo>& targets,
                             const WorkloadSnapshot& s) {
  std::vector<std::string> threads;
  for (const ThreadSnapshot& t : s.threads) {
    threads.push_back(JsonThread(t, s.elapsed));
  }
  std::vector<std::string> notes;
  for (const std::string& n : s.notes) notes.push_back(Quote(n));
  return absl::StrCat(
      "{\"spec\":", Quote(SpecSummary(spec)),
      ",\"state\":", Quote(WorkloadStateName(s.state)),
      ",\"start\":", StartJson(s.start),
      ",\"elapsed_seconds\":", Number(absl::ToDoubleSeconds(s.elapsed)),
      ",\"targets\":", TargetsJson(targets),
      ",\"ring\":", RingJson(s.ring),
      ",\"total\":", JsonThread(s.total, s.elapsed),
      ",\"threads\":[", absl::StrJoin(threads, ","), "]",
      ",\"split_strategy\":", Quote(s.split_strategy),
      ",\"device\":", JsonDevice(s.device),
      ",\"other_cpu_share\":",
      std::isfinite(s.other_cpu_share) ? Number(s.other_cpu_share) : "null",
      ",\"buffer_placement\":", JsonBufferPlacement(s.buffer_placement),
      ",\"phases\":", PhasesJson(s),
      ",\"ab\":", AbJson(s),
      ",\"notes\":[", absl::StrJoin(notes, ","), "]",
      ",\"error\":", FirstErrorJson(s),
      ",\"error_total\":", s.total.ErrorTotal(),
      ",\"error_sites\":", ErrorSitesJson(s),
      ",\"verify\":", VerifyJson(s.verify),
      ",\"groups\":", GroupsJson(s),
      ",\"slo\":", SloJson(s.slo),
      ",\"environment\":", EnvironmentJson(s.environment),
      ",\"precondition\":", PreconditionJson(s.precondition),
      ",\"series_interval_seconds\":",
      Number(absl::ToDoubleSeconds(s.series.interval)),
      ",\"series_ticks_per_point\":", s.series.ticks_per_point,
      ",\"series_downsampled\":", s.series.downsampled ? "true" : "false",
      ",\"series_hosts\":", s.series.hosts,
      ",\"series\":", SeriesJson(s.series),
      ",\"steady_state\":", SteadyStateJson(s.steady_state), "}\n");
}

std::string FormatStatusLine(const WorkloadSnapshot& previous,
                             const WorkloadSnapshot& current) {
  if (current.state == WorkloadState::kCreating &&
      current.precondition.passes != 0) {
    return absl::StrCat("[", WorkloadStateName(current.state), "] ",
                        PreconditionProgressText(current.precondition));
  }
  ThreadSnapshot delta = current.total;
  const ThreadSnapshot& before = previous.total;
  delta.ios -= std::min(delta.ios, before.ios);
  delta.bytes -= std::min(delta.bytes, before.bytes);
  LatencyHistogram interval = current.total.latency;
  interval.Subtract(before.latency);
  const absl::Duration span = current.elapsed - previous.elapsed;
  return absl::StrCat(
      "[", WorkloadStateName(current.state), " ",
      absl::StrFormat("%.0fs", absl::ToDoubleSeconds(current.elapsed)),
      "] IOPS=", FormatCount(delta.Iops(span)),
      " BW=", FormatBytes(delta.BytesPerSecond(span)), "/s",
      " p50=", FormatNanos(static_cast<double>(interval.Percentile(50))),
      " p99=", FormatNanos(static_cast<double>(interval.Percentile(99))),
      current.split_strategy.empty() ? ""
                                     : absl::StrCat(" split=",
                                                    current.split_strategy),
      " errors=", current.total.ErrorTotal());
}

}  // namespace blkperf
