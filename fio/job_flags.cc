#include "fio/job_flags.h"

#include <string>

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, fio_job, "",
          "A fio job file as the spec (docs/fio.md); other spec flags "
          "override it.");
ABSL_FLAG(bool, fio_job_lenient, false,
          "--fio_job / import-fio: drop options that only change fio's "
          "output (logs, descriptions), listing each, instead of refusing.");

namespace blkperf {

absl::StatusOr<FioImport> ImportFioJobWithFlags(const std::string& path) {
  FioImportOptions options;
  options.lenient = absl::GetFlag(FLAGS_fio_job_lenient);
  return ImportFioJob(path, options);
}

absl::StatusOr<std::optional<FioImport>> FioJobFromFlags() {
  const std::string path = absl::GetFlag(FLAGS_fio_job);
  if (path.empty()) return std::optional<FioImport>();
  absl::StatusOr<FioImport> imported = ImportFioJobWithFlags(path);
  if (!imported.ok()) {
    return absl::InvalidArgumentError(
        std::string("--fio_job: ") + std::string(imported.status().message()));
  }
  return std::optional<FioImport>(*std::move(imported));
}

void PrintFioImportNotes(const FioImport& imported, std::FILE* out) {
  for (const std::string& d : imported.dropped) {
    std::fprintf(out, "fio job: dropped %s\n", d.c_str());
  }
  for (const std::string& n : imported.notes) {
    std::fprintf(out, "fio job: %s\n", n.c_str());
  }
}

}  // namespace blkperf
