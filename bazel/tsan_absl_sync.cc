// TSan builds only (--config=tsan links this into every binary through
// --custom_malloc; it holds no allocator). Debian's libabsl_synchronization
// is not built with -fsanitize=thread, so TSan cannot see absl::Mutex,
// CondVar or Notification synchronize: every access a Mutex guards would be
// reported as a race. This file defines their public entry points in the
// executable, where they take precedence over the library's: each calls the
// library's own function (dlsym RTLD_NEXT) and tells TSan the
// happens-before edge it creates (__tsan_acquire after taking, and
// __tsan_release before giving up, the mutex or notification).
//
// Reader locks are annotated as exclusive ones: TSan then also orders two
// readers, which can hide a write made under a reader lock, never report a
// race that is not there. The symbol names are those of Debian's Abseil
// 20220623 (inline namespace debian3); a missing one aborts with its name.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);

namespace {

// The library's definition of `symbol` (mangled), or abort.
template <typename Fn>
Fn Real(const char* symbol) {
  void* fn = dlsym(RTLD_NEXT, symbol);
  if (fn == nullptr) {
    std::fprintf(stderr, "tsan_absl_sync: %s not found\n", symbol);
    std::abort();
  }
  return reinterpret_cast<Fn>(fn);
}

#define BLKPERF_REAL(type, symbol)                          \
  static const auto real = Real<type>(symbol)

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  BLKPERF_REAL(void (*)(Mutex*), "_ZN4absl7debian35Mutex4LockEv");
  real(this);
  __tsan_acquire(this);
}

void Mutex::ReaderLock() {
  BLKPERF_REAL(void (*)(Mutex*), "_ZN4absl7debian35Mutex10ReaderLockEv");
  real(this);
  __tsan_acquire(this);
}

bool Mutex::TryLock() {
  BLKPERF_REAL(bool (*)(Mutex*), "_ZN4absl7debian35Mutex7TryLockEv");
  const bool locked = real(this);
  if (locked) __tsan_acquire(this);
  return locked;
}

bool Mutex::ReaderTryLock() {
  BLKPERF_REAL(bool (*)(Mutex*), "_ZN4absl7debian35Mutex13ReaderTryLockEv");
  const bool locked = real(this);
  if (locked) __tsan_acquire(this);
  return locked;
}

void Mutex::Unlock() {
  BLKPERF_REAL(void (*)(Mutex*), "_ZN4absl7debian35Mutex6UnlockEv");
  __tsan_release(this);
  real(this);
}

void Mutex::ReaderUnlock() {
  BLKPERF_REAL(void (*)(Mutex*), "_ZN4absl7debian35Mutex12ReaderUnlockEv");
  __tsan_release(this);
  real(this);
}

void Mutex::LockWhen(const Condition& cond) {
  BLKPERF_REAL(void (*)(Mutex*, const Condition&),
               "_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE");
  real(this, cond);
  __tsan_acquire(this);
}

void Mutex::ReaderLockWhen(const Condition& cond) {
  BLKPERF_REAL(void (*)(Mutex*, const Condition&),
               "_ZN4absl7debian35Mutex14ReaderLockWhenERKNS0_9ConditionE");
  real(this, cond);
  __tsan_acquire(this);
}

bool Mutex::LockWhenWithTimeout(const Condition& cond, Duration timeout) {
  BLKPERF_REAL(bool (*)(Mutex*, const Condition&, Duration),
               "_ZN4absl7debian35Mutex19LockWhenWithTimeoutERKNS0_"
               "9ConditionENS0_8DurationE");
  const bool result = real(this, cond, timeout);
  __tsan_acquire(this);  // held whatever the result
  return result;
}

bool Mutex::LockWhenWithDeadline(const Condition& cond, Time deadline) {
  BLKPERF_REAL(bool (*)(Mutex*, const Condition&, Time),
               "_ZN4absl7debian35Mutex20LockWhenWithDeadlineERKNS0_"
               "9ConditionENS0_4TimeE");
  const bool result = real(this, cond, deadline);
  __tsan_acquire(this);
  return result;
}

// Await* release the mutex while waiting and hold it again on return.
void Mutex::Await(const Condition& cond) {
  BLKPERF_REAL(void (*)(Mutex*, const Condition&),
               "_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE");
  __tsan_release(this);
  real(this, cond);
  __tsan_acquire(this);
}

bool Mutex::AwaitWithTimeout(const Condition& cond, Duration timeout) {
  BLKPERF_REAL(bool (*)(Mutex*, const Condition&, Duration),
               "_ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_"
               "9ConditionENS0_8DurationE");
  __tsan_release(this);
  const bool result = real(this, cond, timeout);
  __tsan_acquire(this);
  return result;
}

bool Mutex::AwaitWithDeadline(const Condition& cond, Time deadline) {
  BLKPERF_REAL(bool (*)(Mutex*, const Condition&, Time),
               "_ZN4absl7debian35Mutex17AwaitWithDeadlineERKNS0_"
               "9ConditionENS0_4TimeE");
  __tsan_release(this);
  const bool result = real(this, cond, deadline);
  __tsan_acquire(this);
  return result;
}

void CondVar::Wait(Mutex* mu) {
  BLKPERF_REAL(void (*)(CondVar*, Mutex*),
               "_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE");
  __tsan_release(mu);
  real(this, mu);
  __tsan_acquire(mu);
}

bool CondVar::WaitWithTimeout(Mutex* mu, Duration timeout) {
  BLKPERF_REAL(bool (*)(CondVar*, Mutex*, Duration),
               "_ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_5MutexENS0_"
               "8DurationE");
  __tsan_release(mu);
  const bool result = real(this, mu, timeout);
  __tsan_acquire(mu);
  return result;
}

bool CondVar::WaitWithDeadline(Mutex* mu, Time deadline) {
  BLKPERF_REAL(bool (*)(CondVar*, Mutex*, Time),
               "_ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_5MutexENS0_"
               "4TimeE");
  __tsan_release(mu);
  const bool result = real(this, mu, deadline);
  __tsan_acquire(mu);
  return result;
}

void Notification::Notify() {
  BLKPERF_REAL(void (*)(Notification*),
               "_ZN4absl7debian312Notification6NotifyEv");
  __tsan_release(this);
  real(this);
}

void Notification::WaitForNotification() const {
  BLKPERF_REAL(void (*)(const Notification*),
               "_ZNK4absl7debian312Notification19WaitForNotificationEv");
  real(this);
  __tsan_acquire(const_cast<Notification*>(this));
}

bool Notification::WaitForNotificationWithTimeout(Duration timeout) const {
  BLKPERF_REAL(bool (*)(const Notification*, Duration),
               "_ZNK4absl7debian312Notification30WaitForNotificationWith"
               "TimeoutENS0_8DurationE");
  const bool notified = real(this, timeout);
  if (notified) __tsan_acquire(const_cast<Notification*>(this));
  return notified;
}

bool Notification::WaitForNotificationWithDeadline(Time deadline) const {
  BLKPERF_REAL(bool (*)(const Notification*, Time),
               "_ZNK4absl7debian312Notification31WaitForNotificationWith"
               "DeadlineENS0_4TimeE");
  const bool notified = real(this, deadline);
  if (notified) __tsan_acquire(const_cast<Notification*>(this));
  return notified;
}

ABSL_NAMESPACE_END
}  // namespace absl
