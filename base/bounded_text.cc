#include "base/bounded_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace blkperf {
namespace {

// Length of the control character at text[i]: 1 for C0 and DEL, 2 for a
// UTF-8 encoded C1 (C2 80..C2 9F), 0 for anything else.
size_t ControlLength(absl::string_view text, size_t i) {
  const unsigned char u = static_cast<unsigned char>(text[i]);
  if (u < 0x20 || u == 0x7f) return 1;
  if (u == 0xc2 && i + 1 < text.size()) {
    const unsigned char next = static_cast<unsigned char>(text[i + 1]);
    if (next >= 0x80 && next <= 0x9f) return 2;
  }
  return 0;
}

// C-style escapes of control characters; `keep_lines` passes '\n', '\t'.
void AppendCEscaped(absl::string_view text, bool keep_lines,
                    std::string* out) {
  for (size_t i = 0; i < text.size();) {
    const size_t control = ControlLength(text, i);
    const char c = text[i];
    if (control == 0 || (keep_lines && (c == '\n' || c == '\t'))) {
      out->push_back(c);
      ++i;
      continue;
    }
    for (size_t k = 0; k < control; ++k, ++i) {
      const char e = text[i];
      if (e == '\n') {
        *out += "\\n";
      } else if (e == '\t') {
        *out += "\\t";
      } else if (e == '\r') {
        *out += "\\r";
      } else {
        absl::StrAppendFormat(out, "\\x%02x", static_cast<unsigned char>(e));
      }
    }
  }
}

}  // namespace

void AppendEscaped(absl::string_view text, std::string* out) {
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const size_t control = ControlLength(text, i);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (c == '\n') {
      *out += "\\n";
    } else if (c == '\t') {
      *out += "\\t";
    } else if (control == 1) {
      absl::StrAppendFormat(out, "\\u%04x", static_cast<unsigned char>(c));
    } else if (control == 2) {
      absl::StrAppendFormat(out, "\\u%04x",
                            static_cast<unsigned char>(text[++i]));
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

std::string OneLine(absl::string_view text, size_t max_bytes) {
  const absl::string_view kept = text.substr(0, max_bytes);
  std::string out;
  AppendCEscaped(kept, /*keep_lines=*/false, &out);
  if (kept.size() < text.size()) {
    absl::StrAppend(&out, "...(+", text.size() - kept.size(), " bytes)");
  }
  return out;
}

std::string TerminalText(absl::string_view text) {
  std::string out;
  AppendCEscaped(text, /*keep_lines=*/true, &out);
  return out;
}

}  // namespace blkperf
