#include "experiment/design.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/struct.pb.h"
#include "model/workload_spec.h"
#include "google/protobuf/util/json_util.h"

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

std::string ArmDesign::OverridesText() const {
  return absl::StrJoin(overrides, " ", absl::PairFormatter("="));
}

std::vector<ArmDesign> ArmsOf(const Vary& vary) {
  std::vector<ArmDesign> arms;
  for (size_t i = 0; i < vary.values.size(); ++i) {
    arms.push_back({vary.ArmName(static_cast<int>(i)),
                    {{vary.field, vary.values[i]}}});
  }
  return arms;
}

namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

absl::Status BadArms(absl::string_view where, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--spec_file ", where, ": ", why));
}

// A JSON number as a flag takes it: integers without a decimal point.
std::string NumberText(double v) {
  if (v == static_cast<double>(static_cast<int64_t>(v)) && std::fabs(v) < 9e15) {
    return absl::StrCat(static_cast<int64_t>(v));
  }
  return absl::StrCat(v);
}

absl::StatusOr<std::string> OverrideValue(const Value& v,
                                          absl::string_view where) {
  switch (v.kind_case()) {
    case Value::kStringValue: return v.string_value();
    case Value::kBoolValue: return std::string(v.bool_value() ? "true" : "false");
    case Value::kNumberValue: return NumberText(v.number_value());
    default:
      return BadArms(where, "a flag's value is a string, number or bool");
  }
}

absl::StatusOr<ArmDesign> ArmOf(const Value& v, size_t index,
                                const std::vector<ArmDesign>& before) {
  const std::string where = absl::StrCat("experiment.arms[", index, "]");
  if (v.kind_case() != Value::kStructValue) return BadArms(where, "not an object");
  ArmDesign arm;
  for (const auto& [key, field] : v.struct_value().fields()) {
    if (key == "name") {
      if (field.kind_case() != Value::kStringValue) {
        return BadArms(where + ".name", "not a string");
      }
      arm.name = field.string_value();
    } else if (key == "overrides") {
      if (field.kind_case() != Value::kStructValue) {
        return BadArms(where + ".overrides", "not an object of spec flags");
      }
      // Sorted by flag name: the order a map gives is not the file's.
      std::map<std::string, std::string> sorted;
      for (const auto& [flag, value] : field.struct_value().fields()) {
        absl::StatusOr<std::string> text =
            OverrideValue(value, absl::StrCat(where, ".overrides.", flag));
        if (!text.ok()) return text.status();
        sorted[flag] = *std::move(text);
      }
      arm.overrides.assign(sorted.begin(), sorted.end());
    } else {
      return BadArms(absl::StrCat(where, ".", key),
                     "unknown (an arm has name and overrides)");
    }
  }
  if (!IsExperimentArmName(arm.name)) {
    return BadArms(where + ".name",
                   absl::StrCat("give a name of 1 to ", kMaxArmNameBytes,
                                " characters of A-Z a-z 0-9 _.:=,/+-"));
  }
  for (const ArmDesign& other : before) {
    if (other.name == arm.name) {
      return BadArms(where + ".name", absl::StrCat("\"", arm.name,
                                                   "\" names two arms"));
    }
  }
  return arm;
}

}  // namespace

absl::StatusOr<std::vector<ArmDesign>> ParseExperimentArms(
    absl::string_view json) {
  Struct experiment;
  const auto parsed =
      google::protobuf::util::JsonStringToMessage(std::string(json), &experiment);
  if (!parsed.ok()) {
    return BadArms("experiment", absl::StrCat("not a JSON object: ",
                                              parsed.message().as_string()));
  }
  for (const auto& [key, unused] : experiment.fields()) {
    if (key != "arms") {
      return BadArms(absl::StrCat("experiment.", key),
                     "unknown (the experiment's one field is arms; the "
                     "rounds and margin are flags)");
    }
  }
  const auto arms_field = experiment.fields().find("arms");
  if (arms_field == experiment.fields().end() ||
      arms_field->second.kind_case() != Value::kListValue) {
    return BadArms("experiment.arms", "give a list of arms");
  }
  const auto& list = arms_field->second.list_value().values();
  if (list.size() < 2 || list.size() > kMaxArms) {
    return BadArms("experiment.arms",
                   absl::StrCat(list.size(), " arms: give 2 to ", kMaxArms));
  }
  std::vector<ArmDesign> arms;
  for (int i = 0; i < list.size(); ++i) {
    absl::StatusOr<ArmDesign> arm = ArmOf(list[i], static_cast<size_t>(i), arms);
    if (!arm.ok()) return arm.status();
    arms.push_back(*std::move(arm));
  }
  return arms;
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
