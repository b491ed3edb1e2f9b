// Text and JSON of experiment/fleet_analysis.h's results.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "base/bounded_text.h"
#include "experiment/design.h"
#include "experiment/fleet_analysis.h"
#include "experiment/format.h"
#include "experiment/json_values.h"

namespace blkperf {
namespace {

using experiment_json::Number;
using experiment_json::Numbers;
using experiment_json::Quote;

std::string Strings(const std::vector<std::string>& values) {
  std::vector<std::string> parts;
  for (const std::string& v : values) parts.push_back(Quote(v));
  return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
}

std::string Interval(const RatioEstimate& e) {
  return absl::StrFormat("%.3f %.3f-%.3f", e.ratio, e.ci_lo, e.ci_hi);
}

std::string Percent(double confidence) {
  return absl::StrCat(static_cast<int>(std::lround(100 * confidence)), "%");
}

std::string Safe(absl::string_view text) {
  std::string out;
  AppendEscaped(text, &out);
  return out;
}

// A host's experiment JSON without its design (the fleet's holds it):
// FormatExperimentJson's "governor", "arms" and "guardrails".
std::string HostJson(const HostExperiment& h) {
  std::string json = FormatExperimentJson(h.result);
  const size_t arms = json.find(",\"governor\":");
  absl::string_view body = absl::string_view(json).substr(arms + 1);
  body = absl::StripSuffix(body, "}}\n");
  return absl::StrCat("{\"address\":", Quote(h.address), ",", body, "}");
}

std::string FleetMetricJson(const FleetExperimentResult& r,
                            const FleetMetricResult& m) {
  std::vector<std::string> hosts;
  for (int h : m.hosts) hosts.push_back(r.hosts[static_cast<size_t>(h)].address);
  std::string out = absl::StrCat("{\"host_ratios\":", Numbers(m.host_ratios),
                                 ",\"hosts\":", Strings(hosts));
  if (m.comparable) {
    absl::StrAppend(&out, ",\"ratio\":", Number(m.estimate.ratio), ",\"ci\":[",
                    Number(m.estimate.ci_lo), ",", Number(m.estimate.ci_hi),
                    "],\"verdict\":", Quote(VerdictName(m.verdict)),
                    ",\"more_hosts\":",
                    m.verdict == Verdict::kInconclusive && m.more_hosts >= 0
                        ? absl::StrCat(m.more_hosts)
                        : "null");
  }
  return out + "}";
}

std::string FleetArmJson(const FleetExperimentResult& r, size_t index) {
  const FleetArmResult& arm = r.arms[index];
  std::string out =
      absl::StrCat("{\"name\":", Quote(arm.name), ",\"value\":", Quote(arm.value),
                   ",\"baseline\":", index == 0 ? "true" : "false");
  if (index == 0) return out + "}";
  const bool decided =
      arm.metrics[static_cast<size_t>(r.design.headline)].comparable;
  std::vector<std::string> outliers;
  for (int h : arm.outliers) outliers.push_back(r.hosts[static_cast<size_t>(h)].address);
  absl::StrAppend(&out, ",\"verdict\":",
                  decided ? Quote(VerdictName(arm.verdict)) : "null",
                  ",\"outliers\":", Strings(outliers));
  for (const MetricInfo& info : Metrics()) {
    absl::StrAppend(&out, ",", Quote(info.key), ":",
                    FleetMetricJson(r, arm.metrics[static_cast<size_t>(info.metric)]));
  }
  return out + "}";
}

}  // namespace

std::string FormatFleetExperimentJson(const FleetExperimentResult& r) {
  const ExperimentInput& in = r.design;
  const ExperimentResult& any = r.hosts[0].result;
  std::vector<std::string> order, hosts, arms;
  for (const std::vector<int>& round : in.order) {
    order.push_back(Quote(OrderText({round})));
  }
  for (const HostExperiment& h : r.hosts) hosts.push_back(HostJson(h));
  for (size_t i = 0; i < r.arms.size(); ++i) arms.push_back(FleetArmJson(r, i));
  return absl::StrCat(
      "{\"experiment\":{\"field\":", Quote(in.field),
      ",\"margin\":", Number(in.margin), ",\"confidence\":",
      Number(in.confidence), ",\"seed\":", in.seed,
      ",\"metric\":", Quote(InfoOf(in.headline).key), ",\"rounds\":", any.rounds,
      ",\"round_seconds\":", Number(absl::ToDoubleSeconds(in.round)),
      ",\"ramp_seconds\":", Number(absl::ToDoubleSeconds(in.ramp)),
      ",\"total_seconds\":", Number(absl::ToDoubleSeconds(any.total)),
      ",\"order\":[", absl::StrJoin(order, ","), "],\"unit\":\"host\"",
      ",\"hosts\":[", absl::StrJoin(hosts, ","), "]",
      ",\"fleet\":{\"statistic\":\"median of the hosts' ratios (on logs), "
      "expanded percentile bootstrap over hosts\",\"resamples\":",
      kBootstrapResamples, ",\"seed\":", kBootstrapSeed,
      ",\"outlier_rule\":", Quote(kFleetOutlierRule), ",\"arms\":[",
      absl::StrJoin(arms, ","), "]},\"notes\":", Strings(r.notes), "}}\n");
}

std::string FormatFleetExperimentText(const FleetExperimentResult& r) {
  const ExperimentInput& in = r.design;
  const ExperimentResult& any = r.hosts[0].result;
  const MetricInfo& head = InfoOf(in.headline);
  std::vector<std::string> arms;
  for (size_t i = 0; i < r.arms.size(); ++i) {
    arms.push_back(absl::StrCat(std::string(1, static_cast<char>('A' + i)), "=",
                                Safe(r.arms[i].value), i == 0 ? " (baseline)" : ""));
  }
  std::string out = absl::StrCat(
      "fleet experiment: ", Safe(in.field), " ", absl::StrJoin(arms, " "), " on ",
      r.hosts.size(), " hosts, arms switched on every host at the same "
      "instants\n  ", any.rounds, " rounds x ", r.arms.size(), " arms x (",
      absl::FormatDuration(in.ramp), " ramp + ", absl::FormatDuration(in.round),
      ") = ", absl::FormatDuration(any.total), "; margin ",
      absl::StrFormat("%g", 100 * in.margin), "%, confidence ",
      Percent(in.confidence), ", experiment_seed ", in.seed,
      "\n  order (every host): ", OrderText(in.order), "\n");
  for (size_t a = 1; a < r.arms.size(); ++a) {
    const FleetArmResult& arm = r.arms[a];
    absl::StrAppend(&out, absl::StrFormat(
        "%c %s vs A %s, %s per host (ratio, %s interval, verdict):\n",
        static_cast<char>('A' + a), Safe(arm.name), Safe(r.arms[0].name),
        head.label, Percent(in.confidence)));
    for (size_t h = 0; h < r.hosts.size(); ++h) {
      const ArmResult& ha = r.hosts[h].result.arms[a];
      const MetricResult& m = ha.metrics[static_cast<size_t>(in.headline)];
      const bool outlier = std::find(arm.outliers.begin(), arm.outliers.end(),
                                     static_cast<int>(h)) != arm.outliers.end();
      absl::StrAppend(&out, absl::StrFormat(
          "  %-24s %-19s %s%s%s\n", Safe(r.hosts[h].address),
          m.comparable ? Interval(m.estimate) : "-",
          m.comparable ? VerdictName(ha.verdict) : "no ratio",
          ha.suspect ? " (suspect)" : "", outlier ? "  OUTLIER" : ""));
    }
    absl::StrAppend(&out, "  fleet (hosts as the unit):\n");
    for (const MetricInfo& info : Metrics()) {
      const FleetMetricResult& m = arm.metrics[static_cast<size_t>(info.metric)];
      std::string verdict = m.comparable ? std::string(VerdictName(m.verdict)) : "no ratio";
      if (m.comparable && m.verdict == Verdict::kInconclusive && m.more_hosts > 0) {
        absl::StrAppend(&verdict, ": about ", m.more_hosts, " more hosts would decide");
      }
      absl::StrAppend(&out, absl::StrFormat(
          "    %-7s %-19s %s (%d hosts)%s\n", info.label,
          m.comparable ? Interval(m.estimate) : "-", verdict,
          static_cast<int>(m.host_ratios.size()),
          info.metric == in.headline ? "  <- headline" : ""));
    }
    std::vector<std::string> outliers;
    for (int h : arm.outliers) outliers.push_back(Safe(r.hosts[static_cast<size_t>(h)].address));
    absl::StrAppend(&out, "  outliers: ",
                    outliers.empty() ? "none" : absl::StrJoin(outliers, ", "),
                    " (", kFleetOutlierRule, ")\n");
  }
  for (const std::string& note : r.notes) absl::StrAppend(&out, "note: ", note, "\n");
  for (const HostExperiment& h : r.hosts) {
    for (const Guardrail& g : h.result.guardrails) {
      if (g.suspect) absl::StrAppend(&out, "SUSPECT ", Safe(h.address), ": ", g.message, "\n");
    }
  }
  return out;
}

std::string FormatCohortJson(const CohortComparison& c) {
  std::vector<std::string> cohorts;
  for (const CohortResult& cohort : c.cohorts) {
    std::string out = absl::StrCat(
        "{\"value\":", Quote(cohort.value), ",\"hosts\":", Strings(cohort.hosts),
        ",\"baseline\":", cohort.baseline ? "true" : "false");
    if (!cohort.baseline) {
      const bool decided = cohort.metrics[static_cast<size_t>(c.headline)].comparable;
      absl::StrAppend(&out, ",\"verdict\":",
                      decided ? Quote(VerdictName(cohort.verdict)) : "null",
                      ",\"suspect\":", cohort.suspect ? "true" : "false");
    }
    for (const MetricInfo& info : Metrics()) {
      const CohortMetricResult& m = cohort.metrics[static_cast<size_t>(info.metric)];
      absl::StrAppend(&out, ",", Quote(info.key), ":{\"samples\":",
                      Numbers(m.samples), ",\"median\":", Number(m.median));
      if (m.comparable) {
        absl::StrAppend(&out, ",\"ratio\":", Number(m.estimate.ratio),
                        ",\"ci\":[", Number(m.estimate.ci_lo), ",",
                        Number(m.estimate.ci_hi), "],\"verdict\":",
                        Quote(VerdictName(m.verdict)), ",\"mann_whitney_u\":",
                        Number(m.rank.u), ",\"p_value\":", Number(m.rank.p_value),
                        ",\"exact\":", m.rank.exact ? "true" : "false");
      }
      absl::StrAppend(&out, "}");
    }
    cohorts.push_back(out + "}");
  }
  return absl::StrCat(
      "{\"by\":", Quote(c.by), ",\"unit\":\"host\",\"margin\":", Number(c.margin),
      ",\"confidence\":", Number(c.confidence), ",\"metric\":",
      Quote(InfoOf(c.headline).key),
      ",\"statistic\":\"ratio of the cohorts' medians (on logs), each cohort's "
      "hosts resampled on their own, expanded percentile bootstrap\","
      "\"resamples\":", kBootstrapResamples, ",\"seed\":", kBootstrapSeed,
      ",\"rank_test\":\"Mann-Whitney U, two-sided\",\"min_hosts\":",
      kMinHostsPerCohort, ",\"cohorts\":[", absl::StrJoin(cohorts, ","), "]}");
}

std::string FormatCohortText(const CohortComparison& c) {
  const CohortResult& base = c.cohorts[0];
  std::string out = absl::StrCat(
      "cohorts by ", Safe(c.by), " (hosts as the unit, unpaired; baseline ",
      Safe(base.value), ", ", base.hosts.size(), " hosts; margin ",
      absl::StrFormat("%g", 100 * c.margin), "%, confidence ",
      Percent(c.confidence), "):\n");
  for (size_t i = 1; i < c.cohorts.size(); ++i) {
    const CohortResult& cohort = c.cohorts[i];
    const bool decided = cohort.metrics[static_cast<size_t>(c.headline)].comparable;
    absl::StrAppend(&out, Safe(cohort.value), " (", cohort.hosts.size(),
                    " hosts) vs ", Safe(base.value), ": ",
                    decided ? VerdictName(cohort.verdict) : "no ratio",
                    cohort.suspect
                        ? absl::StrCat(" (suspect: fewer than ", kMinHostsPerCohort,
                                       " hosts in a cohort)")
                        : "",
                    "\n");
    absl::StrAppend(&out, absl::StrFormat("  %-7s %-19s %-8s %s\n", "metric",
                                          "ratio interval", "p(MWU)", "verdict"));
    for (const MetricInfo& info : Metrics()) {
      const CohortMetricResult& m = cohort.metrics[static_cast<size_t>(info.metric)];
      absl::StrAppend(&out, absl::StrFormat(
          "  %-7s %-19s %-8s %s%s\n", info.label,
          m.comparable ? Interval(m.estimate) : "-",
          m.comparable ? absl::StrFormat("%.3g", m.rank.p_value) : "-",
          m.comparable ? VerdictName(m.verdict) : "no ratio",
          info.metric == c.headline ? "  <- headline" : ""));
    }
  }
  absl::StrAppend(&out, "  (ratio: cohort median / baseline median over hosts; "
                        "lower is better for CPU/IO and latency)\n");
  return out;
}

}  // namespace blkperf
