#include "report/context.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/bounded_text.h"
#include "base/units.h"
#include "model/workload_spec.h"

namespace blkperf {
namespace {

std::string Quoted(const std::string& text) {
  std::string out = "\"";
  AppendEscaped(text, &out);
  out += "\"";
  return out;
}

std::string Members(const std::vector<std::pair<const char*, const std::string*>>& kv) {
  std::vector<std::string> parts;
  parts.reserve(kv.size());
  for (const auto& [key, value] : kv) {
    parts.push_back(absl::StrCat("\"", key, "\":", Quoted(*value)));
  }
  return absl::StrJoin(parts, ",");
}

std::string TargetJson(const TargetEnvironment& t) {
  return absl::StrCat(
      "{",
      Members({{"path", &t.path},
               {"device", &t.device},
               {"model", &t.model},
               {"firmware_rev", &t.firmware_rev},
               {"serial", &t.serial},
               {"wwid", &t.wwid},
               {"size_bytes", &t.size_bytes},
               {"logical_block_size", &t.logical_block_size},
               {"physical_block_size", &t.physical_block_size},
               {"rotational", &t.rotational},
               {"scheduler", &t.scheduler},
               {"nomerges", &t.nomerges},
               {"rq_affinity", &t.rq_affinity},
               {"nr_requests", &t.nr_requests},
               {"max_sectors_kb", &t.max_sectors_kb},
               {"write_cache", &t.write_cache},
               {"numa_node", &t.numa_node}}),
      "}");
}

std::string Num(double v) { return absl::StrFormat("%.6g", v); }

}  // namespace

std::string EnvironmentJson(const Environment& env) {
  std::vector<std::string> targets;
  for (const TargetEnvironment& t : env.targets) targets.push_back(TargetJson(t));
  return absl::StrCat(
      "{",
      Members({{"blkperf_version", &env.blkperf_version},
               {"blkperf_commit", &env.blkperf_commit},
               {"hostname", &env.hostname},
               {"boot_id", &env.boot_id},
               {"kernel_release", &env.kernel_release},
               {"kernel_version", &env.kernel_version},
               {"machine", &env.machine},
               {"cpu_model", &env.cpu_model},
               {"online_cpus", &env.online_cpus},
               {"smt", &env.smt},
               {"cpu_governor", &env.cpu_governor},
               {"numa_nodes", &env.numa_nodes},
               {"memory_bytes", &env.memory_bytes},
               {"io_uring_features", &env.io_uring_features},
               {"liburing_version", &env.liburing_version},
               {"spec_hash", &env.spec_hash}}),
      ",\"targets\":[", absl::StrJoin(targets, ","), "]}");
}

std::string SeriesJson(const Series& series) {
  std::vector<std::string> points;
  points.reserve(series.points.size());
  for (const SeriesPoint& p : series.points) {
    points.push_back(absl::StrCat(
        "{\"start_seconds\":", Num(absl::ToDoubleSeconds(p.start)),
        ",\"length_seconds\":", Num(absl::ToDoubleSeconds(p.length)),
        ",\"read_iops\":", Num(p.ReadIops()),
        ",\"write_iops\":", Num(p.WriteIops()),
        ",\"read_bytes_per_second\":", Num(p.ReadBytesPerSecond()),
        ",\"write_bytes_per_second\":", Num(p.WriteBytesPerSecond()),
        ",\"read_ios\":", p.read_ios, ",\"write_ios\":", p.write_ios,
        ",\"read_bytes\":", p.read_bytes, ",\"write_bytes\":", p.write_bytes,
        ",\"p50_ns\":", p.p50_ns, ",\"p99_ns\":", p.p99_ns,
        ",\"p99_9_ns\":", p.p99_9_ns,
        ",\"user_cpu_seconds\":", Num(p.user_cpu_seconds),
        ",\"system_cpu_seconds\":", Num(p.system_cpu_seconds),
        ",\"errors\":", p.errors, "}"));
  }
  return absl::StrCat("[", absl::StrJoin(points, ","), "]");
}

std::string PreconditionJson(const PreconditionSummary& p) {
  if (p.passes == 0) return "null";
  std::vector<std::string> notes;
  for (const std::string& note : p.notes) notes.push_back(Quoted(note));
  return absl::StrCat(
      "{\"passes\":", p.passes, ",\"passes_done\":", p.passes_done,
      ",\"bytes_written\":", p.bytes_written,
      ",\"bytes_planned\":", p.bytes_planned,
      ",\"seconds\":", Num(absl::ToDoubleSeconds(p.time)),
      ",\"complete\":", p.complete ? "true" : "false",
      ",\"block_size\":", kPreconditionBlockSize, ",\"notes\":[",
      absl::StrJoin(notes, ","), "]}");
}

std::string PreconditionText(const PreconditionSummary& p) {
  if (p.passes == 0) return "";
  std::string out = absl::StrCat(
      "precondition: sequential 128 KiB writes, ", p.passes_done, " of ",
      p.passes, p.passes == 1 ? " pass" : " passes",
      p.complete ? " complete" : " (incomplete)", ", ",
      FormatBytes(static_cast<double>(p.bytes_written)), " of ",
      FormatBytes(static_cast<double>(p.bytes_planned)), " written in ",
      absl::StrFormat("%.2fs", absl::ToDoubleSeconds(p.time)), "\n");
  for (const std::string& note : p.notes) {
    absl::StrAppend(&out, "precondition note: ", note, "\n");
  }
  return out;
}

std::string EnvironmentText(const Environment& env) {
  std::string commit = env.blkperf_commit.substr(0, 12);
  std::string out = absl::StrCat(
      "environment: host ", env.hostname, ", kernel ", env.kernel_release,
      ", blkperf ", env.blkperf_version, " (", commit, "), cpu ",
      env.cpu_model, " (online ", env.online_cpus, ", smt ", env.smt,
      ", governor ", env.cpu_governor, "), numa nodes ", env.numa_nodes,
      ", liburing ", env.liburing_version, ", spec ", env.spec_hash, "\n");
  for (const TargetEnvironment& t : env.targets) {
    absl::StrAppend(&out, "target environment: ", t.path, " on ", t.device,
                    ": model ", t.model, ", firmware ", t.firmware_rev,
                    ", scheduler ", t.scheduler, ", nr_requests ",
                    t.nr_requests, ", max_sectors_kb ", t.max_sectors_kb,
                    ", write cache ", t.write_cache, ", numa node ",
                    t.numa_node, "\n");
  }
  return out;
}

std::string SeriesText(const Series& series) {
  if (series.points.empty()) return "";
  uint64_t lo = series.points[0].p99_ns, hi = lo;
  for (const SeriesPoint& p : series.points) {
    lo = std::min(lo, p.p99_ns);
    hi = std::max(hi, p.p99_ns);
  }
  const absl::Duration span = series.interval * series.ticks_per_point;
  return absl::StrCat(
      "  series: ", series.points.size(), " points of ",
      absl::FormatDuration(span),
      series.downsampled
          ? absl::StrCat(" (downsampled from ", absl::FormatDuration(series.interval),
                         ": neighbours merged beyond the point cap)")
          : "",
      ", per-interval p99 from ", FormatNanos(static_cast<double>(lo)),
      " to ", FormatNanos(static_cast<double>(hi)), "\n");
}

namespace {

std::string SteadyWindowJson(const SteadyWindowFigures& f) {
  return absl::StrCat(
      "{\"samples\":", f.samples, ",\"mean\":", Num(f.mean),
      ",\"min\":", Num(f.min), ",\"max\":", Num(f.max),
      ",\"deviation\":", Num(f.deviation),
      ",\"slope_per_second\":", Num(f.slope),
      ",\"value\":", std::isfinite(f.value) ? Num(f.value) : "null",
      ",\"limit\":", Num(f.limit), ",\"met\":", f.met ? "true" : "false",
      "}");
}

}  // namespace

std::string SteadyStateJson(const SteadyStateResult& r) {
  if (!r.enabled) return "{\"enabled\":false}";
  return absl::StrCat(
      "{\"enabled\":true,\"criterion\":", Quoted(r.criterion),
      ",\"mode\":", Quoted(r.mode),
      ",\"window_seconds\":", Num(absl::ToDoubleSeconds(r.window)),
      ",\"check_seconds\":", Num(absl::ToDoubleSeconds(r.check)),
      ",\"checks\":", r.checks,
      ",\"attained\":", r.attained ? "true" : "false",
      ",\"attained_at_seconds\":", Num(absl::ToDoubleSeconds(r.attained_at)),
      ",\"window\":", SteadyWindowJson(r.figures),
      ",\"left\":", r.left ? "true" : "false",
      ",\"left_at_seconds\":", Num(absl::ToDoubleSeconds(r.left_at)),
      ",\"left_window\":", SteadyWindowJson(r.left_figures),
      ",\"warning\":", Quoted(r.warning), "}");
}

std::string SteadyStateText(const SteadyStateResult& r) {
  if (!r.enabled) return "";
  absl::StatusOr<SteadyStateCriterion> criterion =
      ParseSteadyStateCriterion(r.criterion);
  // A result read back is data: a criterion this build cannot parse is
  // shown as it came, without the window's figures in words.
  const std::string figures =
      criterion.ok() ? SteadyFiguresText(*criterion, r.figures)
                     : absl::StrCat("value ", Num(r.figures.value),
                                    " limit ", Num(r.figures.limit));
  std::string out = absl::StrCat(
      "  steady state: ", OneLine(r.criterion), " (",
      absl::FormatDuration(r.window), " window, checked every ",
      absl::FormatDuration(r.check), ", mode ", OneLine(r.mode), "): ");
  const bool gate = r.mode == "gate";
  if (r.attained) {
    absl::StrAppend(&out, "attained at ", absl::FormatDuration(r.attained_at),
                    ", ", figures,
                    gate ? "; measured from there" : "; the run ended there",
                    "\n");
  } else if (r.checks == 0) {
    absl::StrAppend(&out, "NOT attained: the window never filled",
                    gate ? "; nothing was measured" : "", "\n");
  } else {
    absl::StrAppend(&out, "NOT attained in ", r.checks,
                    " checks, the last ", figures,
                    gate ? "; nothing was measured (the totals are empty)"
                         : "",
                    "\n");
  }
  if (r.left) absl::StrAppend(&out, "warning: ", OneLine(r.warning), "\n");
  return out;
}

}  // namespace blkperf
