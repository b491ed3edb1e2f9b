#include "model/io_shape.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/units.h"

namespace blkperf {
namespace {

absl::Status Invalid(absl::string_view field, absl::string_view text,
                     absl::string_view why) {
  // Echoed input is bounded: a spec field is short when it is right.
  const absl::string_view shown = text.substr(0, 64);
  return absl::InvalidArgumentError(
      absl::StrCat(field, " \"", shown, text.size() > 64 ? "...\"" : "\"",
                   ": ", why));
}

// Shortest decimal that reads back as `value`.
std::string Shortest(double value) {
  for (int digits = 1; digits <= 17; ++digits) {
    const std::string text = absl::StrFormat("%.*g", digits, value);
    double back = 0;
    if (absl::SimpleAtod(text, &back) && back == value) return text;
  }
  return absl::StrFormat("%.17g", value);
}

std::string SizeName(uint64_t bytes) {
  constexpr std::pair<int, const char*> kUnits[] = {
      {30, "g"}, {20, "m"}, {10, "k"}};
  for (const auto& [shift, suffix] : kUnits) {
    if (bytes != 0 && bytes % (uint64_t{1} << shift) == 0) {
      return absl::StrCat(bytes >> shift, suffix);
    }
  }
  return absl::StrCat(bytes);
}

}  // namespace

namespace {

// The optional ":CENTER" and ":scatter" after a distribution's parameter.
absl::Status ParseCenterAndScatter(absl::string_view text,
                                   absl::string_view field,
                                   const std::vector<absl::string_view>& extra,
                                   OffsetDistribution* d) {
  for (size_t i = 0; i < extra.size(); ++i) {
    if (extra[i] == "scatter" && i + 1 == extra.size()) {
      d->scatter = true;
      continue;
    }
    double center = 0;
    if (i != 0 || !absl::SimpleAtod(extra[i], &center) ||
        !std::isfinite(center)) {
      return Invalid(field, text,
                     "after the parameter comes an optional CENTER in "
                     "[0, 1] and an optional \"scatter\" "
                     "(zipf:THETA[:CENTER][:scatter])");
    }
    if (center < 0 || center > 1) {
      return Invalid(field, text,
                     "the CENTER (fio's second float) is a fraction of the "
                     "target and must be in [0, 1]");
    }
    d->center = center;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<OffsetDistribution> ParseOffsetDistribution(
    absl::string_view text, absl::string_view field) {
  constexpr char kKnown[] =
      "not one of uniform, zipf:THETA, pareto:H, normal:SIGMA (each with an "
      "optional :CENTER and :scatter)";
  if (text == "uniform" || text == "random") return OffsetDistribution{};
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  if (parts.size() < 2 || parts.size() > 4) return Invalid(field, text, kKnown);
  const absl::string_view name = parts[0];
  double value = 0;
  if (!absl::SimpleAtod(parts[1], &value) || !std::isfinite(value)) {
    return Invalid(field, text, "the parameter after ':' is not a number");
  }
  OffsetDistribution d;
  d.param = value;
  if (name == "zipf") {
    d.kind = OffsetDistribution::Kind::kZipf;
    if (!(value > 0) || value > 100) {
      return Invalid(field, text, "zipf's THETA must be in (0, 100]");
    }
  } else if (name == "pareto") {
    d.kind = OffsetDistribution::Kind::kPareto;
    if (!(value > 0 && value < 1)) {
      return Invalid(field, text, "pareto's H must be in (0, 1)");
    }
  } else if (name == "normal") {
    d.kind = OffsetDistribution::Kind::kNormal;
    if (!(value > 0) || value > kMaxNormalSigma) {
      return Invalid(
          field, text,
          "normal's SIGMA is the standard deviation as a fraction of the "
          "target and must be in (0, 0.5] (wider is nearly uniform); it is "
          "not fio's normal:DEV percentage: fio's normal:10 traces like "
          "normal:0.088 (docs/spec.md)");
    }
  } else {
    return Invalid(field, text, kKnown);
  }
  const std::vector<absl::string_view> extra(parts.begin() + 2, parts.end());
  if (absl::Status s = ParseCenterAndScatter(text, field, extra, &d); !s.ok()) {
    return s;
  }
  return d;
}

uint64_t Rotation(const OffsetDistribution& d, uint64_t slots) {
  if (!d.center) return 0;
  // CENTER 1 is the target's end, which wraps to its start (as fio's
  // modulo does).
  const uint64_t at = std::min<uint64_t>(
      slots, static_cast<uint64_t>(std::floor(*d.center * slots))) % slots;
  if (d.kind != OffsetDistribution::Kind::kNormal) return at;
  // The bell's mean is at slots / 2 unrotated.
  const uint64_t middle = slots / 2;
  return at >= middle ? at - middle : at + slots - middle;
}

std::string OffsetDistributionName(const OffsetDistribution& d) {
  std::string name;
  switch (d.kind) {
    case OffsetDistribution::Kind::kUniform:
      return "uniform";
    case OffsetDistribution::Kind::kZipf:
      name = absl::StrCat("zipf:", Shortest(d.param));
      break;
    case OffsetDistribution::Kind::kPareto:
      name = absl::StrCat("pareto:", Shortest(d.param));
      break;
    case OffsetDistribution::Kind::kNormal:
      name = absl::StrCat("normal:", Shortest(d.param));
      break;
  }
  if (d.center) absl::StrAppend(&name, ":", Shortest(*d.center));
  if (d.scatter) absl::StrAppend(&name, ":scatter");
  return name;
}

absl::StatusOr<std::vector<BlockSizeShare>> ParseBlockSizeSplit(
    absl::string_view text, absl::string_view field) {
  if (text.empty()) return Invalid(field, text, "is empty");
  const std::vector<absl::string_view> entries = absl::StrSplit(text, ':');
  if (entries.size() > kMaxBlockSizeShares) {
    return Invalid(field, text,
                   absl::StrCat("has ", entries.size(), " entries, more than ",
                                kMaxBlockSizeShares));
  }
  std::vector<BlockSizeShare> shares;
  std::vector<size_t> blank;  // entries without a percent
  std::set<uint64_t> seen;
  uint64_t given = 0;
  for (absl::string_view entry : entries) {
    const size_t slash = entry.find('/');
    const absl::string_view size_text = entry.substr(0, slash);
    const absl::string_view percent_text =
        slash == absl::string_view::npos ? "" : entry.substr(slash + 1);
    uint64_t size = 0;
    if (!ParseSize(size_text, &size) || size == 0 || size > UINT32_MAX) {
      return Invalid(field, text,
                     absl::StrCat("\"", size_text.substr(0, 32),
                                  "\" is not a block size (e.g. 4k)"));
    }
    if (!seen.insert(size).second) {
      return Invalid(field, text,
                     absl::StrCat(SizeName(size), " is listed twice"));
    }
    BlockSizeShare share{.block_size = static_cast<uint32_t>(size)};
    if (percent_text.empty()) {
      blank.push_back(shares.size());
    } else if (!absl::SimpleAtoi(percent_text, &share.percent) ||
               share.percent > 100) {
      return Invalid(field, text,
                     absl::StrCat("\"", percent_text.substr(0, 32),
                                  "\" is not a percentage 0..100"));
    }
    given += share.percent;
    shares.push_back(share);
  }
  if (given > 100) {
    return Invalid(field, text,
                   absl::StrCat("the percentages add up to ", given,
                                ", more than 100"));
  }
  if (!blank.empty()) {
    // fio: entries without a percentage share the rest equally; the first
    // ones take what does not divide.
    const uint64_t left = 100 - given;
    for (size_t i = 0; i < blank.size(); ++i) {
      shares[blank[i]].percent = static_cast<uint32_t>(
          left / blank.size() + (i < left % blank.size() ? 1 : 0));
    }
  } else if (given != 100) {
    return Invalid(field, text,
                   absl::StrCat("the percentages add up to ", given,
                                ", not 100"));
  }
  std::vector<BlockSizeShare> kept;
  for (const BlockSizeShare& s : shares) {
    if (s.percent != 0) kept.push_back(s);
  }
  return kept;
}

std::string BlockSizeSplitName(const std::vector<BlockSizeShare>& shares) {
  return absl::StrJoin(shares, ":",
                       [](std::string* out, const BlockSizeShare& s) {
                         absl::StrAppend(out, SizeName(s.block_size), "/",
                                         s.percent);
                       });
}

absl::string_view ArrivalsName(Arrivals arrivals) {
  return arrivals == Arrivals::kPoisson ? "poisson" : "uniform";
}

bool ParseArrivals(absl::string_view text, Arrivals* arrivals) {
  if (text == "uniform") {
    *arrivals = Arrivals::kUniform;
  } else if (text == "poisson") {
    *arrivals = Arrivals::kPoisson;
  } else {
    return false;
  }
  return true;
}

absl::StatusOr<SloTarget> ParseSloTarget(absl::string_view text,
                                         absl::string_view field) {
  constexpr char kForm[] =
      "is not PERCENTILE<BOUND, e.g. p99<1ms or p99.9<=250us";
  absl::string_view rest = text;
  if (!absl::ConsumePrefix(&rest, "p")) return Invalid(field, text, kForm);
  const size_t op = rest.find('<');
  if (op == absl::string_view::npos) return Invalid(field, text, kForm);
  SloTarget target;
  if (!absl::SimpleAtod(rest.substr(0, op), &target.percentile) ||
      !(target.percentile > 0 && target.percentile < 100)) {
    return Invalid(field, text, "the percentile must be in (0, 100)");
  }
  absl::string_view bound = rest.substr(op + 1);
  target.inclusive = absl::ConsumePrefix(&bound, "=");
  if (!absl::ParseDuration(bound, &target.bound) ||
      target.bound <= absl::ZeroDuration() ||
      target.bound > absl::Hours(1)) {
    return Invalid(field, text,
                   "the bound must be a duration in (0, 1h], e.g. 1ms");
  }
  return target;
}

std::string SloTargetName(const SloTarget& target) {
  return absl::StrCat("p", Shortest(target.percentile),
                      target.inclusive ? "<=" : "<",
                      absl::FormatDuration(target.bound));
}

}  // namespace blkperf
