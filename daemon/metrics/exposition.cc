#include "daemon/metrics/exposition.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "absl/strings/string_view.h"
#include "prometheus/text_serializer.h"

namespace blkperf {
namespace {

constexpr char kLe[] = "le=\"";
constexpr size_t kLeSize = sizeof(kLe) - 1;

// `value` (a number as the serializer printed it) in its shortest
// round-trip form; unchanged when it is not a finite number ("+Inf").
std::string Shortest(absl::string_view value) {
  const std::string text(value);
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(d)) return text;
  char buffer[64];
  const auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof(buffer), d);
  if (ec != std::errc()) return text;
  return std::string(buffer, ptr);
}

}  // namespace

std::string ExpositionText(
    const std::vector<prometheus::MetricFamily>& families) {
  std::ostringstream serialized;
  prometheus::TextSerializer().Serialize(serialized, families);
  const std::string text = serialized.str();
  // Only `le` label values are rewritten: they are numbers the serializer
  // wrote, never client strings (those cannot contain `le="` unescaped
  // after a `{` or `,`, which is what is matched).
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (true) {
    size_t at = text.find(kLe, pos);
    while (at != std::string::npos && at > 0 && text[at - 1] != '{' &&
           text[at - 1] != ',') {
      at = text.find(kLe, at + 1);
    }
    if (at == std::string::npos) break;
    const size_t start = at + kLeSize;
    const size_t close = text.find('"', start);
    if (close == std::string::npos) break;
    out.append(text, pos, start - pos);
    out += Shortest(absl::string_view(text).substr(start, close - start));
    pos = close;
  }
  out.append(text, pos, std::string::npos);
  return out;
}

}  // namespace blkperf
