#include "daemon/engine/shape/alias_table.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace blkperf {

absl::StatusOr<AliasTable> AliasTable::Build(absl::Span<const double> weights) {
  if (weights.empty() || weights.size() > kMaxEntries) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an alias table takes 1..", kMaxEntries, " weights, not ",
        weights.size()));
  }
  long double sum = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (!std::isfinite(weights[i]) || weights[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("weight ", i, " is ", weights[i]));
    }
    sum += weights[i];
  }
  if (!(sum > 0)) return absl::InvalidArgumentError("the weights sum to 0");

  // Vose: scale to mean 1, pair each small column with a large one.
  const size_t n = weights.size();
  std::vector<long double> scaled(n);
  std::vector<uint32_t> small, large;
  for (size_t i = 0; i < n; ++i) {
    scaled[i] = weights[i] * static_cast<long double>(n) / sum;
    (scaled[i] < 1 ? small : large).push_back(static_cast<uint32_t>(i));
  }
  AliasTable table;
  table.size_ = static_cast<uint32_t>(n);
  table.columns_.assign(n, Column{kAlways, 0});
  for (size_t i = 0; i < n; ++i) table.columns_[i].alias = static_cast<uint32_t>(i);
  while (!small.empty() && !large.empty()) {
    const uint32_t s = small.back();
    small.pop_back();
    const uint32_t l = large.back();
    const long double keep = scaled[s] * static_cast<long double>(kAlways);
    table.columns_[s].threshold = static_cast<uint64_t>(std::llround(keep));
    table.columns_[s].alias = l;
    scaled[l] -= 1 - scaled[s];
    if (scaled[l] < 1) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // What is left is 1 up to rounding: keep those columns whole.
  for (uint32_t i : small) table.columns_[i].threshold = kAlways;
  for (uint32_t i : large) table.columns_[i].threshold = kAlways;
  return table;
}

double AliasTable::Probability(uint32_t index) const {
  long double p = 0;
  const long double column = 1.0L / size_;
  for (uint32_t c = 0; c < size_; ++c) {
    const long double keep =
        static_cast<long double>(columns_[c].threshold) / kAlways;
    if (c == index) p += column * keep;
    if (columns_[c].alias == index && c != index) p += column * (1 - keep);
  }
  return static_cast<double>(p);
}

}  // namespace blkperf
