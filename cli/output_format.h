// The one output-format flag, --output_format, shared by `blkperfd run` and
// the blkperf client, and fio's --percentile_list for the fio formats.
//
//   absl::StatusOr<OutputFormat> format = OutputFormatFromFlags(json_flag);
//   if (!format.ok()) { ...exit 2... }
//   if (IsFioFormat(*format)) { ... FormatFioJson(...) ... }
//
// Values: text (the table, default), json (blkperf's JSON report, the same
// as --json), fio-json and fio-json+ (fio 3.x's JSON and json+ layouts,
// report/fio_json.h; docs/fio.md).
#ifndef BLKPERF_CLI_OUTPUT_FORMAT_H_
#define BLKPERF_CLI_OUTPUT_FORMAT_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace blkperf {

enum class OutputFormat { kText, kJson, kFioJson, kFioJsonPlus };

// "text", "json", "fio-json", "fio-json+".
absl::string_view OutputFormatName(OutputFormat format);
// Parses one of OutputFormatName's values; InvalidArgument naming the flag
// and listing the values otherwise.
absl::StatusOr<OutputFormat> ParseOutputFormat(absl::string_view text);

inline bool IsFioFormat(OutputFormat format) {
  return format == OutputFormat::kFioJson ||
         format == OutputFormat::kFioJsonPlus;
}

// --output_format, with the older --json (`json_flag`) as a synonym of
// --output_format=json. InvalidArgument when the value is unknown or when
// --json is combined with another --output_format.
absl::StatusOr<OutputFormat> OutputFormatFromFlags(bool json_flag);

// The most entries fio takes in a percentile list (FIO_IO_U_LIST_MAX_LEN).
inline constexpr size_t kMaxFioPercentiles = 20;

// fio's --percentile_list syntax: "99:99.9:99.99" (':'-separated; fio also
// takes ','), each in (0, 100], at most kMaxFioPercentiles, returned sorted
// ascending as fio sorts them. InvalidArgument naming percentile_list.
absl::StatusOr<std::vector<double>> ParsePercentileList(absl::string_view text);

// --percentile_list, or fio's default list (1 5 10 20 30 40 50 60 70 80 90
// 95 99 99.5 99.9 99.95 99.99) when it is not given.
absl::StatusOr<std::vector<double>> PercentileListFromFlags();
// Whether --percentile_list was given (a job file's list yields to it).
bool PercentileListFlagGiven();

}  // namespace blkperf

#endif  // BLKPERF_CLI_OUTPUT_FORMAT_H_
