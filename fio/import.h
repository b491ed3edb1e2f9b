// A fio job file as a blkperf spec: `blkperf import-fio JOB.fio` and
// --fio_job (docs/fio.md lists every option and how it maps).
//
//   absl::StatusOr<FioImport> imported = ImportFioJob("job.fio", {});
//   if (!imported.ok()) { ...exit 2, the message names file:line:option... }
//   StartWorkloadRequest request; *request.mutable_spec() = imported->spec;
//
// One job section is the workload; several run together as job groups (each
// needs cpus_allowed with cpus_allowed_policy=split, one thread per CPU,
// and the workload-wide options must agree). An option blkperf cannot
// honour exactly is refused: InvalidArgument "FILE:LINE: option 'KEY' ...".
// With `lenient`, options that cannot change the I/O issued (descriptions,
// logs and other output settings) are dropped instead and listed in
// `dropped`; everything else is still refused.
#ifndef BLKPERF_FIO_IMPORT_H_
#define BLKPERF_FIO_IMPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "fio/job_file.h"
#include "proto/blkperf.pb.h"
#include "report/fio_log.h"

namespace blkperf {

struct FioImportOptions {
  bool lenient = false;
  FioReadHooks hooks = DefaultFioReadHooks();
};

struct FioImport {
  v1::WorkloadSpec spec;
  // fio's percentile_list, when the file sets one (for the fio outputs).
  std::vector<double> percentiles;
  // fio's log options of the file (write_iops_log, write_bw_log,
  // write_lat_log with log_avg_msec; write_hist_log with log_hist_msec):
  // the process that runs the job writes them (cli/fio_log_flags.h), a
  // log flag on its command line winning over the file.
  FioLogOptions logs;
  // "FILE:LINE: option 'KEY'" of each option --fio_job_lenient dropped.
  std::vector<std::string> dropped;
  // Facts the user should see, e.g. that blkperf's default runtime applies.
  std::vector<std::string> notes;
};

absl::StatusOr<FioImport> ImportFioJob(const std::string& path,
                                       const FioImportOptions& options);

// The sections already read (ReadFioJobFile) as a spec.
absl::StatusOr<FioImport> ImportFioSections(const FioJobFile& file,
                                            const FioImportOptions& options);

}  // namespace blkperf

#endif  // BLKPERF_FIO_IMPORT_H_
