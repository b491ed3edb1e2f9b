// Fuzzes ParseSplitStrategy with arbitrary text. Checks its contract: an
// accepted strategy prints back to a name that parses to the same strategy,
// a fixed size is a positive multiple of 512, and a refusal is
// InvalidArgument naming the field on a single line.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "model/split_strategy.h"

namespace blkperf {
namespace {

void Fail(const char* what, absl::string_view text) {
  std::fprintf(stderr, "split_strategy_fuzzer: %s for %zu-byte input\n", what,
               text.size());
  std::abort();
}

void CheckOne(absl::string_view text) {
  absl::StatusOr<SplitStrategy> parsed = ParseSplitStrategy(text, "spec.split");
  if (!parsed.ok()) {
    if (!absl::IsInvalidArgument(parsed.status())) Fail("not InvalidArgument", text);
    const absl::string_view message = parsed.status().message();
    if (!absl::StartsWith(message, "spec.split ")) Fail("field not named", text);
    if (absl::StrContains(message, '\n')) Fail("message spans lines", text);
    return;
  }
  if (parsed->kind == SplitStrategy::Kind::kFixed &&
      (parsed->fixed_bytes == 0 || parsed->fixed_bytes % 512 != 0)) {
    Fail("fixed size not a positive multiple of 512", text);
  }
  absl::StatusOr<SplitStrategy> again =
      ParseSplitStrategy(SplitStrategyName(*parsed), "spec.split");
  if (!again.ok() || !(*again == *parsed)) Fail("name does not round-trip", text);
}

}  // namespace
}  // namespace blkperf

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  blkperf::CheckOne(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
