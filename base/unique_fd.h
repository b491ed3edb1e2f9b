// A file descriptor owned by one object: closed when the owner goes away.
//
//   UniqueFd dir(open("/srv", O_PATH | O_DIRECTORY | O_CLOEXEC));
//   if (!dir.valid()) return absl::ErrnoToStatus(errno, "open /srv");
//   openat(dir.get(), "x", O_RDONLY);
#ifndef BLKPERF_BASE_UNIQUE_FD_H_
#define BLKPERF_BASE_UNIQUE_FD_H_

#include <unistd.h>

#include <utility>

namespace blkperf {

class UniqueFd {
 public:
  UniqueFd() = default;
  // Takes ownership of `fd` (negative: none).
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { Reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Reset() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

}  // namespace blkperf

#endif  // BLKPERF_BASE_UNIQUE_FD_H_
