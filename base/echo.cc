#include "base/echo.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace blkperf {

std::string Echo(absl::string_view text) {
  if (text.size() <= kMaxEcho) return absl::CEscape(text);
  return absl::StrCat(absl::CEscape(text.substr(0, kMaxEcho)), "...(",
                      text.size(), " bytes)");
}

}  // namespace blkperf
