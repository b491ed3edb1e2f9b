#include "model/split_strategy.h"

#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace blkperf {
namespace {

constexpr absl::string_view kFixedPrefix = "fixed:";
// The smallest logical block size any Linux block device has; the engine
// checks the target's own logical block size when it builds the Splitter.
constexpr uint64_t kMinBlockSize = 512;

// `field "text" : problem`, the text escaped so that it stays on one line.
absl::Status Invalid(absl::string_view field, absl::string_view text,
                     absl::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat(field, " \"", absl::CEscape(text), "\" : ", problem));
}

// Multiplier for an optional binary suffix; 0 for an unknown one.
uint64_t SuffixMultiplier(char suffix) {
  switch (suffix) {
    case 'k':
    case 'K':
      return uint64_t{1} << 10;
    case 'm':
    case 'M':
      return uint64_t{1} << 20;
    case 'g':
    case 'G':
      return uint64_t{1} << 30;
    default:
      return 0;
  }
}

}  // namespace

absl::StatusOr<SplitStrategy> ParseSplitStrategy(absl::string_view text,
                                                 absl::string_view field) {
  SplitStrategy strategy;
  if (text == "none") {
    strategy.kind = SplitStrategy::Kind::kNone;
    return strategy;
  }
  if (text == "limits") {
    strategy.kind = SplitStrategy::Kind::kLimits;
    return strategy;
  }
  if (!absl::StartsWith(text, kFixedPrefix)) {
    return Invalid(field, text,
                   "expected none, limits or fixed:<bytes>[k|m|g]");
  }

  absl::string_view size = text.substr(kFixedPrefix.size());
  if (size.empty()) return Invalid(field, text, "missing size after fixed:");
  uint64_t multiplier = 1;
  if (const uint64_t m = SuffixMultiplier(size.back()); m != 0) {
    multiplier = m;
    size.remove_suffix(1);
  }
  if (size.empty()) return Invalid(field, text, "missing size after fixed:");

  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t value = 0;
  for (const char c : size) {
    if (c < '0' || c > '9') {
      return Invalid(field, text,
                     "size must be a decimal number of bytes with an "
                     "optional k, m or g suffix");
    }
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (kMax - digit) / 10) {
      return Invalid(field, text, "size is too large");
    }
    value = value * 10 + digit;
  }
  if (value > kMax / multiplier) {
    return Invalid(field, text, "size is too large");
  }
  value *= multiplier;

  if (value == 0) return Invalid(field, text, "size must be greater than 0");
  if (value % kMinBlockSize != 0) {
    return Invalid(
        field, text,
        absl::StrCat("size ", value, " is not a multiple of ", kMinBlockSize));
  }
  strategy.kind = SplitStrategy::Kind::kFixed;
  strategy.fixed_bytes = value;
  return strategy;
}

std::string SplitStrategyName(const SplitStrategy& strategy) {
  switch (strategy.kind) {
    case SplitStrategy::Kind::kNone:
      return "none";
    case SplitStrategy::Kind::kLimits:
      return "limits";
    case SplitStrategy::Kind::kFixed:
      return absl::StrCat(kFixedPrefix, strategy.fixed_bytes);
  }
  return "unknown";
}

}  // namespace blkperf
