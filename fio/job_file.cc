#include "fio/job_file.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace blkperf {
namespace {

absl::Status Bad(absl::string_view file, int line, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(file, ":", line, ": ", why));
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// Replaces every ${VAR} in `text` from the environment.
absl::StatusOr<std::string> Expand(absl::string_view text,
                                   const FioReadHooks& hooks,
                                   absl::string_view file, int line) {
  std::string out;
  while (true) {
    const size_t open = text.find("${");
    if (open == absl::string_view::npos) break;
    const size_t close = text.find('}', open);
    if (close == absl::string_view::npos) {
      return Bad(file, line, "'${' without a closing '}'");
    }
    const std::string name(text.substr(open + 2, close - open - 2));
    std::optional<std::string> value = hooks.getenv(name);
    if (!value.has_value()) {
      return Bad(file, line,
                 absl::StrCat("environment variable ${", name, "} is not set"));
    }
    absl::StrAppend(&out, text.substr(0, open), *value);
    text.remove_prefix(close + 1);
  }
  absl::StrAppend(&out, text);
  return out;
}

class Reader {
 public:
  explicit Reader(const FioReadHooks& hooks) : hooks_(hooks) {}

  absl::Status ReadFile(const std::string& path, absl::string_view from_file,
                        int from_line) {
    if (stack_.size() > static_cast<size_t>(kMaxFioIncludeDepth)) {
      return Bad(from_file, from_line,
                 absl::StrCat("includes nested deeper than ",
                              kMaxFioIncludeDepth));
    }
    for (const std::string& open : stack_) {
      if (open == path) {
        return Bad(from_file, from_line,
                   absl::StrCat("include of ", path, " is a cycle"));
      }
    }
    absl::StatusOr<std::string> text = hooks_.read(path);
    if (!text.ok()) {
      if (from_line == 0) return text.status();
      return Bad(from_file, from_line, text.status().message());
    }
    stack_.push_back(path);
    int line = 0;
    for (absl::string_view raw : absl::StrSplit(*text, '\n')) {
      ++line;
      if (absl::Status s = ReadLine(path, line, raw); !s.ok()) return s;
    }
    stack_.pop_back();
    return absl::OkStatus();
  }

  FioJobFile Take() { return std::move(file_); }

 private:
  absl::Status ReadLine(const std::string& path, int line,
                        absl::string_view raw) {
    absl::string_view text = absl::StripAsciiWhitespace(raw);
    if (text.empty() || text[0] == ';' || text[0] == '#') {
      return absl::OkStatus();
    }
    absl::StatusOr<std::string> expanded = Expand(text, hooks_, path, line);
    if (!expanded.ok()) return expanded.status();
    text = absl::StripAsciiWhitespace(*expanded);
    if (text.front() == '[') {
      if (text.back() != ']' || text.size() < 3) {
        return Bad(path, line, absl::StrCat("malformed section '", text, "'"));
      }
      file_.sections.push_back(FioSection{
          .name = std::string(text.substr(1, text.size() - 2)),
          .file = path,
          .line = line});
      return absl::OkStatus();
    }
    if (absl::StartsWith(text, "include ") || absl::StartsWith(text, "include\t")) {
      std::string target(absl::StripAsciiWhitespace(text.substr(8)));
      if (target.empty()) return Bad(path, line, "include without a file");
      if (target[0] != '/') target = DirectoryOf(path) + target;
      return ReadFile(target, path, line);
    }
    if (file_.sections.empty()) {
      return Bad(path, line, "option before any [section]");
    }
    FioOption option{.file = path, .line = line};
    const size_t eq = text.find('=');
    if (eq == absl::string_view::npos) {
      option.key = absl::AsciiStrToLower(text);
      option.value = "1";
    } else {
      option.key = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text.substr(0, eq)));
      option.value = std::string(absl::StripAsciiWhitespace(text.substr(eq + 1)));
    }
    if (option.key.empty()) return Bad(path, line, "'=' without an option name");
    file_.sections.back().options.push_back(std::move(option));
    return absl::OkStatus();
  }

  const FioReadHooks& hooks_;
  std::vector<std::string> stack_;
  FioJobFile file_;
};

}  // namespace

std::string FioOption::Where() const {
  return absl::StrCat(file, ":", line, ": option '", key, "'");
}

FioReadHooks DefaultFioReadHooks() {
  FioReadHooks hooks;
  hooks.read = [](const std::string& path) -> absl::StatusOr<std::string> {
    std::ifstream in(path, std::ios::binary);
    if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
    std::string text(kMaxFioJobFileBytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxFioJobFileBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, " is larger than ", kMaxFioJobFileBytes, " bytes"));
    }
    return text;
  };
  hooks.getenv = [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
  return hooks;
}

absl::StatusOr<FioJobFile> ReadFioJobFile(const std::string& path,
                                          const FioReadHooks& hooks) {
  Reader reader(hooks);
  if (absl::Status s = reader.ReadFile(path, path, 0); !s.ok()) return s;
  return reader.Take();
}

}  // namespace blkperf
