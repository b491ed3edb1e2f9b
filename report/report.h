// Human and JSON reports of a workload, in the spirit of fio's and
// t/io_uring's output: IOPS, bandwidth, IOs per syscall, CPU, latency
// percentiles and per-thread lines. Used by `blkperfd run` and the client.
//
//   std::cout << FormatTextReport(resolved.spec, resolved.targets, snapshot);
//   std::cout << FormatJsonReport(resolved.spec, resolved.targets, snapshot);
//   std::cerr << FormatStatusLine(previous, current) << "\r";
#ifndef BLKPERF_REPORT_REPORT_H_
#define BLKPERF_REPORT_REPORT_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "model/snapshot.h"
#include "model/target_info.h"
#include "model/workload_spec.h"

namespace blkperf {

// The percentiles every report shows, in this order.
inline constexpr double kReportPercentiles[] = {50, 90, 99, 99.9, 99.99};

// One line of the spec: "randread bs=4KiB qd=32 batch=32/32 threads=1 ...".
std::string SpecSummary(const WorkloadSpec& spec);

// The I/O shape part of SpecSummary: " distribution=zipf:1.2 bssplit=4k/70:
// 64k/30 rate_iops=20000 (poisson) ..." ("" for a plain shape).
std::string ShapeSummary(const WorkloadSpec& spec);

// One job group: "randread bs=4.00KiB qd=8 cpus=0,1 distribution=zipf:1.2".
std::string GroupSummary(const WorkloadSpec& spec, const JobGroupSpec& group);

// The "request cache:" line: per_cpu's hits (the thread's own cache) and
// misses (taken from the shared pool); shared's takes from the pool (it
// has no hits). No take allocates: every request is made at setup.
std::string RequestCacheText(RequestCacheMode mode, const ThreadSnapshot& t);

// The failed I/Os' sites, "target@offset" each, space-separated: the I/O's
// byte offset, or for a verify mismatch its first wrong byte, marked
// "(first wrong byte)".
std::string ErrorSitesText(const WorkloadSnapshot& s);

// Open loop: which part of the intended-time latency (ilat = issue lag +
// service latency, per I/O) carries its tail, judged at p99: service
// latency when its p99 is the larger, else issue lag, split by cause:
// a full queue when at least 1 % of the I/Os were late, else the
// generator (the submitter issued late with slots free). kNone in closed
// loop. Names in JSON ("intended_tail"): "service_latency",
// "issue_lag_queue_full", "issue_lag_generator".
enum class IntendedTail { kNone, kServiceLatency, kQueueFull, kGenerator };
IntendedTail IntendedTailOf(const ThreadSnapshot& t);
absl::string_view IntendedTailName(IntendedTail tail);

// Open loop only ("" when `total` has no intended-time latencies): the
// "ilat" and "lag" lines (min/mean/max and percentiles of the intended-time
// latency and of the issue lag), "open loop: late=N of M I/Os ..." and
// "tail: ..." (IntendedTailOf), as FormatTextReport prints them for the
// workload total. The fleet report prints its merged total with it.
std::string OpenLoopText(const ThreadSnapshot& total);

// One job group's two lines of FormatTextReport: "  group hot: <summary>\n"
// and "    IOPS=... BW=... read_ios=... p50=... p99=...[ intended p99=...
// p99.9=... late=N]\n", at the rates given (FormatTextReport: the group's
// counts over the snapshot's elapsed time; a fleet report: its own).
std::string GroupText(absl::string_view name, absl::string_view summary,
                      const ThreadSnapshot& total, double iops,
                      double bytes_per_second);

// The final (or live) result as a multi-line table.
std::string FormatTextReport(const WorkloadSpec& spec,
                             const std::vector<TargetInfo>& targets,
                             const WorkloadSnapshot& snapshot);

// The same as one JSON object (one line, newline-terminated): the report
// schema, which every `--json` prints (blkperfd run, blkperf, a fleet run's
// `merged` and `hosts[].report`). Latency values are nanoseconds; rates are
// per second. Each latency object carries its histogram as `buckets`, a
// list of [index, count] in model/histogram.h's layout (fio's io_u_plat: 128
// buckets of 1 ns, then 64 per power of two), so any percentile can be
// recomputed and histograms merged exactly.
std::string FormatJsonReport(const WorkloadSpec& spec,
                             const std::vector<TargetInfo>& targets,
                             const WorkloadSnapshot& snapshot);

// A one-line live status over the interval between two snapshots of one
// workload, like fio's status line: state, interval IOPS and bandwidth,
// p50/p99 of the interval, the split strategy in force and the errors so far:
//   "[running 3s] IOPS=75.3k BW=294.09MiB/s p50=395.3us p99=782.3us
//    split=limits errors=0"
std::string FormatStatusLine(const WorkloadSnapshot& previous,
                             const WorkloadSnapshot& current);

}  // namespace blkperf

#endif  // BLKPERF_REPORT_REPORT_H_
