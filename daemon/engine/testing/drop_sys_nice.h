// Tests of the real-time start wait: makes the calling thread one that may
// not raise itself to real time, as a daemon without CAP_SYS_NICE.
#ifndef BLKPERF_DAEMON_ENGINE_TESTING_DROP_SYS_NICE_H_
#define BLKPERF_DAEMON_ENGINE_TESTING_DROP_SYS_NICE_H_

#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace blkperf::testing {

// Drops CAP_SYS_NICE from the calling thread's effective, permitted and
// inheritable sets (capabilities are per thread; threads it creates
// afterwards inherit the reduced sets). With RLIMIT_RTPRIO 0 the thread can
// then not enter a real-time policy. False when capget/capset failed.
inline bool DropSysNiceFromThisThread() {
  __user_cap_header_struct header{.version = _LINUX_CAPABILITY_VERSION_3,
                                  .pid = 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  for (__u32* set : {&data[0].effective, &data[0].permitted,
                     &data[0].inheritable}) {
    *set &= ~(1u << CAP_SYS_NICE);
  }
  return syscall(SYS_capset, &header, data) == 0;
}

// A resource limit's soft value 0 for the whole test process (RLIMIT_RTPRIO,
// RLIMIT_NICE: with the capability dropped, no raise is then allowed), put
// back at scope exit. (The other way, an RLIMIT_RTPRIO of 1 without the
// capability, which the systemd unit uses, cannot be tested here: raising
// the hard limit takes CAP_SYS_RESOURCE, which this machine's root lacks.)
class ScopedZeroSoftLimit {
 public:
  explicit ScopedZeroSoftLimit(int resource) : resource_(resource) {
    if (getrlimit(resource_, &saved_) != 0) return;
    const rlimit none{.rlim_cur = 0, .rlim_max = saved_.rlim_max};
    ok_ = setrlimit(resource_, &none) == 0;
  }
  ~ScopedZeroSoftLimit() {
    if (ok_) setrlimit(resource_, &saved_);
  }
  ScopedZeroSoftLimit(const ScopedZeroSoftLimit&) = delete;
  ScopedZeroSoftLimit& operator=(const ScopedZeroSoftLimit&) = delete;
  bool ok() const { return ok_; }

 private:
  const int resource_;
  rlimit saved_{};
  bool ok_ = false;
};

}  // namespace blkperf::testing

#endif  // BLKPERF_DAEMON_ENGINE_TESTING_DROP_SYS_NICE_H_
