#include "experiment/compare.h"

#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/units.h"
#include "experiment/analysis.h"
#include "experiment/statistics.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace blkperf {
namespace {

using google::protobuf::Value;

const Value* Field(const Value& v, const std::string& key) {
  if (v.kind_case() != Value::kStructValue) return nullptr;
  auto it = v.struct_value().fields().find(key);
  return it == v.struct_value().fields().end() ? nullptr : &it->second;
}

std::string Scalar(const Value& v) {
  switch (v.kind_case()) {
    case Value::kStringValue: return v.string_value();
    case Value::kNumberValue: return absl::StrFormat("%.10g", v.number_value());
    case Value::kBoolValue: return v.bool_value() ? "true" : "false";
    case Value::kNullValue: return "null";
    default: return "";
  }
}

// Scalars keyed by their path; arrays by index ("targets.0.scheduler").
void Flatten(const Value& v, const std::string& prefix,
             std::map<std::string, std::string>* out) {
  if (v.kind_case() == Value::kStructValue) {
    for (const auto& [key, child] : v.struct_value().fields()) {
      Flatten(child, prefix.empty() ? key : absl::StrCat(prefix, ".", key), out);
    }
  } else if (v.kind_case() == Value::kListValue) {
    for (int i = 0; i < v.list_value().values_size(); ++i) {
      Flatten(v.list_value().values(i), absl::StrCat(prefix, ".", i), out);
    }
  } else {
    (*out)[prefix] = Scalar(v);
  }
}

// "qd=32" -> {"qd", "32"}; a bare word is its own key with value "".
std::map<std::string, std::string> Tokens(const std::string& spec) {
  std::map<std::string, std::string> tokens;
  for (absl::string_view token : absl::StrSplit(spec, ' ', absl::SkipEmpty())) {
    const size_t equals = token.find('=');
    if (equals == absl::string_view::npos) {
      tokens[std::string(token)] = "";
    } else {
      tokens[std::string(token.substr(0, equals))] =
          std::string(token.substr(equals + 1));
    }
  }
  return tokens;
}

}  // namespace

absl::StatusOr<RunReport> ParseRunReport(absl::string_view json,
                                         absl::string_view name) {
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", why));
  };
  if (json.size() > kMaxReportBytes) return bad("larger than a report may be");
  Value root;
  if (!google::protobuf::util::JsonStringToMessage(std::string(json), &root)
           .ok()) {
    return bad("not JSON");
  }
  RunReport report;
  report.name = std::string(name);
  const Value* spec = Field(root, "spec");
  const Value* total = Field(root, "total");
  const Value* iops = total ? Field(*total, "iops") : nullptr;
  if (spec == nullptr || spec->kind_case() != Value::kStringValue ||
      iops == nullptr || iops->kind_case() != Value::kNumberValue) {
    return bad("not a blkperf report (no \"spec\" or \"total.iops\"; give "
               "the output of blkperfd run --json)");
  }
  report.spec = spec->string_value();
  report.iops = iops->number_value();
  if (const Value* e = Field(root, "elapsed_seconds")) {
    report.elapsed_seconds = e->number_value();
  }
  if (const Value* env = Field(root, "environment")) {
    report.has_environment = true;
    Flatten(*env, "", &report.environment);
  }
  if (const Value* series = Field(root, "series");
      series != nullptr && series->kind_case() == Value::kListValue) {
    report.has_series = true;
    for (const Value& interval : series->list_value().values()) {
      // "iops", or the series' "read_iops" + "write_iops".
      double iops = 0;
      for (const char* key : {"iops", "read_iops", "write_iops"}) {
        const Value* v = Field(interval, key);
        if (v != nullptr && v->kind_case() == Value::kNumberValue) {
          iops += v->number_value();
          if (std::string(key) == "iops") break;
        }
      }
      if (iops > 0) report.series_iops.push_back(iops);
    }
  }
  return report;
}

