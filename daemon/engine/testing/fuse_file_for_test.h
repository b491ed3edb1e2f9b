// A real FUSE file for tests of devices that stall or queue: starts
// testing/stall_fuse_server (a data dependency of the test) on a mount in
// TEST_TMPDIR and removes both in the destructor. Needs root and /dev/fuse;
// ok() says whether it is up, why() why not (tests skip with it).
//
//   StallingFuseFile fuse;                                  // reads answer
//   StallingFuseFile fuse({"--stall_ms=250"});   // fuse.StallFor() holds
//   StallingFuseFile fuse({"--service_us=500"}); // one read per 500 us
//   if (!fuse.ok()) GTEST_SKIP() << fuse.why();
//   spec.targets.push_back({.path = fuse.path()});
//   fuse.Stall();                                 // reads never answered
#ifndef BLKPERF_DAEMON_ENGINE_TESTING_FUSE_FILE_FOR_TEST_H_
#define BLKPERF_DAEMON_ENGINE_TESTING_FUSE_FILE_FOR_TEST_H_

#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace blkperf {

class StallingFuseFile {
 public:
  static constexpr uint64_t kDefaultBytes = 16 << 20;

  explicit StallingFuseFile(std::vector<std::string> options = {},
                            uint64_t bytes = kDefaultBytes)
      : bytes_(bytes) {
    if (geteuid() != 0) {
      why_ = "mounting FUSE needs root";
      return;
    }
    if (access("/dev/fuse", R_OK | W_OK) != 0) {
      why_ = "no usable /dev/fuse";
      return;
    }
    const char* tmp = std::getenv("TEST_TMPDIR");
    mountpoint_ = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/fuse_",
                               getpid(), "_", counter_++);
    mkdir(mountpoint_.c_str(), 0755);
    const std::string server =
        absl::StrCat(std::getenv("TEST_SRCDIR"), "/",
                     std::getenv("TEST_WORKSPACE"),
                     "/daemon/engine/testing/stall_fuse_server");
    std::vector<std::string> args = {server, mountpoint_,
                                     absl::StrCat(bytes_)};
    args.insert(args.end(), options.begin(), options.end());
    pid_ = fork();
    if (pid_ == 0) {
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(server.c_str(), argv.data());
      _exit(127);
    }
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    struct stat st;
    while (absl::Now() < deadline) {
      if (stat(path().c_str(), &st) == 0 &&
          static_cast<uint64_t>(st.st_size) == bytes_) {
        return;
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        why_ = absl::StrCat("the FUSE server exited (status ", status,
                            ") before its file appeared");
        return;
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
    why_ = "the FUSE file did not appear within 10s";
  }

  ~StallingFuseFile() {
    if (pid_ > 0) {
      // The server's exit closes /dev/fuse: the kernel fails pending reads.
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
    if (!mountpoint_.empty()) {
      umount2(mountpoint_.c_str(), MNT_DETACH);
      rmdir(mountpoint_.c_str());
    }
  }
  StallingFuseFile(const StallingFuseFile&) = delete;
  StallingFuseFile& operator=(const StallingFuseFile&) = delete;

  bool ok() const { return why_.empty(); }
  const std::string& why() const { return why_; }
  std::string path() const { return mountpoint_ + "/data"; }
  // From now on no read is answered.
  void Stall() { kill(pid_, SIGUSR1); }
  // With --stall_ms=N: no read is answered for N ms, then all are.
  void StallFor() { kill(pid_, SIGUSR2); }

 private:
  static inline int counter_ = 0;
  uint64_t bytes_;
  std::string mountpoint_;
  pid_t pid_ = -1;
  std::string why_;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_TESTING_FUSE_FILE_FOR_TEST_H_
