// A workload's result in fio 3.x's JSON and json+ layouts
// (--output_format=fio-json|fio-json+), so tools that read fio's output
// (PerfKitBenchmarker, fio_jsonplus_clat2csv, fio-plot...) read blkperf's.
// Key names, types and formats follow fio's stat.c; docs/fio.md lists what
// each key means here and which ones blkperf does not measure.
//
//   FioJsonOptions options{.plus = true, .percentiles = *PercentileListFromFlags()};
//   std::cout << FormatFioJson(resolved.spec, resolved.targets, snapshot, options);
//
// Mapping: one fio job per job group (the whole workload when it has no
// groups), its threads reported together as fio's group_reporting does.
// slat_ns / clat_ns / lat_ns are the submission, completion and total
// latency histograms (model/snapshot.h), fio's meanings under latency_mode
// per_io; a batch run says so in the job's "blkperf" object. The histogram
// layout is fio's io_u_plat, so json+ "bins" and the percentiles are fio's
// exactly (a bin's key and a percentile's value are fio's plat_idx_to_val
// of the bucket). Latencies are kept for all directions together: a job
// whose I/O was in one direction carries them in that direction; a mixed
// job carries them in a "mixed" object (fio's unified_rw_reporting=both
// layout) and N = 0 in read / write / trim. Keys fio writes that blkperf
// does not measure are written with fio's type and value 0 and listed in
// the job's "blkperf"."not_measured".
#ifndef BLKPERF_REPORT_FIO_JSON_H_
#define BLKPERF_REPORT_FIO_JSON_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "model/histogram.h"
#include "model/snapshot.h"
#include "model/target_info.h"
#include "model/workload_spec.h"

namespace blkperf {

// Rates measured over another window than the snapshot's elapsed time (a
// fleet's overlap window): all directions together; each direction's iops
// and bw take their share in proportion to its counts.
struct FioRates {
  double ios_per_second = 0;
  double bytes_per_second = 0;
  // Said in the job's "blkperf"."rates".
  std::string meaning;
};

struct FioJsonOptions {
  // json+: clat_ns carries "bins" (every non-empty bucket).
  bool plus = false;
  // Sorted ascending, each in (0, 100] (cli/output_format.h parses fio's
  // --percentile_list into this).
  std::vector<double> percentiles = {1,  5,  10, 20, 30, 40,   50,   60,   70,
                                     80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
  // Unset: iops and bw are the counts over the snapshot's elapsed time.
  std::optional<FioRates> rates;
};

// The whole fio JSON document, pretty-printed as fio does, ending in "\n".
std::string FormatFioJson(const WorkloadSpec& spec,
                          const std::vector<TargetInfo>& targets,
                          const WorkloadSnapshot& snapshot,
                          const FioJsonOptions& options);

// One host's result in fio's client/server JSON (`fio --client`), and the
// fleet's merged result as its "All clients" job. Not owned.
struct FioClientResult {
  std::string hostname;
  int port = 0;
  const WorkloadSpec* spec = nullptr;
  const std::vector<TargetInfo>* targets = nullptr;
  const WorkloadSnapshot* snapshot = nullptr;
  // Options of this result alone (the merge's window rates); unset: the
  // call's.
  const FioJsonOptions* options = nullptr;
};

// fio's client/server JSON: the top-level keys of FormatFioJson, then
// "client_stats": every host's jobs (as FormatFioJson's "jobs", each with
// "hostname" and "port"), then, for more than one host (as fio), one job
// named "All clients" from `all_clients` (the whole workload, groups
// together), and "disk_util" []. REQUIRES: every pointer set.
std::string FormatFioClientJson(absl::Span<const FioClientResult> hosts,
                                const FioClientResult& all_clients,
                                const FioJsonOptions& options);

// fio's value for histogram bucket `index` (plat_idx_to_val): the index
// itself below 128, else the bucket's lower bound plus half its width.
// REQUIRES: 0 <= index < LatencyHistogram::kNumBuckets.
uint64_t FioBinValue(int index);

// fio's percentiles of `h` (calc_clat_percentiles): for each p of the
// sorted `percentiles`, FioBinValue of the first bucket at which the
// running count reaches p / 100 * Count(). Empty when `h` is empty.
std::vector<uint64_t> FioPercentiles(const LatencyHistogram& h,
                                     absl::Span<const double> percentiles);

}  // namespace blkperf

#endif  // BLKPERF_REPORT_FIO_JSON_H_
