#include "client/report.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace blkperf {
namespace {

double Seconds(const google::protobuf::Duration& d) {
  return static_cast<double>(d.seconds()) + d.nanos() / 1e9;
}

std::string YesNo(bool value) { return value ? "yes" : "no"; }

std::string TargetList(const v1::WorkloadSpec& spec) {
  std::vector<std::string> paths;
  for (const v1::TargetSpec& t : spec.targets()) paths.push_back(t.path());
  return absl::StrJoin(paths, ",");
}

std::string SpecSummary(const v1::WorkloadSpec& spec) {
  std::string text =
      absl::StrCat(OpName(spec.op()), " bs ", spec.block_size(), " qd ",
                   spec.queue_depth(), " threads ", spec.threads());
  if (spec.cpus_size() > 0) {
    absl::StrAppend(&text, " cpus ", FormatCpuList(spec.cpus()));
  }
  if (spec.op() == v1::OP_RANDRW) {
    absl::StrAppend(&text, " read ", spec.read_percent(), "%");
  }
  if (!spec.split().empty() && spec.split() != "none") {
    absl::StrAppend(&text, " split ", spec.split());
  }
  return text;
}

std::string ErrorsText(const v1::ThreadStats& t) {
  if (t.error_total() == 0) return "none";
  std::vector<std::string> parts;
  for (const v1::ErrorCount& e : t.errors()) {
    parts.push_back(absl::StrCat(e.name(), " x", e.count()));
  }
  return absl::StrJoin(parts, ", ");
}

// CPU time as a share of one CPU over the elapsed time, per thread.
std::string CpuText(const v1::ThreadStats& t, double elapsed, int threads) {
  const double cpu = t.user_cpu_seconds() + t.system_cpu_seconds();
  std::string text = absl::StrFormat(
      "user %.2fs sys %.2fs", t.user_cpu_seconds(), t.system_cpu_seconds());
  if (elapsed > 0 && threads > 0) {
    absl::StrAppendFormat(&text, " (%.1f%% of a CPU per thread)",
                          100.0 * cpu / elapsed / threads);
  }
  return text;
}

}  // namespace

std::string FormatCount(double value) {
  if (value < 1000) return absl::StrFormat("%.0f", value);
  if (value < 1e6) return absl::StrFormat("%.1fk", value / 1e3);
  if (value < 1e9) return absl::StrFormat("%.2fM", value / 1e6);
  return absl::StrFormat("%.2fG", value / 1e9);
}

std::string FormatBytes(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  if (unit == 0) return absl::StrFormat("%.0f B", bytes);
  return absl::StrFormat(bytes < 10 ? "%.2f %s" : "%.1f %s", bytes,
                         kUnits[unit]);
}

std::string FormatBandwidth(double bytes_per_second) {
  return absl::StrCat(FormatBytes(bytes_per_second), "/s");
}

std::string FormatLatency(double ns) {
  if (ns < 1000) return absl::StrFormat("%.0fns", ns);
  if (ns < 1e6)
    return absl::StrFormat(ns < 1e4 ? "%.2fus" : "%.1fus", ns / 1e3);
  if (ns < 1e9)
    return absl::StrFormat(ns < 1e7 ? "%.2fms" : "%.1fms", ns / 1e6);
  return absl::StrFormat("%.2fs", ns / 1e9);
}

std::string StateName(v1::WorkloadState state) {
  absl::string_view name = v1::WorkloadState_Name(state);
  absl::ConsumePrefix(&name, "WORKLOAD_STATE_");
  return absl::AsciiStrToLower(name);
}

std::string OpName(v1::Op op) {
  const std::string& full =
      v1::Op_Name(op == v1::OP_UNSPECIFIED ? v1::OP_RANDREAD : op);
  absl::string_view name = full;
  absl::ConsumePrefix(&name, "OP_");
  return absl::AsciiStrToLower(name);
}

std::string FormatCpuList(
    const google::protobuf::RepeatedField<int32_t>& cpus) {
  std::vector<int> sorted(cpus.begin(), cpus.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<std::string> parts;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    parts.push_back(j == i ? absl::StrCat(sorted[i])
                           : absl::StrCat(sorted[i], "-", sorted[j]));
    i = j + 1;
  }
  return absl::StrJoin(parts, ",");
}

std::string FormatPercentiles(const v1::LatencyPercentiles& p) {
  if (p.count() == 0) return "no completions";
  return absl::StrCat(
      "p50 ", FormatLatency(p.p50_ns()), "  p90 ", FormatLatency(p.p90_ns()),
      "  p99 ", FormatLatency(p.p99_ns()), "  p99.9 ",
      FormatLatency(p.p99_9_ns()), "  p99.99 ", FormatLatency(p.p99_99_ns()),
      "  max ", FormatLatency(p.max_ns()), "  mean ",
      FormatLatency(p.mean_ns()));
}

