#include "experiment/design.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace blkperf {

std::string Vary::ArmName(int arm) const {
  return absl::StrCat(field, "=", values[static_cast<size_t>(arm)]);
}

absl::StatusOr<Vary> ParseVary(absl::string_view text) {
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("--vary=", text, ": ", why));
  };
  const size_t equals = text.find('=');
  if (equals == absl::string_view::npos || equals == 0) {
    return bad("not FIELD=V1,V2[,...] (e.g. qd=16,32)");
  }
  Vary vary;
  vary.field = std::string(text.substr(0, equals));
  if (vary.field.find_first_not_of("abcdefghijklmnopqrstuvwxyz_0123456789") !=
      std::string::npos) {
    return bad("the field is not a flag name");
  }
  vary.values = absl::StrSplit(text.substr(equals + 1), ',');
  for (const std::string& value : vary.values) {
    if (value.empty()) return bad("an empty value");
  }
  if (vary.values.size() < 2) return bad("give two values or more");
  if (vary.values.size() > static_cast<size_t>(kMaxArms)) {
    return bad(absl::StrCat("more than ", kMaxArms, " arms"));
  }
  return vary;
}

std::vector<std::vector<int>> BlockOrder(int arms, int rounds, uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::vector<std::vector<int>> order;
  order.reserve(static_cast<size_t>(rounds));
  std::vector<int> permutation(static_cast<size_t>(arms));
  for (int round = 0; round < rounds; ++round) {
    if (round % 2 == 0) {
      std::iota(permutation.begin(), permutation.end(), 0);
      // Fisher-Yates with the generator's values (std::shuffle's draws are
      // the library's choice; these are the same on every build).
      for (size_t i = permutation.size(); i > 1; --i) {
        std::swap(permutation[i - 1], permutation[generator() % i]);
      }
      order.push_back(permutation);
    } else {
      order.emplace_back(permutation.rbegin(), permutation.rend());
    }
  }
  return order;
}

std::string OrderText(const std::vector<std::vector<int>>& order) {
  std::string text;
  for (const std::vector<int>& round : order) {
    if (!text.empty()) text += ' ';
    for (int arm : round) text += static_cast<char>('A' + arm);
  }
  return text;
}

}  // namespace blkperf
