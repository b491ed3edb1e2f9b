#include "base/log.h"

#include <unistd.h>

#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"

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
}

LogLine::~LogLine() {
  stream_ << '\n';
  const std::string text = stream_.str();
  // One write() so concurrent lines do not interleave.
  ssize_t ignored = ::write(STDERR_FILENO, text.data(), text.size());
  (void)ignored;
}

}  // namespace blkperf::internal
