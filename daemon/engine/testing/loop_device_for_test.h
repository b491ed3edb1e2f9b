// A loop device over a temporary file, for tests that need a real block
// device: attached on construction, detached and removed on destruction.
// Needs root; tests skip when it cannot be set up.
//
//   LoopDeviceForTest loop(64 << 20);
//   if (!loop.ok()) GTEST_SKIP() << loop.why();
//   loop.SetQueueLimit("max_sectors_kb", 64);
//   spec.targets.push_back({.path = loop.path()});
#ifndef BLKPERF_DAEMON_ENGINE_TESTING_LOOP_DEVICE_FOR_TEST_H_
#define BLKPERF_DAEMON_ENGINE_TESTING_LOOP_DEVICE_FOR_TEST_H_

#include <stdio.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace blkperf {

class LoopDeviceForTest {
 public:
  explicit LoopDeviceForTest(uint64_t bytes) {
    if (geteuid() != 0) {
      why_ = "needs root to set up a loop device";
      return;
    }
    const char* dir = std::getenv("TEST_TMPDIR");
    backing_ = absl::StrCat(dir != nullptr ? dir : "/tmp", "/loop_", getpid(),
                            "_", counter_++, ".img");
    if (!Resize(bytes)) {
      why_ = "cannot create the backing file " + backing_;
      return;
    }
    FILE* p = popen(absl::StrCat("losetup -f --show ", backing_).c_str(), "r");
    char line[128] = {};
    const bool got = p != nullptr && fgets(line, sizeof(line), p) != nullptr;
    if (p != nullptr) pclose(p);
    if (!got) {
      why_ = "losetup could not attach a loop device";
      return;
    }
    path_ = std::string(absl::StripTrailingAsciiWhitespace(line));
    name_ = path_.substr(path_.rfind('/') + 1);
  }
  ~LoopDeviceForTest() {
    // A loop device keeps a limit written to its queue across detach and
    // the next attach (the kernel keeps max_user_sectors), so the next user
    // of loopN would inherit it: put back what was there.
    for (auto it = saved_limits_.rbegin(); it != saved_limits_.rend(); ++it) {
      WriteQueueFile(it->first, it->second);
    }
    if (!path_.empty()) system(absl::StrCat("losetup -d ", path_).c_str());
    if (!backing_.empty()) unlink(backing_.c_str());
  }
  LoopDeviceForTest(const LoopDeviceForTest&) = delete;
  LoopDeviceForTest& operator=(const LoopDeviceForTest&) = delete;

  bool ok() const { return !path_.empty(); }
  const std::string& why() const { return why_; }
  const std::string& path() const { return path_; }  // "/dev/loopN"

  // Writes /sys/block/loopN/queue/<name>; the destructor restores the
  // value it had before the first write.
  void SetQueueLimit(const std::string& name, uint64_t value) {
    bool saved = false;
    for (const auto& [n, v] : saved_limits_) saved |= n == name;
    if (!saved) {
      std::string before;
      std::ifstream(QueueFile(name)) >> before;
      if (!before.empty()) saved_limits_.emplace_back(name, before);
    }
    WriteQueueFile(name, std::to_string(value));
  }

  // Resizes the backing file and tells the loop device its new capacity:
  // I/O past the new end then fails with EIO.
  bool Shrink(uint64_t bytes) const {
    return Resize(bytes) &&
           system(absl::StrCat("losetup -c ", path_).c_str()) == 0;
  }

 private:
  bool Resize(uint64_t bytes) const {
    return system(absl::StrCat("truncate -s ", bytes, " ", backing_).c_str()) == 0;
  }

  std::string QueueFile(const std::string& name) const {
    return absl::StrCat("/sys/block/", name_, "/queue/", name);
  }
  void WriteQueueFile(const std::string& name, const std::string& value) const {
    std::ofstream(QueueFile(name)) << value;
  }

  static inline int counter_ = 0;
  std::vector<std::pair<std::string, std::string>> saved_limits_;
  std::string why_;
  std::string backing_;
  std::string path_;
  std::string name_;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_TESTING_LOOP_DEVICE_FOR_TEST_H_
