#include "base/bounded_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace blkperf {

void AppendEscaped(absl::string_view text, std::string* out) {
  for (const char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (c == '\n') {
      *out += "\\n";
    } else if (c == '\t') {
      *out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      absl::StrAppendFormat(out, "\\u%04x", u);
    } else {
      out->push_back(c);
    }
  }
}

std::string BoundedText(absl::string_view text, size_t max_bytes) {
  const absl::string_view kept = text.substr(0, max_bytes);
  std::string out = "\"";
  AppendEscaped(kept, &out);
  out.push_back('"');
  if (kept.size() < text.size()) {
    absl::StrAppend(&out, "...(+", text.size() - kept.size(), " bytes)");
  }
  return out;
}

}  // namespace blkperf
