// An experiment's result as a text table a person reads in a few seconds,
// and as the "experiment" JSON object with every raw sample, interval,
// verdict and guardrail, so anyone can recompute it.
//
//   std::cout << FormatExperimentText(result);
//   std::cout << FormatExperimentJson(result);  // {"experiment":{...}}\n
#ifndef BLKPERF_EXPERIMENT_FORMAT_H_
#define BLKPERF_EXPERIMENT_FORMAT_H_

#include <string>

#include "experiment/analysis.h"

namespace blkperf {

// Multi-line text: the design line, the order, then per arm against the
// baseline one row per metric (baseline median, arm median, ratio,
// interval, verdict, "about N more rounds would decide"), then guardrails.
std::string FormatExperimentText(const ExperimentResult& result);

// One JSON object on one line, newline-terminated:
//   {"experiment":{"field":..,"margin":..,"confidence":..,"seed":..,
//    "metric":..,"rounds":..,"round_seconds":..,"ramp_seconds":..,
//    "total_seconds":..,"order":["AB","BA",..],"bootstrap":{..},
//    "arms":[{"name":..,"value":..,"baseline":true,"samples":[..],
//             "iops":{"samples":[..],"median":..},..},
//            {"name":..,"verdict":"faster","suspect":false,"samples":[..],
//             "iops":{"samples":[..],"median":..,"ratio":1.25,
//                     "ci":[lo,hi],"verdict":"faster","more_rounds":null},
//             ..}],
//    "guardrails":[{"arm":..,"kind":..,"suspect":..,"message":..}]}}
// An arm's "samples" and "verdict" are its headline metric's (--metric).
std::string FormatExperimentJson(const ExperimentResult& result);

}  // namespace blkperf

#endif  // BLKPERF_EXPERIMENT_FORMAT_H_
