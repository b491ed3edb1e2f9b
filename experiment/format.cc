#include "experiment/format.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/bounded_text.h"
#include "base/units.h"
#include "experiment/design.h"
#include "experiment/json_values.h"

namespace blkperf {
namespace {

using experiment_json::Number;
using experiment_json::Numbers;
using experiment_json::Quote;

std::string MetricJson(const MetricResult& m) {
  std::string out = absl::StrCat("{\"samples\":", Numbers(m.samples),
                                 ",\"median\":", Number(m.median));
  if (m.from_merges) {
    // The percentile of all rounds' I/Os; ratio and ci from resampled merges.
    absl::StrAppend(&out, ",\"merged\":", Number(m.merged),
                    ",\"statistic\":\"merged histograms\"");
  }
  if (m.comparable) {
    absl::StrAppend(&out, ",\"ratio\":", Number(m.estimate.ratio), ",\"ci\":[",
                    Number(m.estimate.ci_lo), ",", Number(m.estimate.ci_hi),
                    "],\"verdict\":", Quote(VerdictName(m.verdict)),
                    ",\"more_rounds\":",
                    m.verdict == Verdict::kInconclusive && m.more_rounds >= 0
                        ? absl::StrCat(m.more_rounds)
                        : "null");
  }
  return out + "}";
}

std::string ArmJson(const ExperimentResult& r, const ArmResult& arm) {
  const MetricResult& headline =
      arm.metrics[static_cast<size_t>(r.input.headline)];
  std::string out = absl::StrCat("{\"name\":", Quote(arm.name),
                                 ",\"value\":", Quote(arm.value),
                                 ",\"baseline\":", arm.baseline ? "true" : "false");
  if (!arm.baseline) {
    absl::StrAppend(&out, ",\"verdict\":",
                    headline.comparable ? Quote(VerdictName(arm.verdict))
                                        : "null",
                    ",\"suspect\":", arm.suspect ? "true" : "false");
  }
  absl::StrAppend(&out, ",\"samples\":", Numbers(headline.samples));
  for (const MetricInfo& info : Metrics()) {
    absl::StrAppend(&out, ",", Quote(info.key), ":",
                    MetricJson(arm.metrics[static_cast<size_t>(info.metric)]));
  }
  return out + "}";
}

std::string GuardrailJson(const ExperimentResult& r, const Guardrail& g) {
  return absl::StrCat(
      "{\"arm\":",
      g.arm < 0 ? "null" : Quote(r.arms[static_cast<size_t>(g.arm)].name),
      ",\"kind\":", Quote(g.kind), ",\"suspect\":", g.suspect ? "true" : "false",
      ",\"message\":", Quote(g.message), "}");
}

// --until=decided: the looks, each look's confidence and where it stopped.
std::string StoppingJson(const ExperimentResult& r) {
  const ExperimentInput& in = r.input;
  if (in.looks.empty()) return "null";
  return absl::StrCat(
      "{\"rule\":\"until decided\",\"max_rounds\":", in.max_rounds,
      ",\"looks\":[", absl::StrJoin(in.looks, ","),
      "],\"look_confidence\":", Number(in.confidence),
      ",\"family_confidence\":", Number(in.family_confidence),
      ",\"rounds_run\":", r.rounds, "}");
}

}  // namespace

std::string FormatExperimentJson(const ExperimentResult& r) {
  const ExperimentInput& in = r.input;
  std::vector<std::string> order, arms, guardrails;
  for (const std::vector<int>& round : in.order) {
    order.push_back(Quote(OrderText({round})));
  }
  for (const ArmResult& arm : r.arms) arms.push_back(ArmJson(r, arm));
  for (const Guardrail& g : r.guardrails) guardrails.push_back(GuardrailJson(r, g));
  return absl::StrCat(
      "{\"experiment\":{\"field\":", in.field.empty() ? "null" : Quote(in.field),
      ",\"margin\":", Number(in.margin), ",\"confidence\":",
      Number(in.confidence), ",\"seed\":", in.seed,
      ",\"metric\":", Quote(InfoOf(in.headline).key), ",\"rounds\":", r.rounds,
      ",\"round_seconds\":", Number(absl::ToDoubleSeconds(in.round)),
      ",\"ramp_seconds\":", Number(absl::ToDoubleSeconds(in.ramp)),
      ",\"total_seconds\":", Number(absl::ToDoubleSeconds(r.total)),
      ",\"order\":[", absl::StrJoin(order, ","), "]",
      ",\"bootstrap\":{\"statistic\":\"median of the per-round ratios "
      "arm/baseline (on logs)\",\"interval\":\"expanded percentile\",\"resamples\":",
      kBootstrapResamples, ",\"seed\":", kBootstrapSeed, "}",
      ",\"governor\":", in.governor.empty() ? "null" : Quote(in.governor),
      ",\"live\":", in.live ? "true" : "false",
      ",\"stopping\":", StoppingJson(r),
      ",\"arms\":[", absl::StrJoin(arms, ","), "],\"guardrails\":[",
      absl::StrJoin(guardrails, ","), "]}}\n");
}

namespace {

std::string Value(Metric metric, double v) {
  switch (metric) {
    case Metric::kIops: return FormatCount(v);
    case Metric::kBytesPerSecond: return FormatBytes(v) + "/s";
    case Metric::kCpuPerIo: return absl::StrFormat("%.3gus", v);
    default: return FormatNanos(v);
  }
}

// The table's value of a metric: the median of the rounds, or for latency
// from merged histograms the percentile of all the rounds' I/Os.
double Shown(const MetricResult& m) { return m.from_merges ? m.merged : m.median; }

std::string VerdictText(const MetricResult& m) {
  if (!m.comparable) return "no ratio (a round's value is 0)";
  std::string text(VerdictName(m.verdict));
  if (m.verdict == Verdict::kInconclusive) {
    absl::StrAppend(&text, m.more_rounds >= 0
                               ? absl::StrCat(": about ", m.more_rounds,
                                              " more round",
                                              m.more_rounds == 1 ? "" : "s",
                                              " would decide")
                               : ": the estimate sits on the margin");
  }
  return text;
}

std::string ArmTable(const ExperimentResult& r, size_t index) {
  const ArmResult& arm = r.arms[index];
  const ArmResult& base = r.arms[0];
  const int percent = static_cast<int>(std::lround(100 * r.input.confidence));
  std::string out = absl::StrFormat(
      "%c %s vs A %s: %s%s\n", static_cast<char>('A' + index), arm.name,
      base.name, VerdictName(arm.verdict), arm.suspect ? " (suspect: see guardrails)" : "");
  absl::StrAppend(&out, absl::StrFormat("  %-7s %13s %13s %7s  %-17s %s\n",
                                        "metric", "A (median)", std::string(1, static_cast<char>('A' + index)) + " (median)",
                                        "ratio", absl::StrCat(percent, "% interval"),
                                        "verdict"));
  for (const MetricInfo& info : Metrics()) {
    const size_t i = static_cast<size_t>(info.metric);
    const MetricResult& m = arm.metrics[i];
    const std::string interval =
        m.comparable ? absl::StrFormat("%.3f-%.3f", m.estimate.ci_lo,
                                       m.estimate.ci_hi)
                     : "-";
    absl::StrAppend(
        &out, absl::StrFormat("  %-7s %13s %13s %7s  %-17s %s%s\n", info.label,
                              Value(info.metric, Shown(base.metrics[i])),
                              Value(info.metric, Shown(m)),
                              m.comparable ? absl::StrFormat("%.3f", m.estimate.ratio) : "-",
                              interval, VerdictText(m),
                              info.metric == r.input.headline ? "  <- headline" : ""));
  }
  return out;
}

}  // namespace

std::string FormatExperimentText(const ExperimentResult& r) {
  const ExperimentInput& in = r.input;
  // --vary: "qd A=16 (baseline) B=32"; arms from a spec file: their names
  // here, their overrides on a line each below.
  const bool from_file = in.field.empty();
  std::vector<std::string> arms;
  std::string overrides;
  for (size_t i = 0; i < r.arms.size(); ++i) {
    const std::string letter(1, static_cast<char>('A' + i));
    arms.push_back(absl::StrCat(letter, "=",
                                OneLine(from_file ? r.arms[i].name : r.arms[i].value),
                                i == 0 ? " (baseline)" : ""));
    if (from_file) {
      absl::StrAppend(&overrides, "  ", letter, " ", r.arms[i].name, ": ",
                      r.arms[i].value.empty() ? "(the shared spec)"
                                              : OneLine(r.arms[i].value),
                      "\n");
    }
  }
  std::string out = absl::StrCat(
      "experiment: ", from_file ? "arms from --spec_file" : in.field, " ",
      absl::StrJoin(arms, " "), "\n", overrides, "  ",
      r.rounds, " rounds x ", r.arms.size(), " arms x (",
      absl::FormatDuration(in.ramp), " ramp + ", absl::FormatDuration(in.round),
      ") = ", absl::FormatDuration(r.total), "; margin ",
      absl::StrFormat("%g", 100 * in.margin), "%, confidence ",
      absl::StrFormat("%g", 100 * in.confidence), "%, experiment_seed ",
      in.seed, "\n  order: ", OrderText(in.order), "\n");
  if (!in.looks.empty()) {
    absl::StrAppend(
        &out, "  until decided: looks after ", absl::StrJoin(in.looks, ","),
        " rounds, each at ", absl::StrFormat("%g", 100 * in.confidence),
        "% so that the false-verdict rate stays at ",
        absl::StrFormat("%g", 100 * (1 - in.family_confidence)),
        "%; stopped after ", r.rounds, " of at most ", in.max_rounds,
        " rounds\n");
  }
  for (size_t i = 1; i < r.arms.size(); ++i) {
    absl::StrAppend(&out, ArmTable(r, i));
  }
  if (in.live) {
    absl::StrAppend(&out, "  live: the arms alternate in slices of one "
                          "workload, a round is each arm's k-th full slice\n");
  }
  absl::StrAppend(&out, "  (ratio: median of per-round ratios to A; latency "
                        "where its histograms are recorded: the percentile of "
                        "all rounds' I/Os, its interval from resampled merges; "
                        "faster = better, lower is better for CPU/IO and "
                        "latency)\n");
  if (r.guardrails.empty()) {
    absl::StrAppend(&out, "guardrails: none tripped\n");
  }
  for (const Guardrail& g : r.guardrails) {
    absl::StrAppend(&out, g.suspect ? "SUSPECT: " : "note: ", g.message, "\n");
  }
  return out;
}

}  // namespace blkperf
