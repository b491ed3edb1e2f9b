// Tests of the real-time start wait: makes the calling thread one that may
// not raise itself to real time, as a daemon without CAP_SYS_NICE.
#ifndef BLKPERF_DAEMON_ENGINE_TESTING_DROP_SYS_NICE_H_
#define BLKPERF_DAEMON_ENGINE_TESTING_DROP_SYS_NICE_H_

#include <linux/capability.h>
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

}  // namespace blkperf::testing

#endif  // BLKPERF_DAEMON_ENGINE_TESTING_DROP_SYS_NICE_H_
