#include "base/log.h"

#include <unistd.h>

#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/bounded_text.h"

namespace blkperf::internal {

LogLine::LogLine(LogLevel level, const char* file, int line) {
  const char letter = level == LogLevel::kInfo      ? 'I'
                      : level == LogLevel::kWarning ? 'W'
                                                    : 'E';
  std::string base(file);
  if (auto slash = base.rfind('/'); slash != std::string::npos) {
    base = base.substr(slash + 1);
  }
  stream_ << letter
          << absl::FormatTime("%m%d %H:%M:%E6S ", absl::Now(),
                              absl::LocalTimeZone())
          << base << ":" << line << "] ";
  header_bytes_ = static_cast<size_t>(stream_.tellp());
}

LogLine::~LogLine() {
  // The message may carry client text (paths, ids): one line, escaped and
  // bounded, so nothing a client sends can forge or flood a line.
  const std::string whole = stream_.str();
  std::string text = whole.substr(0, header_bytes_);
  text += OneLine(absl::string_view(whole).substr(header_bytes_),
                  kMaxLogLineBytes);
  text.push_back('\n');
  // One write() so concurrent lines do not interleave.
  ssize_t ignored = ::write(STDERR_FILENO, text.data(), text.size());
  (void)ignored;
}

}  // namespace blkperf::internal
