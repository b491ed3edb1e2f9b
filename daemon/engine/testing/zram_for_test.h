// zram0 sized for a test: taken under the host-wide zram lock
// (/tmp/blkperf-zram.lock, flock), only when nobody uses it (disksize 0),
// and reset on destruction. Needs root and the zram module; ok() is false
// with the reason otherwise, and the test skips saying so.
//
//   ZramForTest zram(64 << 20);
//   if (!zram.ok()) GTEST_SKIP() << zram.why();
//   spec.targets.push_back({.path = zram.path()});
#ifndef BLKPERF_DAEMON_ENGINE_TESTING_ZRAM_FOR_TEST_H_
#define BLKPERF_DAEMON_ENGINE_TESTING_ZRAM_FOR_TEST_H_

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace blkperf {

class ZramForTest {
 public:
  explicit ZramForTest(uint64_t bytes) {
    if (geteuid() != 0) {
      why_ = "needs root to size zram0";
      return;
    }
    if (access("/sys/block/zram0/disksize", W_OK) != 0) {
      why_ = "no /sys/block/zram0 (modprobe zram)";
      return;
    }
    lock_fd_ = open("/tmp/blkperf-zram.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0666);
    if (lock_fd_ < 0 || flock(lock_fd_, LOCK_EX) != 0) {
      why_ = "cannot take /tmp/blkperf-zram.lock";
      return;
    }
    const std::string size = Read("disksize");
    if (size != "0") {
      why_ = absl::StrCat("zram0 is in use (disksize ", size, ")");
      return;
    }
    std::ofstream(Sys("disksize")) << bytes;
    if (Read("disksize") != std::to_string(bytes)) {
      why_ = "could not size zram0";
      Reset();
      return;
    }
    ok_ = true;
  }
  ~ZramForTest() {
    if (ok_) Reset();
    if (lock_fd_ >= 0) close(lock_fd_);  // releases the flock
  }
  ZramForTest(const ZramForTest&) = delete;
  ZramForTest& operator=(const ZramForTest&) = delete;

  bool ok() const { return ok_; }
  const std::string& why() const { return why_; }
  std::string path() const { return "/dev/zram0"; }

 private:
  static std::string Sys(const std::string& name) {
    return "/sys/block/zram0/" + name;
  }
  static std::string Read(const std::string& name) {
    std::ifstream in(Sys(name));
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    return std::string(absl::StripAsciiWhitespace(text));
  }
  static void Reset() { std::ofstream(Sys("reset")) << "1"; }

  bool ok_ = false;
  int lock_fd_ = -1;
  std::string why_;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_TESTING_ZRAM_FOR_TEST_H_
