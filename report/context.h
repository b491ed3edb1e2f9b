// A result's context in the reports: the environment block
// (model/environment.h) and the time series (model/series.h), as the JSON
// report's "environment" and "series" members and the text report's lines.
//
//   absl::StrCat("{\"environment\":", EnvironmentJson(s.environment),
//                ",\"series\":", SeriesJson(s.series), ...);
//   out += EnvironmentText(s.environment);
#ifndef BLKPERF_REPORT_CONTEXT_H_
#define BLKPERF_REPORT_CONTEXT_H_

#include <string>

#include "model/environment.h"
#include "model/series.h"

namespace blkperf {

// {"blkperf_version":"0.1.0",...,"targets":[{"path":...,"scheduler":...}]}:
// every fact a string, as collected ("unknown" where it is not known).
std::string EnvironmentJson(const Environment& env);

// [{"start_seconds":0,"length_seconds":1,"read_iops":...,"p99_ns":...}, ...]
std::string SeriesJson(const Series& series);

// "environment: host h1, kernel 6.1.0-9, blkperf 0.1.0 (a33ee0c6), ..."
// and one "target environment:" line per target.
std::string EnvironmentText(const Environment& env);

// "series: 10 points of 1s (p99 min 80.1us max 1.2ms)" or, downsampled,
// "... of 2s (downsampled from 1s beyond 1000 points)"; "" without points.
std::string SeriesText(const Series& series);

}  // namespace blkperf

#endif  // BLKPERF_REPORT_CONTEXT_H_
