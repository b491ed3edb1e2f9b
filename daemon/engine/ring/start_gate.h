// A one-shot gate that releases every waiting thread at once: one release
// store and one futex wake for all of them, so the submitters of an armed
// workload start within a wake-up of each other rather than one after
// another (as a mutex-based notification hands its waiters on).
//
//   StartGate gate;
//   // submitter threads:  gate.Wait();  ... first submit ...
//   // control thread:     gate.Open();  // every waiter runs now
//
// Open() is idempotent; Wait() after Open() returns at once. Thread-safe.
#ifndef BLKPERF_DAEMON_ENGINE_RING_START_GATE_H_
#define BLKPERF_DAEMON_ENGINE_RING_START_GATE_H_

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>

namespace blkperf {

class StartGate {
 public:
  // Blocks until Open(). Spurious futex returns loop.
  void Wait() {
    while (open_.load(std::memory_order_acquire) != kOpen) {
      syscall(SYS_futex, Word(), FUTEX_WAIT_PRIVATE, kClosed, nullptr, nullptr,
              0);
    }
  }
  // Releases every waiter: the store publishes everything written before it
  // (pairs with Wait's acquire load), the wake rouses all sleepers at once.
  void Open() {
    open_.store(kOpen, std::memory_order_release);
    syscall(SYS_futex, Word(), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr,
            0);
  }
  bool IsOpen() const {
    return open_.load(std::memory_order_acquire) == kOpen;
  }

 private:
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                    std::atomic<uint32_t>::is_always_lock_free,
                "the futex word must be a plain 32-bit atomic");
  static constexpr uint32_t kClosed = 0, kOpen = 1;
  uint32_t* Word() { return reinterpret_cast<uint32_t*>(&open_); }

  std::atomic<uint32_t> open_{kClosed};
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_RING_START_GATE_H_
