// Minimal leveled logging to stderr (Abseil 20220623 has no absl/log).
//
//   BLKPERF_LOG(INFO) << "listening on " << address;
//
// Never used on the I/O hot path.
#ifndef BLKPERF_BASE_LOG_H_
#define BLKPERF_BASE_LOG_H_

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
};

}  // namespace blkperf::internal

#define BLKPERF_LOG_LEVEL_INFO ::blkperf::internal::LogLevel::kInfo
#define BLKPERF_LOG_LEVEL_WARNING ::blkperf::internal::LogLevel::kWarning
#define BLKPERF_LOG_LEVEL_ERROR ::blkperf::internal::LogLevel::kError
#define BLKPERF_LOG(level) \
  ::blkperf::internal::LogLine(BLKPERF_LOG_LEVEL_##level, __FILE__, __LINE__)

#endif  // BLKPERF_BASE_LOG_H_
