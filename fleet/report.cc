#include "fleet/report.h"

#include <algorithm>
#include <functional>
#include <map>
#include <ostream>
#include <sstream>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "fleet/phase_merge.h"
#include "fleet/workload_json.h"
#include "model/snapshot.h"
#include "model/workload_spec.h"
#include "report/context.h"
#include "report/report.h"
#include "wire/context_convert.h"
#include "wire/merge.h"
#include "wire/message_json.h"
#include "wire/remote_result.h"
#include "wire/snapshot_convert.h"
#include "wire/spec_convert.h"

namespace blkperf::fleet {
namespace {

int64_t Nanos(const google::protobuf::Duration& d) {
  return d.seconds() * 1000000000 + d.nanos();
}

bool Included(const FleetRun& run, const HostRun& h) {
  if (h.state == HostState::kCompleted) return true;
  // An aborted run still reports what its hosts measured until the abort.
  return !run.abort_reason.empty() && h.state == HostState::kAborted &&
         !h.samples.empty();
}

// The host's row and its timeline on the orchestrator's clock; the row's
// workload moved from `take` (h's own, or null: copied).
HostRow RowOf(const FleetRun& run, const HostRun& h, HostTimeline& timeline,
              v1::Workload* take) {
  HostRow row;
  row.address = h.address;
  row.state = HostStateName(h.state);
  row.clock_error_ns = h.clock.error_ns;
  const v1::StartReport& start = h.workload.start();
  int64_t first_host_ns = start.first_submit_monotonic_ns();
  if (first_host_ns == 0) {
    first_host_ns = h.go_host_ns;
    row.note = "start not reported by the daemon: the scheduled instant is used";
  }
  if (start.scheduled_monotonic_ns() != 0 &&
      start.realtime_wait_threads() < start.threads_started()) {
    if (!row.note.empty()) row.note += "; ";
    absl::StrAppend(&row.note, "waited for the start at normal priority on ",
                    start.threads_started() - start.realtime_wait_threads(),
                    " of ", start.threads_started(),
                    " threads (may start late under load): ",
                    start.realtime_wait_error());
  }
  const int64_t first_local = first_host_ns - h.clock.offset_ns;
  row.start_offset_ns = first_local - run.start_local_ns;
  // The window the host's counts cover; daemons from before
  // measure_start_monotonic_ns began it at the first submission.
  const int64_t measure_host_ns =
      start.measure_start_monotonic_ns() != 0
          ? start.measure_start_monotonic_ns()
          : first_host_ns + Nanos(h.workload.spec().ramp_time());
  timeline.start_ns = measure_host_ns - h.clock.offset_ns - run.start_local_ns;
  timeline.samples = h.samples;
  row.window = {timeline.start_ns, timeline.end_ns()};
  const v1::ThreadStats& total = h.workload.snapshot().total();
  const int64_t elapsed = Nanos(h.workload.snapshot().elapsed());
  if (elapsed > 0) {
    row.iops = static_cast<double>(total.ios()) * 1e9 / elapsed;
    row.bytes_per_second = static_cast<double>(total.bytes()) * 1e9 / elapsed;
  }
  // Last: `take` may be h's own workload, read above.
  row.workload = take != nullptr ? std::move(*take) : h.workload;
  return row;
}

// The hosts' job groups, merged exactly (//wire:merge MergeGroups: hosts
// whose group lists differ are refused, naming hosts[i].groups[g]). A
// group's rates count the I/Os and bytes it completed inside the overlap
// window: the polls sample each host's total only, so each host's count
// inside the window is shared out between its groups in proportion to
// their whole-run counts. The groups' rates then add up to the total's.
absl::Status MergeHostGroups(const std::vector<HostRow>& rows,
                             const std::vector<WindowCounts>& in_window,
                             absl::Duration length, v1::Snapshot& merged) {
  std::vector<const v1::Snapshot*> snapshots;
  for (const HostRow& row : rows) snapshots.push_back(&row.workload.snapshot());
  absl::StatusOr<std::vector<v1::GroupResult>> groups =
      MergeGroups(snapshots, length, "hosts");
  if (!groups.ok()) return groups.status();
  const double seconds = absl::ToDoubleSeconds(length);
  for (size_t g = 0; g < groups->size(); ++g) {
    WindowCounts sum;
    for (size_t h = 0; h < snapshots.size(); ++h) {
      const v1::ThreadStats& total = snapshots[h]->total();
      const v1::ThreadStats& group = snapshots[h]->groups(g).total();
      if (total.ios() != 0) {
        sum.ios += in_window[h].ios * static_cast<double>(group.ios()) /
                   static_cast<double>(total.ios());
      }
      if (total.bytes() != 0) {
        sum.bytes += in_window[h].bytes * static_cast<double>(group.bytes()) /
                     static_cast<double>(total.bytes());
      }
    }
    v1::GroupResult& out = *merged.add_groups();
    out = std::move((*groups)[g]);
    out.mutable_total()->set_iops(sum.ios / seconds);
    out.mutable_total()->set_bytes_per_second(sum.bytes / seconds);
  }
  return absl::OkStatus();
}

absl::Status MergeHosts(const std::vector<HostRow>& rows,
                        const std::vector<HostTimeline>& timelines,
                        FleetReport& report) {
  absl::StatusOr<Window> overlap = OverlapWindow(timelines);
  if (!overlap.ok()) return overlap.status();
  report.overlap = *overlap;
  std::vector<const v1::ThreadStats*> totals;
  for (const HostRow& row : rows) {
    totals.push_back(&row.workload.snapshot().total());
  }
  const absl::Duration length = absl::Nanoseconds(overlap->length_ns());
  absl::StatusOr<v1::ThreadStats> total =
      MergeThreadStats(totals, length, "hosts");
  if (!total.ok()) return total.status();
  // Rates over the overlap window count only the I/Os inside it.
  std::vector<WindowCounts> in_window;
  WindowCounts sum;
  for (const HostTimeline& t : timelines) {
    in_window.push_back(CountsIn(t, *overlap));
    sum.ios += in_window.back().ios;
    sum.bytes += in_window.back().bytes;
  }
  const double seconds = absl::ToDoubleSeconds(length);
  total->set_iops(sum.ios / seconds);
  total->set_bytes_per_second(sum.bytes / seconds);
  v1::Workload& merged = report.merged;
  merged.set_workload_id(report.run_id);
  merged.set_run_id(report.run_id);
  *merged.mutable_snapshot()->mutable_total() = *std::move(total);
  if (absl::Status s =
          MergeHostGroups(rows, in_window, length, *merged.mutable_snapshot());
      !s.ok()) {
    return s;
  }
  merged.mutable_snapshot()->mutable_elapsed()->set_seconds(
      overlap->length_ns() / 1000000000);
  merged.mutable_snapshot()->mutable_elapsed()->set_nanos(
      static_cast<int32_t>(overlap->length_ns() % 1000000000));
  std::vector<const v1::Snapshot*> snapshots;
  for (const HostRow& row : rows) snapshots.push_back(&row.workload.snapshot());
  v1::Snapshot& ms = *merged.mutable_snapshot();
  if (absl::Status s = MergePhases(snapshots, ms); !s.ok()) {
    ms.add_notes(absl::StrCat("phases not merged: ", s.message()));
  } else if (ms.phases_size() > 0) {
    ms.add_notes(
        "phases: ios, bytes and histograms are exact sums over the hosts' "
        "phase of that index; iops and bytes_per_second the sums of each "
        "host's rate over its own phase; start/end the earliest start and "
        "latest end over the hosts");
  }
  if (absl::Status s = MergeAb(snapshots, ms); !s.ok()) {
    ms.add_notes(absl::StrCat("A/B results not merged: ", s.message()));
  } else if (ms.ab_size() > 0) {
    ms.add_notes(
        "ab: median_iops and median_bytes_per_second are the sums of the "
        "hosts' medians per strategy; slices the fewest any host ran");
  }
  *merged.mutable_spec() = rows.front().workload.spec();
  merged.set_split(rows.front().workload.split());
  return absl::OkStatus();
}

void AddNotes(FleetReport& report) {
  v1::Snapshot* s = report.merged.mutable_snapshot();
  s->add_notes(absl::StrFormat(
      "fleet of %d hosts: iops and bytes_per_second are summed over the "
      "overlap window [%+.6fs, %+.6fs] from the common start in which every "
      "included host was measuring; ios, bytes and the histogram are exact "
      "sums over each host's whole measured run",
      static_cast<int>(report.hosts.size()), report.overlap.begin_ns / 1e9,
      report.overlap.end_ns / 1e9));
  if (s->groups_size() > 0) {
    s->add_notes(
        "groups: ios, bytes and the histograms are exact sums over the hosts; "
        "a group's iops and bytes_per_second share each host's I/Os inside "
        "the overlap window out between its groups in proportion to their "
        "whole-run counts (the polls sample totals only)");
  }
  if (!report.excluded.empty()) {
    std::string names;
    for (const Excluded& e : report.excluded) {
      absl::StrAppend(&names, names.empty() ? "" : ", ", e.address, " (",
                      e.reason, ")");
    }
    s->add_notes(absl::StrCat("partial: ", report.excluded.size(),
                              " host(s) excluded: ", names));
  }
  if (!report.abort_reason.empty()) {
    s->add_notes(absl::StrCat("aborted: ", report.abort_reason));
  }
}

// The fleet's series (series_merge.h) over the included hosts, or a note
// saying why there is none.
void AddSeries(const FleetRun& run, FleetReport& report) {
  if (run.hosts.empty() || run.hosts.front().series == nullptr) return;
  std::vector<std::string> addresses;
  for (const HostRow& row : report.hosts) addresses.push_back(row.address);
  absl::StatusOr<v1::Series> series =
      run.hosts.front().series->Result(addresses);
  v1::Snapshot& ms = *report.merged.mutable_snapshot();
  if (!series.ok()) {
    ms.add_notes(absl::StrCat("series not merged: ", series.status().message()));
    return;
  }
  *ms.mutable_series() = *std::move(series);
  ms.add_notes(
      "series: point k adds up interval k of every host's measured time "
      "(hosts start within their start offsets): counts exactly, latency "
      "percentiles from the exact merge of the hosts' interval histograms; "
      "only intervals every host completed");
}

}  // namespace

namespace {

// BuildReport; with `take` (the same run) each included host's workload is
// moved into its row.
absl::StatusOr<FleetReport> BuildReportOf(const FleetRun& run, FleetRun* take) {
  FleetReport report;
  report.run_id = run.run_id;
  report.abort_reason = run.abort_reason;
  report.needed = run.needed;
  report.margin = run.margin;
  report.arm_time = run.arm_time;
  report.clock_time = run.clock_time;
  report.go_time = run.go_time;
  report.collect_time = run.collect_time;
  report.requested = static_cast<int>(run.hosts.size());
  std::vector<HostTimeline> timelines;
  for (size_t i = 0; i < run.hosts.size(); ++i) {
    const HostRun& h = run.hosts[i];
    const bool armed = h.state != HostState::kPending &&
                       h.state != HostState::kArmFailed &&
                       !h.workload_id.empty();
    report.armed += armed;
    report.started += run.started && h.go_host_ns != 0 &&
                      h.state != HostState::kArmed;
    report.completed += h.state == HostState::kCompleted;
    if (!Included(run, h)) {
      report.excluded.push_back(
          {h.address, HostStateName(h.state),
           h.error.empty() ? std::string("not started: ") + run.abort_reason
                           : h.error});
      continue;
    }
    HostTimeline t;
    report.hosts.push_back(
        RowOf(run, h, t, take != nullptr ? &take->hosts[i].workload : nullptr));
    timelines.push_back(std::move(t));
  }
  report.outcome = !run.started             ? "not_started"
                   : !run.abort_reason.empty() ? "aborted"
                   : !report.excluded.empty()  ? "partial"
                                               : "completed";
  report.merged.set_state(run.abort_reason.empty()
                              ? v1::WORKLOAD_STATE_FINISHED
                              : v1::WORKLOAD_STATE_ABORTED);
  report.merged.set_end_reason(run.abort_reason);
  if (!report.hosts.empty()) {
    if (absl::Status s = MergeHosts(report.hosts, timelines, report); !s.ok()) {
      // "hosts[i]..." in the message indexes the included hosts in
      // inventory order, as report.hosts still is here.
      return s;
    }
    AddNotes(report);
    AddSeries(run, report);
  }
  std::vector<double> iops;
  for (const HostRow& r : report.hosts) iops.push_back(r.iops);
  report.outliers = MadOutliers(iops);
  for (size_t i = 0; i < report.hosts.size(); ++i) {
    report.hosts[i].outlier = report.outliers.flagged[i];
  }
  std::stable_sort(report.hosts.begin(), report.hosts.end(),
                   [](const HostRow& a, const HostRow& b) {
                     return a.iops > b.iops;
                   });
  return report;
}

}  // namespace

absl::StatusOr<FleetReport> BuildReport(const FleetRun& run) {
  return BuildReportOf(run, nullptr);
}

absl::StatusOr<FleetReport> BuildReportTakingWorkloads(FleetRun& run) {
  return BuildReportOf(run, &run);
}

namespace {

std::string Latency(uint64_t ns);
std::string Rate(double iops, double bps);

// The merged phases and A/B results (phase_merge.h), a line each.
std::string PhasesAndAbText(const v1::Snapshot& s) {
  std::string out;
  for (const v1::Phase& p : s.phases()) {
    absl::StrAppend(
        &out, absl::StrFormat("  phase %d %s [%.3fs, %.3fs]: ", p.index(),
                              p.strategy(), Nanos(p.start()) / 1e9,
                              Nanos(p.end()) / 1e9),
        Rate(p.total().iops(), p.total().bytes_per_second()),
        " p50=", Latency(p.total().latency().p50_ns()),
        " p99=", Latency(p.total().latency().p99_ns()),
        absl::StrFormat(" pieces/io=%.3f\n", p.pieces_per_io()));
  }
  for (const v1::AbResult& a : s.ab()) {
    absl::StrAppend(
        &out, absl::StrFormat("  ab %s: fleet median IOPS=%.1f (sum of hosts' "
                              "medians) ratio=%.4f slices>=%d%s\n",
                              a.strategy(), a.median_iops(), a.ratio_to_first(),
                              a.slices(),
                              a.note().empty() ? "" : " (" + a.note() + ")"));
  }
  return out;
}

// "kernel 6.1.0 daemon 0.1 labels{rack=a}" for a host row; "" if unknown.
std::string IdentityText(const HostRow& h) {
  std::vector<std::string> parts;
  if (!h.kernel_release.empty()) parts.push_back("kernel " + h.kernel_release);
  if (!h.daemon_version.empty()) parts.push_back("daemon " + h.daemon_version);
  if (!h.labels.empty()) {
    parts.push_back(absl::StrCat(
        "labels{", absl::StrJoin(h.labels, ",", absl::PairFormatter("=")), "}"));
  }
  return absl::StrJoin(parts, " ");
}

std::string Us(int64_t ns) { return absl::StrFormat("%.1fus", ns / 1e3); }

std::string Latency(uint64_t ns) {
  if (ns >= 1000000) return absl::StrFormat("%.2fms", ns / 1e6);
  return absl::StrFormat("%.1fus", ns / 1e3);
}

std::string Rate(double iops, double bps) {
  return absl::StrFormat("IOPS=%.1fk BW=%.2fMiB/s", iops / 1e3,
                         bps / (1024.0 * 1024.0));
}

// The merged total's open-loop lines and the job groups' lines, printed by
// the single-host report's own code (daemon/report) from the merged
// figures in the engine's terms; a group's rates are the merged report's.
std::string ShapeAndGroupsText(const v1::Workload& merged) {
  const v1::Snapshot& s = merged.snapshot();
  absl::StatusOr<ThreadSnapshot> total =
      ThreadFromProto(s.total(), "merged.snapshot.total");
  std::string out = total.ok()
                        ? OpenLoopText(*total)
                        : absl::StrCat("  (", total.status().message(), ")\n");
  // The group summaries need the spec; a spec this client cannot read
  // leaves them out, as the single-host report does for a missing group.
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(merged.spec(), SpecOrigin::kDaemonResult);
  for (int g = 0; g < s.groups_size(); ++g) {
    const v1::GroupResult& group = s.groups(g);
    absl::StatusOr<ThreadSnapshot> t = ThreadFromProto(
        group.total(), absl::StrCat("merged.snapshot.groups[", g, "].total"));
    if (!t.ok()) {
      absl::StrAppend(&out, "  group ", group.name(), ": (",
                      t.status().message(), ")\n");
      continue;
    }
    const std::string summary =
        spec.ok() && static_cast<size_t>(g) < spec->groups.size()
            ? GroupSummary(*spec, spec->groups[g])
            : "";
    absl::StrAppend(&out, GroupText(group.name(), summary, *t,
                                    group.total().iops(),
                                    group.total().bytes_per_second()));
  }
  return out;
}

// The run's outcome, host counts and step times.
std::string RunHeaderText(const FleetReport& r) {
  std::string out = absl::StrCat("fleet run ", r.run_id, ": ", r.outcome);
  if (!r.abort_reason.empty()) absl::StrAppend(&out, " (", r.abort_reason, ")");
  absl::StrAppend(&out, "\nhosts: requested=", r.requested, " armed=", r.armed,
                  " started=", r.started, " completed=", r.completed,
                  " excluded=", r.excluded.size(), " (min_hosts ", r.needed,
                  ", start margin ",
                  absl::FormatDuration(absl::Trunc(r.margin, absl::Milliseconds(1))),
                  ")\n");
  absl::StrAppend(&out, absl::StrFormat(
      "steps: arm %.3fs, read clocks %.3fs, go %.3fs, collect %.3fs\n",
      absl::ToDoubleSeconds(r.arm_time), absl::ToDoubleSeconds(r.clock_time),
      absl::ToDoubleSeconds(r.go_time), absl::ToDoubleSeconds(r.collect_time)));
  return out;
}

// The merged result over the overlap window, and the per-host heading.
std::string MergedText(const FleetReport& r) {
  std::string out;
  if (!r.hosts.empty()) {
    const v1::ThreadStats& t = r.merged.snapshot().total();
    absl::StrAppend(
        &out, "merged over the overlap window [", Us(r.overlap.begin_ns), ", ",
        Us(r.overlap.end_ns), "] after the common start (",
        absl::StrFormat("%.3fs", r.overlap.length_ns() / 1e9), "):\n  ",
        Rate(t.iops(), t.bytes_per_second()), "\n  whole runs: ios=", t.ios(),
        " bytes=", t.bytes(), " errors=", t.error_total(),
        "\n  lat (exact merge of ", r.hosts.size(), " histograms): p50=",
        Latency(t.latency().p50_ns()), " p90=", Latency(t.latency().p90_ns()),
        " p99=", Latency(t.latency().p99_ns()),
        " p99.9=", Latency(t.latency().p99_9_ns()),
        " p99.99=", Latency(t.latency().p99_99_ns()),
        " max=", Latency(t.latency().max_ns()), "\n");
    absl::StrAppend(&out, ShapeAndGroupsText(r.merged));
    absl::StrAppend(&out, PhasesAndAbText(r.merged.snapshot()));
    absl::StrAppend(&out, absl::StrFormat(
        "per host (own window; median IOPS %.1f, MAD %.1f; outlier: IOPS %s):\n",
        r.outliers.median, r.outliers.mad, r.outliers.rule));
  }
  return out;
}

// One line per host, with who it is.
std::string HostsText(const FleetReport& r) {
  std::string out;
  for (const HostRow& h : r.hosts) {
    absl::StrAppend(
        &out, absl::StrFormat(
                  "  %-24s %-9s %s p99=%s start %+.1fus +-%.1fus window [%s, "
                  "%s]%s%s [%s]\n",
                  h.address, h.state, Rate(h.iops, h.bytes_per_second),
                  Latency(h.workload.snapshot().total().latency().p99_ns()),
                  h.start_offset_ns / 1e3, h.clock_error_ns / 1e3,
                  Us(h.window.begin_ns), Us(h.window.end_ns),
                  h.outlier ? " OUTLIER" : "",
                  h.note.empty() ? "" : " (" + h.note + ")",
                  EnvironmentSummary(EnvironmentFromProto(
                      h.workload.snapshot().environment()))));
    if (const std::string who = IdentityText(h); !who.empty()) {
      absl::StrAppend(&out, "    ", who, "\n");
    }
  }
  return out;
}

std::string CohortsText(const FleetReport& r) {
  std::string out;
  for (const Cohort& c : r.cohorts) {
    const v1::ThreadStats& t = c.merged.snapshot().total();
    absl::StrAppend(
        &out, "cohort ", r.cohort_by, "=", c.value.empty() ? "(none)" : c.value,
        " (", c.hosts.size(), c.hosts.size() == 1 ? " host: " : " hosts: ",
        absl::StrJoin(c.hosts, ", "), "): ", Rate(t.iops(), t.bytes_per_second()),
        " ios=", t.ios(), " p50=", Latency(t.latency().p50_ns()),
        " p99=", Latency(t.latency().p99_ns()),
        " p99.9=", Latency(t.latency().p99_9_ns()), "\n");
  }
  return out;
}

std::string ExcludedText(const FleetReport& r) {
  std::string out;
  // Hosts excluded for the same reason (the host's own address taken out)
  // share one line: a bad spec refused by every host reads once. Causes in
  // order of first appearance, each with the indexes of its hosts.
  std::vector<std::pair<std::string, std::vector<size_t>>> causes;
  absl::flat_hash_map<std::string, size_t> cause_of;
  for (size_t i = 0; i < r.excluded.size(); ++i) {
    const Excluded& e = r.excluded[i];
    std::string reason = absl::StrCat(
        "[", e.state, "]: ",
        absl::StrReplaceAll(absl::StripPrefix(e.reason, absl::StrCat(
                                "blkperfd at ", e.address, ": ")),
                            {{e.address, "the host"}}));
    auto [it, added] = cause_of.try_emplace(reason, causes.size());
    if (added) causes.push_back({std::move(reason), {}});
    causes[it->second].second.push_back(i);
  }
  for (const auto& [reason, hosts] : causes) {
    if (hosts.size() == 1) {
      const Excluded& e = r.excluded[hosts[0]];
      absl::StrAppend(&out, "  excluded ", e.address, " [", e.state, "]: ",
                      e.reason, "\n");
    } else {
      absl::StrAppend(&out, "  excluded ", hosts.size(), " hosts (",
                      absl::StrJoin(hosts, ", ",
                                    [&](std::string* o, size_t i) {
                                      o->append(r.excluded[i].address);
                                    }),
                      ") ", reason, "\n");
    }
  }
  return out;
}

}  // namespace

std::string FormatReportText(const FleetReport& r) {
  return absl::StrCat(RunHeaderText(r), MergedText(r), HostsText(r),
                      CohortsText(r), ExcludedText(r));
}

namespace {

// A JSON string literal of `text`.
std::string Quote(absl::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string WindowJson(const Window& w) {
  return absl::StrCat("{\"begin_ns\": ", w.begin_ns, ", \"end_ns\": ", w.end_ns,
                      "}");
}

}  // namespace

// Built as text: the per-host reports are the API's JSON as is, and a
// thousand of them must print in well under a second.
// One workload's JSON in the schema asked for, on one line.
std::string WorkloadJsonText(const v1::Workload& w, WorkloadJson schema) {
  if (schema == WorkloadJson::kApi) return MessageJson(w, JsonLayout::kOneLine);
  absl::StatusOr<RemoteResult> result = ResultFromProto(w);
  if (!result.ok()) {
    return absl::StrCat("{\"unreadable\": ",
                        Quote(result.status().message()), "}");
  }
  std::string json =
      FormatJsonReport(result->spec, result->targets, result->snapshot);
  if (!json.empty() && json.back() == '\n') json.pop_back();
  return json;
}

absl::Status AddCohorts(FleetRun& run, const std::string& by,
                        const std::function<std::string(const HostRow&)>& key,
                        FleetReport& report) {
  report.cohort_by = by;
  std::map<std::string, std::vector<std::string>> members;
  for (const HostRow& row : report.hosts) members[key(row)].push_back(row.address);
  for (auto& [value, addresses] : members) {
    std::sort(addresses.begin(), addresses.end());
    FleetRun sub;
    sub.run_id = run.run_id;
    sub.started = run.started;
    sub.abort_reason = run.abort_reason;
    sub.start_local_ns = run.start_local_ns;
    std::vector<size_t> taken;
    for (size_t i = 0; i < run.hosts.size(); ++i) {
      if (std::binary_search(addresses.begin(), addresses.end(),
                             run.hosts[i].address)) {
        taken.push_back(i);
        sub.hosts.push_back(std::move(run.hosts[i]));
      }
    }
    absl::StatusOr<FleetReport> merged = BuildReport(sub);
    for (size_t k = 0; k < taken.size(); ++k) {
      run.hosts[taken[k]] = std::move(sub.hosts[k]);
    }
    if (!merged.ok()) {
      return absl::Status(merged.status().code(),
                          absl::StrCat("cohort ", by, "=", value, ": ",
                                       merged.status().message()));
    }
    report.cohorts.push_back(
        {value, addresses, std::move(merged->merged), merged->overlap});
  }
  return absl::OkStatus();
}

namespace {

// Hosts whose workloads are converted to JSON at once (workload_json.h)
// and written before the next batch: the document is never whole in
// memory, only a batch of it. protobuf's printer holds a node tree of the
// whole batch (about 60 KiB a workload) while it prints; 64 workloads a
// batch still resolve the message types once per 64.
constexpr size_t kJsonBatch = 64;
// Batches converted at once, each on a thread of its own.
constexpr size_t kJsonThreads = 2;

// The JSON of each of `workloads` in `schema`, in order.
std::vector<std::string> WorkloadsJsonText(
    const std::vector<const v1::Workload*>& workloads, WorkloadJson schema) {
  if (schema == WorkloadJson::kApi) return WorkloadsApiJson(workloads);
  std::vector<std::string> json;
  json.reserve(workloads.size());
  for (const v1::Workload* w : workloads) {
    json.push_back(WorkloadJsonText(*w, schema));
  }
  return json;
}

// hosts[]'s entry of `h` with `report` as its report.
std::string HostJson(const HostRow& h, const std::string& report) {
  return absl::StrCat(
      "{\"address\": ", Quote(h.address), ", \"state\": ", Quote(h.state),
      ", \"start_offset_ns\": ", h.start_offset_ns,
      ", \"clock_error_ns\": ", h.clock_error_ns,
      absl::StrFormat(", \"iops\": %.3f, \"bytes_per_second\": %.3f", h.iops,
                      h.bytes_per_second),
      ", \"outlier\": ", h.outlier ? "true" : "false",
      ", \"window\": ", WindowJson(h.window), ", \"note\": ", Quote(h.note),
      ", \"kernel_release\": ", Quote(h.kernel_release),
      ", \"daemon_version\": ", Quote(h.daemon_version), ", \"labels\": {",
      absl::StrJoin(h.labels, ", ",
                    [](std::string* o, const auto& kv) {
                      absl::StrAppend(o, Quote(kv.first), ": ",
                                      Quote(kv.second));
                    }),
      "}", ", \"environment\": ",
      EnvironmentJson(EnvironmentFromProto(h.workload.snapshot().environment())),
      ", \"report\": ", report, "}");
}

// The document's fields before "merged".
std::string HeadJson(const FleetReport& r) {
  std::string out = absl::StrCat(
      "{\n\"run_id\": ", Quote(r.run_id), ",\n\"outcome\": ", Quote(r.outcome),
      ",\n\"abort_reason\": ", Quote(r.abort_reason),
      ",\n\"window\": ", WindowJson(r.overlap));
  absl::StrAppend(&out, ",\n\"counts\": {\"requested\": ", r.requested,
                  ", \"armed\": ", r.armed, ", \"started\": ", r.started,
                  ", \"completed\": ", r.completed,
                  ", \"excluded\": ", r.excluded.size(),
                  ", \"min_hosts\": ", r.needed, "}");
  absl::StrAppend(
      &out, absl::StrFormat(",\n\"steps_seconds\": {\"arm\": %.6f, \"clocks\": "
                            "%.6f, \"go\": %.6f, \"collect\": %.6f}",
                            absl::ToDoubleSeconds(r.arm_time),
                            absl::ToDoubleSeconds(r.clock_time),
                            absl::ToDoubleSeconds(r.go_time),
                            absl::ToDoubleSeconds(r.collect_time)));
  absl::StrAppend(&out, absl::StrFormat(",\n\"start_margin_seconds\": %.9f",
                                        absl::ToDoubleSeconds(r.margin)));
  absl::StrAppend(&out,
                  absl::StrFormat(",\n\"outliers\": {\"median_iops\": %.3f, "
                                  "\"mad_iops\": %.3f, \"rule\": ",
                                  r.outliers.median, r.outliers.mad),
                  Quote(r.outliers.rule), "}");
  return out;
}

// hosts[]'s entries, kJsonBatch at a time, kJsonThreads batches converted
// at once (the conversion is most of the report's CPU time at 10,000
// hosts), written in order.
void WriteHostsJson(const FleetReport& r, WorkloadJson schema,
                    std::ostream& out) {
  auto entries = [&](size_t begin) {
    const size_t end = std::min(r.hosts.size(), begin + kJsonBatch);
    std::vector<const v1::Workload*> workloads;
    for (size_t i = begin; i < end; ++i) workloads.push_back(&r.hosts[i].workload);
    const std::vector<std::string> reports = WorkloadsJsonText(workloads, schema);
    std::string text;
    for (size_t i = begin; i < end; ++i) {
      absl::StrAppend(&text, i == 0 ? "\n" : ",\n",
                      HostJson(r.hosts[i], reports[i - begin]));
    }
    return text;
  };
  for (size_t begin = 0; begin < r.hosts.size();
       begin += kJsonBatch * kJsonThreads) {
    std::vector<std::string> texts(kJsonThreads);
    std::vector<std::thread> helpers;
    for (size_t t = 1; t < kJsonThreads; ++t) {
      const size_t first = begin + t * kJsonBatch;
      if (first >= r.hosts.size()) break;
      helpers.emplace_back([&, t, first] { texts[t] = entries(first); });
    }
    texts[0] = entries(begin);
    for (std::thread& h : helpers) h.join();
    for (const std::string& text : texts) out << text;
  }
}

}  // namespace

void WriteReportJson(const FleetReport& r, WorkloadJson schema,
                     std::ostream& out) {
  out << HeadJson(r) << ",\n\"merged\": " << WorkloadJsonText(r.merged, schema)
      << ",\n\"hosts\": [";
  WriteHostsJson(r, schema, out);
  out << "],\n\"cohort_by\": " << Quote(r.cohort_by) << ",\n\"cohorts\": [";
  for (size_t i = 0; i < r.cohorts.size(); ++i) {
    const Cohort& c = r.cohorts[i];
    std::vector<std::string> hosts;
    for (const std::string& a : c.hosts) hosts.push_back(Quote(a));
    out << absl::StrCat(i == 0 ? "\n" : ",\n", "{\"value\": ", Quote(c.value),
                        ", \"hosts\": [", absl::StrJoin(hosts, ", "),
                        "], \"window\": ", WindowJson(c.overlap),
                        ", \"merged\": ", WorkloadJsonText(c.merged, schema),
                        "}");
  }
  out << "],\n\"excluded\": [";
  for (size_t i = 0; i < r.excluded.size(); ++i) {
    const Excluded& e = r.excluded[i];
    out << absl::StrCat(i == 0 ? "\n" : ",\n", "{\"address\": ",
                        Quote(e.address), ", \"state\": ", Quote(e.state),
                        ", \"reason\": ", Quote(e.reason), "}");
  }
  out << "]\n}\n";
}

std::string FormatReportJson(const FleetReport& r, WorkloadJson schema) {
  std::ostringstream out;
  WriteReportJson(r, schema, out);
  return out.str();
}

namespace {

// "host:port" or "[v6]:port" split as fio names a client; port 0 when the
// address has none.
std::pair<std::string, int> HostAndPort(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || address.find(']', colon) != std::string::npos) {
    return {address, 0};
  }
  int port = 0;
  if (!absl::SimpleAtoi(address.substr(colon + 1), &port)) return {address, 0};
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return {host, port};
}

}  // namespace

absl::StatusOr<std::string> FormatReportFioJson(const FleetReport& r,
                                                const FioJsonOptions& options) {
  std::vector<RemoteResult> results;
  results.reserve(r.hosts.size() + 1);
  for (const HostRow& h : r.hosts) {
    absl::StatusOr<RemoteResult> result = ResultFromProto(h.workload);
    if (!result.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "host ", h.address, ": ", result.status().message()));
    }
    results.push_back(*std::move(result));
  }
  absl::StatusOr<RemoteResult> merged = ResultFromProto(r.merged);
  if (!merged.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the merged result: ", merged.status().message()));
  }
  std::vector<FioClientResult> hosts;
  for (size_t i = 0; i < r.hosts.size(); ++i) {
    auto [host, port] = HostAndPort(r.hosts[i].address);
    hosts.push_back({.hostname = host, .port = port,
                     .spec = &results[i].spec, .targets = &results[i].targets,
                     .snapshot = &results[i].snapshot});
  }
  FioJsonOptions merged_options = options;
  merged_options.rates = FioRates{
      .ios_per_second = r.merged.snapshot().total().iops(),
      .bytes_per_second = r.merged.snapshot().total().bytes_per_second(),
      .meaning = absl::StrFormat(
          "fleet of %d hosts: iops and bw summed over the overlap window "
          "[%+.6fs, %+.6fs] in which every host was measuring; io_bytes, "
          "total_ios and latencies are exact sums over each host's whole "
          "measured run",
          static_cast<int>(r.hosts.size()), r.overlap.begin_ns / 1e9,
          r.overlap.end_ns / 1e9)};
  const FioClientResult all{.hostname = "", .port = 0,
                            .spec = &merged->spec, .targets = &merged->targets,
                            .snapshot = &merged->snapshot,
                            .options = &merged_options};
  return FormatFioClientJson(hosts, all, options);
}

}  // namespace blkperf::fleet
