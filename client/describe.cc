#include "client/describe.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/bounded_text.h"
#include "base/units.h"

namespace blkperf {
namespace {

std::string YesNo(bool value) { return value ? "yes" : "no"; }

std::string OrUnknown(const std::string& value) {
  return value.empty() ? "?" : value;
}

}  // namespace

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
  absl::StrAppend(
      &out, "huge pages  : ", c.huge_pages().free(), " of ",
      c.huge_pages().total(), " free, ",
      FormatBytes(static_cast<double>(c.huge_pages().page_size_bytes())),
      " each; THP ", c.huge_pages().transparent(), "\n");
  const v1::Limits& l = c.limits();
  absl::StrAppend(
      &out, "limits      : ", l.max_workloads(), " workloads, queue depth ",
      l.max_queue_depth(), ", buffers ",
      FormatBytes(static_cast<double>(l.max_buffer_bytes())), ", runtime ",
      l.max_runtime().seconds(), "s, keeps ", l.keep_finished(),
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
  absl::StrAppend(
      &out, "access      : ",
      c.tls() ? "mutual TLS"
              : (c.insecure_listen() ? "INSECURE (--insecure_listen, no TLS)"
                                     : "local (loopback or unix socket)"),
      c.audit_log() ? ", audit log on" : "", "; you are ",
      c.caller_identity(), " (", c.caller_role(), ")\n");
  return out;
}

std::string FormatTargetInfo(const v1::TargetInfo& t) {
  std::string out;
  const bool device = t.kind() == v1::TARGET_KIND_BLOCK_DEVICE;
  absl::StrAppend(&out, OneLine(t.path()), ": ",
                  device ? "block device" : "regular file",
                  t.path_is_symlink()
                      ? absl::StrCat(" (symlink to ", OneLine(t.resolved_path()), ")")
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
                    q.rotational() ? ", rotational" : ", non-rotational", "\n");
    absl::StrAppend(&out, "  queue limits  : logical_block_size ",
                    q.logical_block_size(), ", physical_block_size ",
                    q.physical_block_size(), ", max_sectors_kb ",
                    q.max_sectors_kb(), ", max_hw_sectors_kb ",
                    q.max_hw_sectors_kb(), "\n");
    absl::StrAppend(
        &out, "                  max_segments ", q.max_segments(),
        ", max_segment_size ", q.max_segment_size(), ", virt_boundary_mask ",
        absl::StrFormat("0x%x", q.virt_boundary_mask()), ", chunk_sectors ",
        q.chunk_sectors(), "\n");
    absl::StrAppend(&out, "                  optimal_io_size ",
                    q.optimal_io_size(), ", nr_requests ", q.nr_requests(),
                    ", io_poll ", q.io_poll() ? 1 : 0, ", rotational ",
                    q.rotational() ? 1 : 0, ", discard_max_bytes ",
                    q.discard_max_bytes(), "\n");
    absl::StrAppend(
        &out, "  tuning        : scheduler ", OrUnknown(q.scheduler()),
        ", nomerges ", q.nomerges(), ", rq_affinity ", q.rq_affinity(),
        ", write_cache ", OrUnknown(q.write_cache()), ", poll_queues ",
        q.poll_queues() < 0 ? std::string("n/a")
                            : absl::StrCat(q.poll_queues()),
        "\n");
  } else {
    absl::StrAppend(&out,
                    "  device        : none (no block device underneath; no "
                    "queue limits)\n");
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
