// The free buffer slots of a submitter whose requests come from the shared
// request cache (shared-pool requests move between threads, so each takes
// a free slot of the thread that gets it): a ring used first in, first out,
// as PerCpuRequestCache hands out requests and so buffers. Sized at setup;
// Take and Return never allocate, lock or call.
//
//   BufferSlotQueue free_slots(queue_depth);  // slots 0..queue_depth-1 free
//   const uint16_t slot = free_slots.Take();   // the one freed longest ago
//   ... the I/O on `slot` completes ...
//   free_slots.Return(slot);
#ifndef BLKPERF_DAEMON_ENGINE_RING_BUFFER_SLOT_QUEUE_H_
#define BLKPERF_DAEMON_ENGINE_RING_BUFFER_SLOT_QUEUE_H_

#include <cstdint>
#include <vector>

namespace blkperf::internal {

class BufferSlotQueue {
 public:
  BufferSlotQueue() = default;
  // Slots 0 .. slots-1, all free, 0 first out. REQUIRES: slots <= 65536.
  explicit BufferSlotQueue(uint32_t slots)
      : free_(slots), capacity_(slots), count_(slots) {
    for (uint32_t i = 0; i < slots; ++i) free_[i] = static_cast<uint16_t>(i);
  }

  // The free slot freed longest ago, taken. REQUIRES: size() > 0.
  uint16_t Take() {
    const uint16_t slot = free_[head_];
    head_ = head_ + 1 == capacity_ ? 0 : head_ + 1;
    --count_;
    return slot;
  }
  // Frees `slot`. REQUIRES: it was taken and not yet returned.
  void Return(uint16_t slot) {
    const uint32_t tail = head_ + count_;
    free_[tail >= capacity_ ? tail - capacity_ : tail] = slot;
    ++count_;
  }
  // Free slots.
  uint32_t size() const { return count_; }

 private:
  // count_ slots from free_[head_] on, wrapping at capacity_.
  std::vector<uint16_t> free_;
  uint32_t capacity_ = 0;
  uint32_t head_ = 0;
  uint32_t count_ = 0;
};

}  // namespace blkperf::internal

#endif  // BLKPERF_DAEMON_ENGINE_RING_BUFFER_SLOT_QUEUE_H_
