#include "experiment/format.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/bounded_text.h"
#include "base/units.h"
#include "experiment/design.h"

namespace blkperf {
namespace {

std::string Quote(absl::string_view text) {
  std::string out = "\"";
  AppendEscaped(text, &out);
  out += '"';
  return out;
}

std::string Number(double value) {
  if (!std::isfinite(value)) return "null";
  return absl::StrFormat("%.10g", value);
}

std::string Numbers(const std::vector<double>& values) {
  std::vector<std::string> parts;
  for (double v : values) parts.push_back(Number(v));
  return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
}

std::string MetricJson(const MetricResult& m) {
  std::string out = absl::StrCat("{\"samples\":", Numbers(m.samples),
                                 ",\"median\":", Number(m.median));
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
      "{\"experiment\":{\"field\":", Quote(in.field),
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
                              Value(info.metric, base.metrics[i].median),
                              Value(info.metric, m.median),
                              m.comparable ? absl::StrFormat("%.3f", m.estimate.ratio) : "-",
                              interval, VerdictText(m),
                              info.metric == r.input.headline ? "  <- headline" : ""));
  }
  return out;
}

}  // namespace

std::string FormatExperimentText(const ExperimentResult& r) {
  const ExperimentInput& in = r.input;
  std::vector<std::string> arms;
  for (size_t i = 0; i < r.arms.size(); ++i) {
    arms.push_back(absl::StrCat(std::string(1, static_cast<char>('A' + i)), "=",
                                r.arms[i].value, i == 0 ? " (baseline)" : ""));
  }
  std::string out = absl::StrCat(
      "experiment: ", in.field, " ", absl::StrJoin(arms, " "), "\n  ",
      r.rounds, " rounds x ", r.arms.size(), " arms x (",
      absl::FormatDuration(in.ramp), " ramp + ", absl::FormatDuration(in.round),
      ") = ", absl::FormatDuration(r.total), "; margin ",
      absl::StrFormat("%g", 100 * in.margin), "%, confidence ",
      absl::StrFormat("%g", 100 * in.confidence), "%, experiment_seed ",
      in.seed, "\n  order: ", OrderText(in.order), "\n");
  for (size_t i = 1; i < r.arms.size(); ++i) {
    absl::StrAppend(&out, ArmTable(r, i));
  }
  absl::StrAppend(&out, "  (ratio: median of per-round ratios to A; "
                        "faster = better, lower is better for CPU/IO and latency)\n");
  if (r.guardrails.empty()) {
    absl::StrAppend(&out, "guardrails: none tripped\n");
  }
  for (const Guardrail& g : r.guardrails) {
    absl::StrAppend(&out, g.suspect ? "SUSPECT: " : "note: ", g.message, "\n");
  }
  return out;
}

}  // namespace blkperf
