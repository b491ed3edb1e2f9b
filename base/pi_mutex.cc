#include "base/pi_mutex.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace blkperf {
namespace {

void DieOn(int error, const char* what) {
  if (error == 0) return;
  std::fprintf(stderr, "PiMutex: %s: %s\n", what, std::strerror(error));
  std::abort();
}

}  // namespace

PiMutex::PiMutex() {
  pthread_mutexattr_t attributes;
  DieOn(pthread_mutexattr_init(&attributes), "pthread_mutexattr_init");
  // ERRORCHECK: a relock or an unlock by another thread is reported (and
  // aborts), not undefined.
  DieOn(pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_ERRORCHECK),
        "pthread_mutexattr_settype");
  DieOn(pthread_mutexattr_setprotocol(&attributes, PTHREAD_PRIO_INHERIT),
        "pthread_mutexattr_setprotocol(PTHREAD_PRIO_INHERIT)");
  DieOn(pthread_mutex_init(&mutex_, &attributes), "pthread_mutex_init");
  pthread_mutexattr_destroy(&attributes);
}

PiMutex::~PiMutex() { pthread_mutex_destroy(&mutex_); }

void PiMutex::Lock() { DieOn(pthread_mutex_lock(&mutex_), "lock"); }

void PiMutex::Unlock() { DieOn(pthread_mutex_unlock(&mutex_), "unlock"); }

}  // namespace blkperf
