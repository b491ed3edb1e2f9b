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
#include "model/snapshot.h"
#include "model/steady_state.h"

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

// {"enabled":false}, or {"enabled":true,"criterion":"iops:5%","mode":"stop",
// "window_seconds":30,"check_seconds":1,"checks":41,"attained":true,
// "attained_at_seconds":41,"window":{"samples":30,"mean":...,"min":...,
// "max":...,"deviation":...,"slope_per_second":...,"value":1.2,"limit":5,
// "met":true},"left":false,"left_at_seconds":0,"left_window":{...},
// "warning":""}; a value without meaning (percent of a zero mean) is null.
std::string SteadyStateJson(const SteadyStateResult& result);

// "  steady state: iops:5% (30s window, checked every 1s, mode stop):
// attained at 41s, iops deviation 1.20% < 5% (mean ...); the run ended
// there" and, after leaving, a "warning: left steady state at ..." line;
// "" without steady state.
std::string SteadyStateText(const SteadyStateResult& result);

// The JSON report's "precondition": null without preconditioning, else
// {"passes":2,"passes_done":2,"bytes_written":...,"bytes_planned":...,
// "seconds":...,"complete":true,"block_size":131072,"notes":[...]}.
std::string PreconditionJson(const PreconditionSummary& p);

// "precondition: sequential 128 KiB writes, 2 of 2 passes complete, 1.00GiB
// written in 3.20s" and a "precondition note:" line per note; "" without.
std::string PreconditionText(const PreconditionSummary& p);

}  // namespace blkperf

#endif  // BLKPERF_REPORT_CONTEXT_H_