std::string FormatStatusLine(const v1::WatchWorkloadResponse& response) {
  const v1::Workload& w = response.workload();
  const v1::ThreadStats& i = response.interval();
  const v1::Snapshot& s = w.snapshot();
  std::string line = absl::StrFormat(
      "[%s %s %.1fs] %s IOPS, %s, p50 %s p99 %s, %s in flight", w.workload_id(),
      StateName(w.state()), Seconds(s.elapsed()), FormatCount(i.iops()),
      FormatBandwidth(i.bytes_per_second()),
      FormatLatency(i.latency().p50_ns()), FormatLatency(i.latency().p99_ns()),
      FormatCount(static_cast<double>(s.total().inflight())));
  if (s.total().error_total() > 0) {
    absl::StrAppend(&line, ", ", s.total().error_total(), " errors");
  }
  return line;
}

std::string FormatReport(const v1::Workload& w) {
  const v1::Snapshot& s = w.snapshot();
  const v1::ThreadStats& t = s.total();
  const double elapsed = Seconds(s.elapsed());
  const int threads = std::max(1, s.threads_size());
  std::string out = absl::StrFormat(
      "workload %s: %s after %.2fs measured\n  spec        : %s on %s\n",
      w.workload_id(), StateName(w.state()), elapsed, SpecSummary(w.spec()),
      TargetList(w.spec()));
  absl::StrAppendFormat(
      &out, "  IOPS        : %s (%d I/Os: %d reads, %d writes)\n",
      FormatCount(t.iops()), t.ios(), t.read_ios(), t.write_ios());
  absl::StrAppendFormat(&out, "  bandwidth   : %s (%.1f MB/s)\n",
                        FormatBandwidth(t.bytes_per_second()),
                        t.bytes_per_second() / 1e6);
  absl::StrAppendFormat(&out,
                        "  IOs/syscall : %.2f (%d io_uring_enter calls, %d "
                        "SQEs)\n",
                        t.ios_per_call(), t.enter_calls(), t.sqes());
  absl::StrAppend(&out, "  CPU         : ", CpuText(t, elapsed, threads), "\n");
  absl::StrAppend(&out, "  latency     : ", FormatPercentiles(t.latency()),
                  "\n");
  const v1::RingSetup& ring = s.ring();
  std::vector<std::string> ring_parts(ring.setup_flags().begin(),
                                      ring.setup_flags().end());
  if (ring.fixed_buffers()) ring_parts.push_back("fixed buffers");
  if (ring.registered_files()) ring_parts.push_back("registered files");
  if (ring.registered_ring_fd()) ring_parts.push_back("registered ring fd");
  if (ring.polled()) ring_parts.push_back("polled");
  if (ring.sqpoll()) ring_parts.push_back("sqpoll");
  if (ring.huge_pages()) ring_parts.push_back("huge pages");
  absl::StrAppend(
      &out, "  ring        : ",
      ring_parts.empty() ? "plain" : absl::StrJoin(ring_parts, ", "), "\n");
  for (const v1::ThreadStats& th : s.threads()) {
    absl::StrAppendFormat(
        &out,
        "  thread %-3d cpu %-3d: %s IOPS, %s, %.2f IOs/call, p50 %s p99 %s "
        "max %s, %s\n",
        th.thread_index(), th.cpu(), FormatCount(th.iops()),
        FormatBandwidth(th.bytes_per_second()), th.ios_per_call(),
        FormatLatency(th.latency().p50_ns()),
        FormatLatency(th.latency().p99_ns()),
        FormatLatency(th.latency().max_ns()), CpuText(th, elapsed, 1));
  }
  absl::StrAppend(&out, "  errors      : ", ErrorsText(t), "\n");
  if (s.has_error()) {
    absl::StrAppend(&out, "  first error : ", s.error().message(), "\n");
  }
  for (const std::string& note : s.notes()) {
    absl::StrAppend(&out, "  note        : ", note, "\n");
  }
  return out;
}

std::string FormatWorkloadLine(const v1::Workload& w) {
  std::string line = absl::StrFormat(
      "%-5s %-9s %s on %s", w.workload_id(), StateName(w.state()),
      SpecSummary(w.spec()), TargetList(w.spec()));
  if (w.has_snapshot()) {
    absl::StrAppend(&line, "  ", FormatCount(w.snapshot().total().iops()),
                    " IOPS");
  }
  return line;
}

