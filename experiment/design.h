// The design of an experiment: its arms (one spec field varied over
// values, the first value the baseline) and the order the arms run in,
// round by round, in randomized counterbalanced blocks.
//
//   BLKPERF_ASSIGN_OR_RETURN(Vary vary, ParseVary("qd=16,32"));
//   std::vector<std::vector<int>> order = BlockOrder(vary.values.size(),
//                                                    /*rounds=*/10, seed);
//   for (const auto& round : order) for (int arm : round) Run(vary, arm);
#ifndef BLKPERF_EXPERIMENT_DESIGN_H_
#define BLKPERF_EXPERIMENT_DESIGN_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "model/workload_spec.h"

namespace blkperf {

// The most arms and rounds an experiment takes (each arm is a workload per
// round: the bounds keep a mistyped flag from running for days).
inline constexpr int kMaxArms = 16;
inline constexpr int kMaxRounds = 1000;

// --vary=FIELD=V1,V2[,...]: the field (a spec flag's name, without "--")
// and its values, one per arm, in order. Identical values are allowed (an
// A/A calibration).
struct Vary {
  std::string field;
  std::vector<std::string> values;
  // "qd=32": the arm's name in reports.
  std::string ArmName(int arm) const;
};

// InvalidArgument naming --vary for text without "FIELD=", an empty value,
// fewer than two values or more than kMaxArms.
absl::StatusOr<Vary> ParseVary(absl::string_view text);

// One arm of an experiment: its name in reports and the spec flags it sets
// (flag name, value as on the command line), applied over the shared spec
// flags and --spec_file (cli/spec_flags.h SpecFromFlagsWithOverrides).
struct ArmDesign {
  std::string name;
  std::vector<std::pair<std::string, std::string>> overrides;
  // "qd=32 target=/dev/a,/dev/b": the overrides as flags ("" for none).
  std::string OverridesText() const;
};

// The arms of --vary: named "qd=32", each setting the one field.
std::vector<ArmDesign> ArmsOf(const Vary& vary);

// The longest arm name a spec file may give: the metrics label's bound
// (model/workload_spec.h IsExperimentArmName).
inline constexpr size_t kMaxArmNameBytes = kMaxExperimentArmBytes;

// The arms of a spec file's "experiment" object (its JSON text, from
// cli/spec_flags.h SpecFileExperimentJson):
//   {"arms": [{"name": "plain", "overrides": {"fixed_buffers": false}},
//             {"name": "fixed", "overrides": {"fixed_buffers": true,
//                                             "cpus": "0,1"}}]}
// The first arm is the baseline. An override's key is a spec flag's name,
// its value a string (which may hold commas: a target or CPU list), a
// number or a bool, as the flag would take it; an arm may set no flag (the
// shared spec itself). InvalidArgument naming the place
// ("experiment.arms[1].name") for malformed JSON, unknown keys, fewer than
// two or more than kMaxArms arms, a name empty, repeated, longer than
// kMaxArmNameBytes or not of [A-Za-z0-9_.:=,/+-], or an override's value
// that is not a string, number or bool.
absl::StatusOr<std::vector<ArmDesign>> ParseExperimentArms(
    absl::string_view json);

// The order of the arms in each of `rounds` rounds: rounds come in blocks
// of two, the first a random permutation of the arms and the second its
// reverse (ABBA or BAAB for two arms), so every arm is as often early as
// late and drift within a block falls evenly on every arm. An odd last
// round is a random permutation of its own. Deterministic in `seed`.
std::vector<std::vector<int>> BlockOrder(int arms, int rounds, uint64_t seed);

// "AB BA BA AB": the order with arms as letters (A = the baseline).
std::string OrderText(const std::vector<std::vector<int>>& order);

}  // namespace blkperf

#endif  // BLKPERF_EXPERIMENT_DESIGN_H_
