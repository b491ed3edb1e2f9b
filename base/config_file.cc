#include "base/config_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "base/bounded_text.h"

namespace blkperf {
namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }

 private:
  const int fd_;
};

}  // namespace

absl::StatusOr<std::string> ReadConfigFile(const std::string& path,
                                           size_t max_bytes,
                                           absl::string_view flag) {
  const std::string what = absl::StrCat(flag, " ", BoundedText(path));
  // O_NONBLOCK: a FIFO there must not block (it is refused below).
  Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (fd.get() < 0 && errno == ELOOP) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": is a symlink; name the file itself"));
  }
  if (fd.get() < 0) return absl::ErrnoToStatus(errno, what);
  struct stat st = {};
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a regular file"));
  }
  std::string text(max_bytes + 1, '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = read(fd.get(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::ErrnoToStatus(errno, what);
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (got > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": larger than ", max_bytes, " bytes"));
  }
  text.resize(got);
  return text;
}

}  // namespace blkperf