std::string FormatCapabilities(const v1::GetCapabilitiesResponse& c) {
  std::string out;
  absl::StrAppend(&out, "blkperfd ", c.daemon_version(), ", API version ",
                  c.api_version(), "\n");
  absl::StrAppend(&out, "kernel      : ", c.kernel_release(), " ", c.machine(),
                  "\n");
  if (c.io_uring().available()) {
    absl::StrAppend(&out, "io_uring    : features ",
                    absl::StrJoin(c.io_uring().features(), ","), "\n");
    absl::StrAppend(&out, "setup flags : ",
                    absl::StrJoin(c.io_uring().setup_flags(), ","), "\n");
    absl::StrAppend(&out, "opcodes     : ",
                    absl::StrJoin(c.io_uring().opcodes(), ","), "\n");
  } else {
    absl::StrAppend(&out, "io_uring    : unavailable: ",
                    c.io_uring().unavailable_reason(), "\n");
  }
  absl::StrAppend(
      &out, "CPUs online : ", FormatCpuList(c.online_cpus()),
      c.busy_cpus_size() > 0
          ? absl::StrCat(" (busy: ", FormatCpuList(c.busy_cpus()), ")")
          : "",
      "\n");
  absl::StrAppend(&out, "governor    : ",
                  c.cpu_frequency_governor().empty()
                      ? "(no cpufreq)"
                      : c.cpu_frequency_governor(),
                  "\n");
  absl::StrAppend(&out, "huge pages  : ", c.huge_pages().free(), " of ",
                  c.huge_pages().total(), " free, ",
                  FormatBytes(c.huge_pages().page_size_bytes()), " each; THP ",
                  c.huge_pages().transparent(), "\n");
  const v1::Limits& l = c.limits();
  absl::StrAppend(&out, "limits      : ", l.max_workloads(),
                  " workloads, queue depth ", l.max_queue_depth(), ", buffers ",
                  FormatBytes(l.max_buffer_bytes()), ", runtime ",
                  Seconds(l.max_runtime()), "s, keeps ", l.keep_finished(),
                  " finished\n");
  absl::StrAppend(&out, "allow write : ",
                  c.allow_write().empty()
                      ? "(nothing)"
                      : absl::StrJoin(c.allow_write(), ", "),
                  "\n");
  absl::StrAppend(&out, "allow read  : ", absl::StrJoin(c.allow_read(), ", "),
                  "\n");
  absl::StrAppend(&out, "histogram   : ", c.histogram_layout().name(), ", ",
                  c.histogram_layout().num_buckets(), " buckets\n");
  return out;
}

std::string FormatTargetInfo(const v1::TargetInfo& t) {
  std::string out;
  const bool device = t.kind() == v1::TARGET_KIND_BLOCK_DEVICE;
  absl::StrAppend(&out, t.path(), ": ",
                  device ? "block device" : "regular file",
                  t.path_is_symlink()
                      ? absl::StrCat(" (symlink to ", t.resolved_path(), ")")
                      : "",
                  ", ", FormatBytes(static_cast<double>(t.size_bytes())), " (",
                  t.size_bytes(), " bytes)\n");
  absl::StrAppend(&out, "  block size    : logical ", t.logical_block_size(),
                  ", physical ", t.physical_block_size(), "\n");
  if (!t.device_name().empty()) {
    const v1::QueueLimits& q = t.limits();
    absl::StrAppend(&out, "  device        : ", t.device_name(),
                    t.partition_name().empty()
                        ? ""
                        : absl::StrCat(" (partition ", t.partition_name(), ")"),
                    q.rotational() ? ", rotational" : "", "\n");
    absl::StrAppend(&out, "  queue limits  : max_sectors_kb ",
                    q.max_sectors_kb(), " (hw ", q.max_hw_sectors_kb(),
                    "), max_segments ", q.max_segments(), ", max_segment_size ",
                    q.max_segment_size(), ", chunk_sectors ", q.chunk_sectors(),
                    ", nr_requests ", q.nr_requests(), "\n");
    absl::StrAppend(
        &out, "  tuning        : scheduler ",
        q.scheduler().empty() ? "?" : q.scheduler(), ", nomerges ",
        q.nomerges(), ", rq_affinity ", q.rq_affinity(), ", write cache ",
        q.write_cache().empty() ? "?" : q.write_cache(), ", poll queues ",
        q.poll_queues() < 0 ? std::string("n/a")
                            : absl::StrCat(q.poll_queues()),
        "\n");
  }
  absl::StrAppend(&out, "  can poll      : ", YesNo(t.can_poll()), "\n");
  absl::StrAppend(
      &out, "  in use        : ", YesNo(t.in_use()),
      t.mounted() ? " (mounted)" : "", t.has_holders() ? " (held)" : "",
      t.is_swap() ? " (swap)" : "",
      t.backs_loop().empty() ? ""
                             : absl::StrCat(" (backs ", t.backs_loop(), ")"),
      "\n");
  absl::StrAppend(&out, "  cpu governor  : ",
                  t.cpu_frequency_governor().empty()
                      ? "(no cpufreq)"
                      : t.cpu_frequency_governor(),
                  "\n");
  absl::StrAppend(&out, "  daemon access : read ",
                  t.read_allowed() ? "allowed" : "denied", ", write ",
                  t.write_allowed() ? "allowed" : "denied", " (",
                  t.write_rule(), ")\n");
  return out;
}

}  // namespace blkperf
