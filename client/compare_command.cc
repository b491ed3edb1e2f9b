#include "client/compare_command.h"

#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "experiment/compare.h"
#include "experiment/flags.h"

namespace blkperf {
namespace {

absl::StatusOr<RunReport> ReadReport(const std::string& path) {
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
    std::fprintf(stderr, "blkperf compare: %s\n", b.status().ToString().c_str());
    return 2;
  }
  const std::string text = CompareText(*a, *b, flags->margin, flags->confidence);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace blkperf
