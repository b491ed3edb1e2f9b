#include "cli/command_line.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace blkperf {
namespace {

// Registered flags whose name starts with the first `n` characters of
// `name`, for n from the name's length down to 3, first non-empty list.
std::string Suggestions(absl::string_view name) {
  const auto flags = absl::GetAllFlags();
  for (size_t n = name.size(); n >= 3; --n) {
    std::vector<std::string> close;
    for (const auto& [flag_name, flag] : flags) {
      if (absl::StartsWith(flag_name, name.substr(0, n))) {
        close.push_back(absl::StrCat("--", flag_name));
      }
    }
    if (!close.empty() && close.size() <= 5) {
      std::sort(close.begin(), close.end());
      return absl::StrCat(" (did you mean ", absl::StrJoin(close, " or "),
                          "?)");
    }
    if (!close.empty()) break;
  }
  return "";
}

// Abseil's own flags (help, flag files), which its parser handles before
// the registry is consulted.
bool AbseilBuiltin(absl::string_view name) {
  for (absl::string_view b :
       {"help", "helpfull", "helpshort", "helppackage", "helpmatch",
        "helpon", "version", "only_check_args", "flagfile", "fromenv",
        "tryfromenv", "undefok"}) {
    if (name == b) return true;
  }
  return false;
}

}  // namespace

absl::Status CheckCommandLineFlags(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') continue;
    arg.remove_prefix(arg[1] == '-' ? 2 : 1);
    const size_t eq = arg.find('=');
    const absl::string_view name = arg.substr(0, eq);
    const bool has_value = eq != absl::string_view::npos;
    if (AbseilBuiltin(name)) continue;
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr && absl::StartsWith(name, "no") && !has_value) {
      absl::CommandLineFlag* negated = absl::FindCommandLineFlag(name.substr(2));
      if (negated != nullptr && negated->IsOfType<bool>()) continue;
    }
    if (flag == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag --", name, Suggestions(name)));
    }
    std::string value;
    if (has_value) {
      value = std::string(arg.substr(eq + 1));
    } else if (flag->IsOfType<bool>()) {
      value = "true";
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("flag --", name, " needs a value"));
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return absl::InvalidArgumentError(
          absl::StrCat("flag --", name, ": ", error));
    }
  }
  return absl::OkStatus();
}

}  // namespace blkperf
