// Minimal leveled logging to stderr (Abseil 20220623 has no absl/log).
// Each message is written as one line: control characters in it (a newline
// in a client's file name, an escape sequence) are escaped and it is cut at
// kMaxLogLineBytes (base/bounded_text.h), so no client text forges or floods
// a line.
//
//   BLKPERF_LOG(INFO) << "listening on " << address;
//
// Never used on the I/O hot path.
#ifndef BLKPERF_BASE_LOG_H_
#define BLKPERF_BASE_LOG_H_

#include <cstddef>
#include <sstream>

namespace blkperf::internal {

enum class LogLevel { kInfo, kWarning, kError };

// Accumulates one line and writes it atomically to stderr on destruction.
class LogLine {
 public:
  LogLine(LogLevel level, const char* file, int line);
  ~LogLine();
  LogLine(const LogLine&) = delete;
  LogLine& operator=(const LogLine&) = delete;

  template <typename T>
  LogLine& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  std::ostringstream stream_;
  size_t header_bytes_ = 0;  // "I1207 12:00:00.000000 file.cc:12] "
};

}  // namespace blkperf::internal

#define BLKPERF_LOG_LEVEL_INFO ::blkperf::internal::LogLevel::kInfo
#define BLKPERF_LOG_LEVEL_WARNING ::blkperf::internal::LogLevel::kWarning
#define BLKPERF_LOG_LEVEL_ERROR ::blkperf::internal::LogLevel::kError
#define BLKPERF_LOG(level) \
  ::blkperf::internal::LogLine(BLKPERF_LOG_LEVEL_##level, __FILE__, __LINE__)

#endif  // BLKPERF_BASE_LOG_H_
