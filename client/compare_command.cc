#include "client/compare_command.h"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/bounded_text.h"
#include "experiment/compare.h"
#include "experiment/flags.h"
#include "store/results_store.h"
#include "store/save_result.h"

ABSL_DECLARE_FLAG(std::string, results_db);

namespace blkperf {
namespace {

// A results store id ("r" and 16 hex digits, store/result_record.h) that
// names no file here.
bool IsStoreId(const std::string& arg) {
  if (arg.size() != 17 || arg[0] != 'r') return false;
  for (size_t i = 1; i < arg.size(); ++i) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(arg[i]))) return false;
  }
  struct stat st;
  return stat(arg.c_str(), &st) != 0;
}

// The report kept under `id` in the results store (--results_db, else the
// default store).
absl::StatusOr<RunReport> ReadStoredReport(const std::string& id) {
  std::string location = absl::GetFlag(FLAGS_results_db);
  if (location.empty()) location = DefaultResultsDb();
  if (location == "none") {
    return absl::InvalidArgumentError(absl::StrCat(
        id, " is a result id, but --results_db=none: there is no store"));
  }
  absl::StatusOr<std::unique_ptr<ResultsStore>> store =
      OpenResultsStore(location);
  if (!store.ok()) return store.status();
  absl::StatusOr<ResultRecord> record = (*store)->Get(id);
  if (!record.ok()) return record.status();
  return ParseRunReport(record->report_json, id);
}

absl::StatusOr<RunReport> ReadReport(const std::string& path) {
  if (IsStoreId(path)) return ReadStoredReport(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot be read"));
  // One byte past the limit tells a report too large from one at the limit.
  std::string text(kMaxReportBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return ParseRunReport(text, path);
}

}  // namespace

int CompareCommand(const std::string& path_a, const std::string& path_b) {
  absl::StatusOr<ExperimentFlags> flags = ExperimentFlagsFromFlags();
  absl::StatusOr<RunReport> a =
      flags.ok() ? ReadReport(path_a) : absl::StatusOr<RunReport>(flags.status());
  absl::StatusOr<RunReport> b = a.ok() ? ReadReport(path_b) : a;
  if (!b.ok()) {
    std::fprintf(stderr, "blkperf compare: %s\n",
                 OneLine(b.status().ToString(), kMaxLogLineBytes).c_str());
    return 2;
  }
  const std::string text = CompareText(*a, *b, flags->margin, flags->confidence);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace blkperf
