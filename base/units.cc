#include "base/units.h"

#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"

namespace blkperf {

bool ParseSize(absl::string_view text, uint64_t* bytes) {
  text = absl::StripAsciiWhitespace(text);
  size_t digits = 0;
  while (digits < text.size() &&
         std::isdigit(static_cast<unsigned char>(text[digits]))) {
    ++digits;
  }
  if (digits == 0) return false;
  uint64_t value = 0;
  if (!absl::SimpleAtoi(text.substr(0, digits), &value)) return false;
  std::string suffix = absl::AsciiStrToLower(text.substr(digits));
  if (!suffix.empty() && suffix.back() == 'b') suffix.pop_back();
  if (!suffix.empty() && suffix.back() == 'i') suffix.pop_back();
  unsigned shift = 0;
  if (suffix == "k") {
    shift = 10;
  } else if (suffix == "m") {
    shift = 20;
  } else if (suffix == "g") {
    shift = 30;
  } else if (suffix == "t") {
    shift = 40;
  } else if (!suffix.empty()) {
    return false;
  }
  if (shift != 0 && value > (UINT64_MAX >> shift)) return false;
  *bytes = value << shift;
  return true;
}

std::string FormatBytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  if (unit == 0) return absl::StrFormat("%.0f%s", bytes, kUnits[unit]);
  return absl::StrFormat("%.2f%s", bytes, kUnits[unit]);
}

std::string FormatCount(double count) {
  if (count >= 1e9) return absl::StrFormat("%.2fG", count / 1e9);
  if (count >= 1e6) return absl::StrFormat("%.2fM", count / 1e6);
  if (count >= 1e3) return absl::StrFormat("%.1fk", count / 1e3);
  return absl::StrFormat("%.0f", count);
}

std::string FormatNanos(double nanos) {
  if (nanos >= 1e9) return absl::StrFormat("%.2fs", nanos / 1e9);
  if (nanos >= 1e6) return absl::StrFormat("%.2fms", nanos / 1e6);
  if (nanos >= 1e3) return absl::StrFormat("%.1fus", nanos / 1e3);
  return absl::StrFormat("%.0fns", nanos);
}

}  // namespace blkperf
