#include "fleet/experiment_run.h"

#include <cstdio>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "fleet/calls.h"
#include "wire/remote_result.h"

namespace blkperf::fleet {
namespace {

// The fleet run of one arm in one round, with every host's sample in
// `samples[host][arm]`; an error message when it did not complete on every
// host (then `exit_code` says how it ended).
std::string RunArmRound(const ExperimentPlan& plan, FleetOptions options,
                        const std::vector<std::string>& addresses,
                        const std::atomic<bool>* interrupted, size_t round,
                        int arm,
                        std::vector<std::vector<std::vector<RoundSample>>>& samples,
                        std::vector<std::vector<std::vector<double>>>& other_cpu,
                        std::vector<std::string>* governors, int* exit_code) {
  *exit_code = kExitRoundFailed;
  options.run_id = absl::StrCat(options.run_id, "-r", round + 1, "-",
                                std::string(1, static_cast<char>('A' + arm)));
  Orchestrator o(options, addresses, interrupted);
  absl::StatusOr<FleetRun> run = o.Run(plan.arms[static_cast<size_t>(arm)]);
  if (!run.ok()) return std::string(run.status().message());
  absl::StatusOr<FleetReport> report = BuildReport(*run);
  if (!report.ok()) return std::string(report.status().message());
  if (report->outcome != "completed") {
    std::vector<std::string> why;
    if (!report->abort_reason.empty()) why.push_back(report->abort_reason);
    for (const Excluded& e : report->excluded) {
      why.push_back(absl::StrCat(e.address, " ", e.state, ": ", e.reason));
    }
    return absl::StrCat("run ", options.run_id, " ", report->outcome, ": ",
                        absl::StrJoin(why, "; "));
  }
  std::map<std::string, size_t> index;
  for (size_t h = 0; h < addresses.size(); ++h) index[addresses[h]] = h;
  if (governors->empty()) {
    // Once, on the first run's channels: each host's CPU frequency governor
    // (a guardrail of its verdicts); "" when it does not answer.
    governors->resize(addresses.size());
    ForEachBounded(run->hosts.size(), options.max_in_flight, [&](size_t i) {
      const HostRun& h = run->hosts[i];
      if (h.connection == nullptr) return;
      absl::StatusOr<v1::GetCapabilitiesResponse> caps =
          h.connection->GetCapabilities({});
      if (caps.ok()) (*governors)[index.at(h.address)] = caps->cpu_frequency_governor();
    });
  }
  for (const HostRow& row : report->hosts) {
    absl::StatusOr<RemoteResult> result = ResultFromProto(row.workload);
    if (!result.ok()) {
      return absl::StrCat(row.address, ": ", result.status().message());
    }
    if (result->snapshot.state != WorkloadState::kFinished) {
      if (result->snapshot.state == WorkloadState::kFinishedWithErrors) {
        *exit_code = kExitRoundErrors;
      }
      return absl::StrCat(row.address, " ended ",
                          WorkloadStateName(result->snapshot.state));
    }
    const size_t host = index.at(row.address);
    samples[host][static_cast<size_t>(arm)].push_back(
        RoundSampleOf(result->snapshot));
    other_cpu[host][static_cast<size_t>(arm)].push_back(
        result->snapshot.other_cpu_share);
  }
  *exit_code = 0;
  return "";
}

ExperimentInput DesignOf(const ExperimentPlan& plan) {
  ExperimentInput in;
  in.field = plan.flags.field;
  for (const ArmDesign& arm : plan.flags.arms) {
    in.arm_names.push_back(arm.name);
    // --vary: the value; a spec file's arm: its overrides as flags.
    in.arm_values.push_back(plan.flags.field.empty() ? arm.OverridesText()
                                                     : arm.overrides[0].second);
  }
  in.order = plan.order;
  in.margin = plan.flags.margin;
  in.confidence = plan.flags.confidence;
  in.seed = plan.flags.seed;
  in.headline = plan.flags.headline;
  in.round = plan.flags.round;
  const google::protobuf::Duration& ramp = plan.arms[0].ramp_time();
  in.ramp = absl::Seconds(ramp.seconds()) + absl::Nanoseconds(ramp.nanos());
  return in;
}

}  // namespace

FleetExperimentOutcome RunFleetExperiment(
    const ExperimentPlan& plan, const FleetOptions& options,
    const std::vector<std::string>& addresses,
    const std::atomic<bool>* interrupted, bool progress) {
  FleetExperimentOutcome outcome;
  std::vector<std::vector<std::vector<RoundSample>>> samples(
      addresses.size(),
      std::vector<std::vector<RoundSample>>(plan.arms.size()));
  // other_cpu[host][arm][round]: each host's Snapshot.other_cpu_share.
  std::vector<std::vector<std::vector<double>>> other_cpu(
      addresses.size(), std::vector<std::vector<double>>(plan.arms.size()));
  std::vector<std::string> governors;
  for (size_t round = 0; round < plan.order.size(); ++round) {
    for (int arm : plan.order[round]) {
      if (interrupted != nullptr && interrupted->load()) {
        outcome.exit_code = kExitRoundFailed;
        outcome.message = "interrupted; no verdict";
        return outcome;
      }
      const std::string error = RunArmRound(plan, options, addresses,
                                            interrupted, round, arm, samples,
                                            other_cpu, &governors,
                                            &outcome.exit_code);
      if (!error.empty()) {
        outcome.message = absl::StrCat(
            "round ", round + 1, " arm ",
            plan.flags.arms[static_cast<size_t>(arm)].name, ": ", error,
            "; no verdict");
        return outcome;
      }
    }
    if (progress) {
      std::fprintf(stderr, "\rround %zu/%zu done on %zu hosts   ", round + 1,
                   plan.order.size(), addresses.size());
    }
  }
  if (progress) std::fprintf(stderr, "\n");
  outcome.result =
      AnalyzeFleet(DesignOf(plan), addresses, samples, governors, other_cpu);
  return outcome;
}

int FleetExitCode(const ExperimentPlan& plan, const FleetExperimentResult& r) {
  if (!plan.flags.fail_on_slower) return 0;
  for (size_t arm = 1; arm < r.arms.size(); ++arm) {
    if (r.arms[arm].verdict == Verdict::kSlower) return kExitSlower;
  }
  return 0;
}

absl::StatusOr<CohortComparison> CompareReportCohorts(
    const FleetReport& report, const std::string& baseline, double margin,
    double confidence, Metric headline) {
  if (report.cohorts.size() < 2) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cohort_by ", report.cohort_by, ": ", report.cohorts.size(),
        " cohort(s) among the completed hosts; nothing to compare"));
  }
  std::map<std::string, const HostRow*> rows;
  for (const HostRow& row : report.hosts) rows[row.address] = &row;
  std::vector<CohortSamples> cohorts;
  int chosen = -1;
  for (const Cohort& c : report.cohorts) {
    CohortSamples s;
    s.value = c.value;
    for (const std::string& address : c.hosts) {
      auto it = rows.find(address);
      if (it == rows.end()) continue;
      absl::StatusOr<RemoteResult> result = ResultFromProto(it->second->workload);
      if (!result.ok()) {
        return absl::FailedPreconditionError(
            absl::StrCat(address, ": ", result.status().message()));
      }
      s.hosts.push_back(address);
      s.samples.push_back(RoundSampleOf(result->snapshot));
    }
    if (s.hosts.empty()) continue;
    if (!baseline.empty() && s.value == baseline) {
      chosen = static_cast<int>(cohorts.size());
    }
    cohorts.push_back(std::move(s));
  }
  if (cohorts.size() < 2) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cohort_by ", report.cohort_by,
        ": fewer than two cohorts with a completed host; nothing to compare"));
  }
  if (!baseline.empty() && chosen < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cohort_baseline \"", baseline.substr(0, 64), "\" is no cohort's value"));
  }
  if (chosen < 0) {
    chosen = 0;
    for (size_t i = 1; i < cohorts.size(); ++i) {
      if (cohorts[i].hosts.size() > cohorts[static_cast<size_t>(chosen)].hosts.size()) {
        chosen = static_cast<int>(i);
      }
    }
  }
  return CompareCohorts(report.cohort_by, cohorts, chosen, margin, confidence,
                        headline);
}

std::string WithCohortComparison(const std::string& report_json,
                                 const CohortComparison& c) {
  absl::string_view body = absl::StripSuffix(report_json, "\n");
  body = absl::StripSuffix(body, "}");
  return absl::StrCat(body, ",\n\"cohort_comparison\": ", FormatCohortJson(c),
                      "\n}\n");
}

}  // namespace blkperf::fleet
