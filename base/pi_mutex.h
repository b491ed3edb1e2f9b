// A mutex with priority inheritance, for locks that a real-time control
// thread shares with threads of the normal or idle policy.
//
// Why: with a plain mutex, a real-time thread that waits for a lock held
// by a preempted low-priority thread waits until that thread gets a CPU
// again (priority inversion). On the development VM, a workload's A/B
// switch waited on a status reader's lock and began up to 26 ms late
// while submitters kept both CPUs busy. With PTHREAD_PRIO_INHERIT the
// holder runs at the waiter's priority until it unlocks, so the waiter
// waits only for the rest of the critical section.
//
//   PiMutex mu;
//   int value ABSL_GUARDED_BY(mu);
//   {
//     PiMutexLock lock(&mu);
//     ++value;
//   }
//
// Not a condition-variable mutex: no Await() or CondVar; use it where the
// critical sections are short and plain.
#ifndef BLKPERF_BASE_PI_MUTEX_H_
#define BLKPERF_BASE_PI_MUTEX_H_

#include <pthread.h>

#include "absl/base/thread_annotations.h"

namespace blkperf {

class ABSL_LOCKABLE PiMutex {
 public:
  PiMutex();
  ~PiMutex();
  PiMutex(const PiMutex&) = delete;
  PiMutex& operator=(const PiMutex&) = delete;

  // Aborts with a message on an error of the kernel's (EDEADLK on a
  // relock, say): every one is a bug of the caller's, never a condition
  // to recover from.
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION();
  void Unlock() ABSL_UNLOCK_FUNCTION();

 private:
  pthread_mutex_t mutex_;
};

// Holds `mu` for its scope.
class ABSL_SCOPED_LOCKABLE PiMutexLock {
 public:
  explicit PiMutexLock(PiMutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu)
      : mu_(mu) {
    mu_->Lock();
  }
  ~PiMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  PiMutexLock(const PiMutexLock&) = delete;
  PiMutexLock& operator=(const PiMutexLock&) = delete;

 private:
  PiMutex* const mu_;
};

}  // namespace blkperf

#endif  // BLKPERF_BASE_PI_MUTEX_H_
