// The JSON values an experiment's reports are written with (format.cc,
// fleet_format.cc): an escaped string, a number (null when not finite) and
// a list of numbers.
//
//   out += absl::StrCat("\"ratio\":", experiment_json::Number(r.ratio));
#ifndef BLKPERF_EXPERIMENT_JSON_VALUES_H_
#define BLKPERF_EXPERIMENT_JSON_VALUES_H_

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "base/bounded_text.h"

namespace blkperf::experiment_json {

// `text` as a JSON string, escaped.
inline std::string Quote(absl::string_view text) {
  std::string out = "\"";
  AppendEscaped(text, &out);
  out += '"';
  return out;
}

// `value` to 10 significant digits; null when it is not finite.
inline std::string Number(double value) {
  if (!std::isfinite(value)) return "null";
  return absl::StrFormat("%.10g", value);
}

inline std::string Numbers(const std::vector<double>& values) {
  std::vector<std::string> parts;
  for (double v : values) parts.push_back(Number(v));
  return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
}

}  // namespace blkperf::experiment_json

#endif  // BLKPERF_EXPERIMENT_JSON_VALUES_H_
