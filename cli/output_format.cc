#include "cli/output_format.h"

#include <algorithm>
#include <string>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

ABSL_FLAG(std::string, output_format, "",
          "Result format: text (default), json (as --json), fio-json or "
          "fio-json+ (fio 3.x JSON / json+ layouts, docs/fio.md).");
ABSL_FLAG(std::string, percentile_list, "",
          "fio formats: percentiles as fio's --percentile_list "
          "(e.g. 1:25:50:75:99:99.9); default fio's list.");

namespace blkperf {

absl::string_view OutputFormatName(OutputFormat format) {
  switch (format) {
    case OutputFormat::kText: return "text";
    case OutputFormat::kJson: return "json";
    case OutputFormat::kFioJson: return "fio-json";
    case OutputFormat::kFioJsonPlus: return "fio-json+";
  }
  return "text";
}

absl::StatusOr<OutputFormat> ParseOutputFormat(absl::string_view text) {
  for (OutputFormat f : {OutputFormat::kText, OutputFormat::kJson,
                         OutputFormat::kFioJson, OutputFormat::kFioJsonPlus}) {
    if (text == OutputFormatName(f)) return f;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--output_format '", text,
                   "' is not one of text, json, fio-json, fio-json+"));
}

absl::StatusOr<OutputFormat> OutputFormatFromFlags(bool json_flag) {
  const std::string text = absl::GetFlag(FLAGS_output_format);
  if (text.empty()) return json_flag ? OutputFormat::kJson : OutputFormat::kText;
  absl::StatusOr<OutputFormat> format = ParseOutputFormat(text);
  if (!format.ok()) return format.status();
  if (json_flag && *format != OutputFormat::kJson) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--json conflicts with --output_format=", text,
        " (--json means --output_format=json)"));
  }
  return *format;
}

absl::StatusOr<std::vector<double>> ParsePercentileList(absl::string_view text) {
  std::vector<double> list;
  for (absl::string_view item :
       absl::StrSplit(text, absl::ByAnyChar(":,"), absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    double p = 0;
    if (!absl::SimpleAtod(item, &p) || !(p > 0 && p <= 100)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "percentile_list entry '", item, "' is not a number in (0, 100]"));
    }
    list.push_back(p);
  }
  if (list.empty()) {
    return absl::InvalidArgumentError("percentile_list is empty");
  }
  if (list.size() > kMaxFioPercentiles) {
    return absl::InvalidArgumentError(
        absl::StrCat("percentile_list has ", list.size(),
                     " entries; fio takes at most ", kMaxFioPercentiles));
  }
  std::sort(list.begin(), list.end());
  return list;
}

bool PercentileListFlagGiven() {
  return !absl::GetFlag(FLAGS_percentile_list).empty();
}

absl::StatusOr<std::vector<double>> PercentileListFromFlags() {
  const std::string text = absl::GetFlag(FLAGS_percentile_list);
  if (text.empty()) {
    return std::vector<double>{1,  5,  10, 20, 30, 40,   50,   60,   70,
                               80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
  }
  return ParsePercentileList(text);
}

}  // namespace blkperf