std::vector<std::string> SpecDifferences(const std::string& a,
                                         const std::string& b) {
  const auto ta = Tokens(a), tb = Tokens(b);
  std::set<std::string> keys;
  for (const auto& [k, v] : ta) keys.insert(k);
  for (const auto& [k, v] : tb) keys.insert(k);
  std::vector<std::string> differences;
  for (const std::string& key : keys) {
    auto ia = ta.find(key), ib = tb.find(key);
    if (ia != ta.end() && ib != tb.end()) {
      if (ia->second != ib->second) {
        differences.push_back(absl::StrCat(key, ": ", ia->second, " -> ", ib->second));
      }
    } else if (ia != ta.end()) {
      differences.push_back(absl::StrCat(key, ia->second.empty() ? "" : "=",
                                         ia->second, ": only in A"));
    } else {
      differences.push_back(absl::StrCat(key, ib->second.empty() ? "" : "=",
                                         ib->second, ": only in B"));
    }
  }
  return differences;
}

namespace {

std::vector<std::string> EnvironmentDifferences(const RunReport& a,
                                                const RunReport& b) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a.environment) keys.insert(k);
  for (const auto& [k, v] : b.environment) keys.insert(k);
  std::vector<std::string> differences;
  for (const std::string& key : keys) {
    auto ia = a.environment.find(key), ib = b.environment.find(key);
    const std::string va = ia == a.environment.end() ? "(absent)" : ia->second;
    const std::string vb = ib == b.environment.end() ? "(absent)" : ib->second;
    if (va != vb) differences.push_back(absl::StrCat(key, ": ", va, " -> ", vb));
  }
  return differences;
}

std::string RatioText(const RunReport& a, const RunReport& b, double margin,
                      double confidence) {
  if (a.series_iops.size() < 2 || b.series_iops.size() < 2) {
    return absl::StrFormat(
        "IOPS: A %s, B %s, ratio B/A %.3f: no interval and no verdict, one "
        "sample per run (%s); a series (per-interval samples) in both "
        "reports gives an interval\n",
        FormatCount(a.iops), FormatCount(b.iops), a.iops > 0 ? b.iops / a.iops : 0,
        !a.has_series || !b.has_series ? "the reports carry no series[]"
                                       : "fewer than 2 intervals with IOPS");
  }
  const RatioEstimate r = UnpairedRatio(a.series_iops, b.series_iops, confidence);
  const Verdict verdict = Decide(r.ci_lo, r.ci_hi, margin, Better::kHigher);
  std::string text = absl::StrFormat(
      "IOPS: A %s (%d intervals), B %s (%d intervals): ratio B/A %.3f, %g%% "
      "interval %.3f-%.3f (intervals as samples, unpaired), %s against a "
      "%g%% margin",
      FormatCount(a.iops), a.series_iops.size(), FormatCount(b.iops),
      b.series_iops.size(), r.ratio, 100 * confidence, r.ci_lo, r.ci_hi,
      VerdictName(verdict), 100 * margin);
  if (verdict == Verdict::kInconclusive) {
    const int more = MoreRoundsToDecide(r, margin);
    if (more >= 0) absl::StrAppend(&text, " (about ", more, " more intervals per run would decide)");
  }
  return text + "\nSUSPECT: intervals of one run are not independent samples of the difference between runs\n";
}

}  // namespace

std::string CompareText(const RunReport& a, const RunReport& b, double margin,
                        double confidence) {
  std::string out = absl::StrCat("compare: A=", a.name, " B=", b.name, "\n");
  const std::vector<std::string> spec = SpecDifferences(a.spec, b.spec);
  absl::StrAppend(&out, "spec differences: ",
                  spec.empty() ? "none" : absl::StrJoin(spec, "; "), "\n");
  if (!a.has_environment || !b.has_environment) {
    absl::StrAppend(&out, "environment differences: unknown (",
                    !a.has_environment && !b.has_environment ? "neither report"
                    : !a.has_environment                      ? "A"
                                                              : "B",
                    " carries an environment block)\n");
  } else {
    const std::vector<std::string> env = EnvironmentDifferences(a, b);
    absl::StrAppend(&out, "environment differences: ",
                    env.empty() ? "none" : absl::StrJoin(env, "; "), "\n");
  }
  absl::StrAppend(&out, RatioText(a, b, margin, confidence));
  absl::StrAppend(
      &out,
      "WARNING: A and B ran one after the other, not interleaved: their "
      "difference cannot be separated from drift (page placement, other "
      "load, the time since boot). Run them alternately, ABAB (across "
      "boots for a kernel change), at least ",
      kMinSamplesPerArm,
      " runs of each, so that runs are the samples; on one boot, blkperfd "
      "run --vary interleaves the arms itself (docs/experiments.md).\n");
  return out;
}

}  // namespace blkperf
