// --fio_job=JOB.fio and --fio_job_lenient: a fio job file as the base of
// the spec flags, for `blkperfd run` and `blkperf run|start`. The process
// that parses the flags reads the file (the user's own); the daemon never
// reads a job file.
//
//   absl::StatusOr<std::optional<FioImport>> job = FioJobFromFlags();
//   if (!job.ok()) { ...exit 2... }
//   v1::WorkloadSpec base = *job ? (*job)->spec : v1::WorkloadSpec();
//   PrintFioImportNotes(**job, stderr);  // dropped options and notes
#ifndef BLKPERF_FIO_JOB_FLAGS_H_
#define BLKPERF_FIO_JOB_FLAGS_H_

#include <cstdio>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "fio/import.h"

namespace blkperf {

// The imported --fio_job, or nullopt when the flag is not given.
// InvalidArgument naming file, line and option for what cannot be imported.
absl::StatusOr<std::optional<FioImport>> FioJobFromFlags();

// `path` imported with --fio_job_lenient as the flag says (import-fio).
absl::StatusOr<FioImport> ImportFioJobWithFlags(const std::string& path);

// "fio job: dropped FILE:LINE: option 'KEY'" and "fio job: NOTE" lines.
void PrintFioImportNotes(const FioImport& imported, std::FILE* out);

}  // namespace blkperf

#endif  // BLKPERF_FIO_JOB_FLAGS_H_
