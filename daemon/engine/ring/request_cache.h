// Free lists of preallocated request objects: the user-space twin of the
// kernel's per-cpu bio cache, and the shared baseline it is measured against.
//
// Request objects live in arrays sized at setup (one per queue slot); these
// classes only hand out and take back T*, and never allocate after
// construction. A workload picks one of two cache types, both with the same
// GetBatch/PutRun/Fill interface (Get/Put too) so the submitter is templated
// on it:
//
//   * PerCpuRequestCache (`request_cache: percpu`): each submitter owns a
//     lock-free ring of its requests. The submitter fills it with exactly
//     its queue_depth requests and gives it that capacity, so it never
//     refills from or flushes to the shared pool (a cache used otherwise
//     moves half its capacity at a time); its reap puts whole runs in
//     bulk (PutRun::next_places/Filled).
//   * SharedRequestCache (`request_cache: shared`): every Get and Put takes
//     the shared pool's lock, as the baseline's do.
//
//   SharedRequestPool<Request> pool(total_requests);
//   PerCpuRequestCache<Request> cache(/*capacity=*/queue_depth, &pool);
//   cache.Fill(my_requests.data(), my_requests.size());
//   size_t got = cache.GetBatch(batch, submit_batch);  // a turn's requests
//   {
//     PerCpuRequestCache<Request>::PutRun puts(cache);  // one reap
//     for (Request* done : completed) puts.Put(done);
//   }
#ifndef BLKPERF_DAEMON_ENGINE_RING_REQUEST_CACHE_H_
#define BLKPERF_DAEMON_ENGINE_RING_REQUEST_CACHE_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>

#include "absl/base/attributes.h"
#include "absl/base/internal/raw_logging.h"
#include "absl/base/optimization.h"
#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "base/single_writer.h"

namespace blkperf {

// A fixed-capacity LIFO stack of T* shared by threads. LIFO so the object
// returned is the one most recently released, still warm in some cache.
//
// Locking: absl::Mutex rather than a spinlock. Uncontended it costs about
// the same (one atomic RMW to lock, one to unlock), but when the holder is
// preempted - likely with more submitters than cores - waiters spin briefly
// and then sleep instead of burning the CPU the holder needs.
//
// REQUIRES (all methods): never more than `capacity` objects in the pool;
// size it for every object in circulation. Overfilling aborts.
template <typename T>
class SharedRequestPool {
 public:
  explicit SharedRequestPool(size_t capacity)
      : capacity_(capacity), items_(new T*[capacity]) {}
  SharedRequestPool(const SharedRequestPool&) = delete;
  SharedRequestPool& operator=(const SharedRequestPool&) = delete;

  // The most recently put object, or nullptr when empty.
  [[nodiscard]] T* Get() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return size_ == 0 ? nullptr : items_[--size_];
  }

  void Put(T* obj) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    ABSL_RAW_CHECK(size_ < capacity_, "SharedRequestPool overfilled");
    items_[size_++] = obj;
  }

  // Moves up to `n` objects into out[0..k) under one lock hold and returns
  // k. out[k-1] is the most recently put object, so a caller popping from
  // the back of `out` keeps LIFO order.
  [[nodiscard]] size_t GetBatch(T** out, size_t n) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    const size_t k = std::min(n, size_);
    size_ -= k;
    std::copy(items_.get() + size_, items_.get() + size_ + k, out);
    return k;
  }

  // Pushes in[0..n) under one lock hold; in[n-1] ends on top.
  void PutBatch(T* const* in, size_t n) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    ABSL_RAW_CHECK(n <= capacity_ - size_, "SharedRequestPool overfilled");
    std::copy(in, in + n, items_.get() + size_);
    size_ += n;
  }

  // May be stale by the time the caller looks at it.
  size_t size() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return size_;
  }
  size_t capacity() const { return capacity_; }

 private:
  const size_t capacity_;
  mutable absl::Mutex mu_;
  size_t size_ ABSL_GUARDED_BY(mu_) = 0;
  const std::unique_ptr<T*[]> items_ ABSL_PT_GUARDED_BY(mu_);
};

// One submitter thread's private free list, backed by a SharedRequestPool
// for refills and overflow. Get/Put/Fill/size are owner-thread only;
// hits()/misses() may be read from any thread.
//
// A Get served from the local array is a hit: no lock, no atomic RMW. A Get
// that finds the local array empty is a miss: it takes the pool's lock once
// to refill half the local capacity (returning nullptr if the pool is empty
// too). So hits() + misses() is the number of Get calls.
//
// First in, first out: Get returns the object put longest ago. The engine
// gives each request a buffer of its own, so the order is the order in
// which buffers are used: in turn, every one of them, as t/io_uring uses
// its SQ slots' buffers. A stack would hand the last few freed back again
// and again while the rest sat idle; where I/Os complete inside their
// submit (buffered reads of cached data) that shrank the buffers the CPU
// copies into to one batch's, which stays in its caches (bench/RESULTS.md,
// 2026-12-05).
template <typename T>
class alignas(ABSL_CACHELINE_SIZE) PerCpuRequestCache {
 public:
  // A capacity of 0 is treated as 1.
  // REQUIRES: `backing` is non-null and outlives this cache.
  PerCpuRequestCache(size_t capacity, SharedRequestPool<T>* backing)
      : capacity_(std::max<size_t>(capacity, 1)),
        half_(std::max<size_t>(capacity_ / 2, 1)),
        slots_(new T*[capacity_]),
        backing_(backing) {}
  PerCpuRequestCache(const PerCpuRequestCache&) = delete;
  PerCpuRequestCache& operator=(const PerCpuRequestCache&) = delete;

  // The free object put longest ago; nullptr when this cache and the
  // backing pool are both empty.
  [[nodiscard]] T* Get() {
    if (ABSL_PREDICT_TRUE(size_ > 0)) {
      SingleWriterAdd(hits_, 1);
      T* const obj = slots_[head_];
      head_ = Wrap(head_ + 1);
      --size_;
      return obj;
    }
    return GetSlow();
  }

  // Up to `n` objects into out[0..k), in the order k Get calls would
  // return them and counted as those calls would be (hits and misses); k <
  // n only when this cache and the backing pool run out. One pass for a
  // whole submit batch: the caller's loop then reads a local array.
  size_t GetBatch(T** out, size_t n) {
    size_t k = 0;
    while (k < n) {
      if (ABSL_PREDICT_FALSE(size_ == 0)) {
        T* obj = GetSlow();
        if (obj == nullptr) break;
        out[k++] = obj;
        continue;
      }
      // As far as the ring's end; the rest on the next pass.
      const size_t take = std::min({n - k, size_, capacity_ - head_});
      // A loop the compiler keeps inline: std::copy became a memmove call
      // per batch, a tenth of the NOP loop's own user time (bench/RESULTS.md,
      // 2026-12-06).
      T* const* const from = slots_.get() + head_;
      T** const to = out + k;
#pragma GCC unroll 4
      for (size_t i = 0; i < take; ++i) to[i] = from[i];
      head_ = Wrap(head_ + take);
      size_ -= take;
      k += take;
      SingleWriterAdd(hits_, take);
    }
    return k;
  }

  // Starts loading the lines the next Put and GetBatch touch (a hint: no
  // effect on the cache's state).
  void Prefetch() const {
    __builtin_prefetch(this, 1);
    __builtin_prefetch(slots_.get() + head_, 1);
    __builtin_prefetch(slots_.get() + Wrap(head_ + size_), 1);
  }

  void Put(T* obj) {
    if (ABSL_PREDICT_FALSE(size_ == capacity_)) Flush();
    slots_[Wrap(head_ + size_)] = obj;
    ++size_;
  }

  // The Puts of one pass (a reap), with the ring's tail and count in
  // registers: a loop of Put would store the count and load it back for
  // every object, one store-to-load forwarding after another. PutRun::Put
  // does exactly what Put does; the count is written back when the run
  // ends.
  // REQUIRES: while a run is alive, the cache is used only through it.
  //
  //   {
  //     PerCpuRequestCache<Request>::PutRun puts(cache);
  //     for (Request* done : completed) puts.Put(done);
  //   }  // the cache holds them from here on
  class PutRun {
   public:
    explicit PutRun(PerCpuRequestCache& cache)
        : cache_(cache),
          slots_(cache.slots_.get()),
          capacity_(cache.capacity_),
          tail_(cache.Wrap(cache.head_ + cache.size_)),
          room_(cache.capacity_ - cache.size_) {}
    PutRun(const PutRun&) = delete;
    PutRun& operator=(const PutRun&) = delete;
    ~PutRun() { cache_.size_ = capacity_ - room_; }

    void Put(T* obj) {
      if (ABSL_PREDICT_FALSE(room_ == 0)) {
        cache_.size_ = capacity_;
        cache_.Flush();
        tail_ = cache_.Wrap(cache_.head_ + cache_.size_);
        room_ = capacity_ - cache_.size_;
      }
      PutFitting(obj);
    }
    // How many Puts fit before one flushes.
    size_t room() const { return room_; }
    // A Put that never flushes (so a loop of them calls nothing).
    // REQUIRES: room() > 0.
    void PutFitting(T* obj) {
      slots_[tail_] = obj;
      tail_ = tail_ + 1 == capacity_ ? 0 : tail_ + 1;
      --room_;
    }
    // Puts in bulk: a caller writes up to contiguous_room() objects to
    // next_places()[0..n), in Put order, then calls Filled(n). The places
    // do not wrap, and none flushes; contiguous_room() is 0 only when
    // room() is.
    size_t contiguous_room() const {
      return std::min(room_, capacity_ - tail_);
    }
    T** next_places() const { return slots_ + tail_; }
    // REQUIRES: n <= contiguous_room().
    void Filled(size_t n) {
      tail_ += n;
      if (tail_ == capacity_) tail_ = 0;
      room_ -= n;
    }

   private:
    PerCpuRequestCache& cache_;
    T** const slots_;
    const size_t capacity_;
    size_t tail_;  // where the next object goes
    size_t room_;  // free places left
  };

  // Setup: hands `n` objects to the cache, objs[0] first out. What does
  // not fit locally goes to the backing pool. Counts neither hits nor
  // misses.
  void Fill(T* const* objs, size_t n) {
    const size_t local = std::min(n, capacity_ - size_);
    for (size_t i = 0; i < local; ++i) Put(objs[i]);
    if (local < n) backing_->PutBatch(objs + local, n - local);
  }

  // Objects held locally (not counting the backing pool).
  size_t size() const { return size_; }
  // Calls f(const T*) for each object held locally, next out first.
  template <typename F>
  void ForEachLocal(F&& f) const {
    for (size_t i = 0; i < size_; ++i) f(slots_[Wrap(head_ + i)]);
  }
  size_t capacity() const { return capacity_; }

  uint64_t hits() const { return hits_.load(std::memory_order_relaxed); }
  uint64_t misses() const { return misses_.load(std::memory_order_relaxed); }

 private:
  // A ring position below 2 x capacity_, back into [0, capacity_).
  size_t Wrap(size_t position) const {
    return position >= capacity_ ? position - capacity_ : position;
  }
  // Out of line so Get/Put inline to a compare, a load/store and a counter
  // bump.
  ABSL_ATTRIBUTE_NOINLINE T* GetSlow();
  ABSL_ATTRIBUTE_NOINLINE void Flush();

  const size_t capacity_;
  // Objects moved per refill/flush: half, so a thread alternating Get and
  // Put at the boundary does not hit the lock on every call.
  const size_t half_;
  // The ring: size_ objects from slots_[head_] (the next out) on,
  // wrapping at capacity_.
  size_t head_ = 0;
  size_t size_ = 0;
  const std::unique_ptr<T*[]> slots_;
  SharedRequestPool<T>* const backing_;
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> misses_{0};
};

template <typename T>
T* PerCpuRequestCache<T>::GetSlow() {
  SingleWriterAdd(misses_, 1);
  // Empty: the refill starts the ring afresh.
  head_ = 0;
  size_ = backing_->GetBatch(slots_.get(), half_);
  if (size_ == 0) return nullptr;
  --size_;
  return slots_[head_++];
}

template <typename T>
void PerCpuRequestCache<T>::Flush() {
  // Give away the half put longest ago, in the order it would have left.
  const size_t first = std::min(half_, capacity_ - head_);
  backing_->PutBatch(slots_.get() + head_, first);
  if (first < half_) backing_->PutBatch(slots_.get(), half_ - first);
  head_ = Wrap(head_ + half_);
  size_ -= half_;
}

// The `request_cache: shared` baseline behind PerCpuRequestCache's
// interface: every Get/Put goes to the pool under its lock, and every Get
// counts as a miss (hits() stays 0). Like PerCpuRequestCache, one instance
// per submitter thread; many instances share one pool.
template <typename T>
class alignas(ABSL_CACHELINE_SIZE) SharedRequestCache {
 public:
  // REQUIRES: `pool` is non-null and outlives this cache.
  explicit SharedRequestCache(SharedRequestPool<T>* pool) : pool_(pool) {}
  SharedRequestCache(const SharedRequestCache&) = delete;
  SharedRequestCache& operator=(const SharedRequestCache&) = delete;

  [[nodiscard]] T* Get() {
    SingleWriterAdd(misses_, 1);
    return pool_->Get();
  }
  // n Gets, each under the pool's lock as the baseline's are.
  size_t GetBatch(T** out, size_t n) {
    size_t k = 0;
    while (k < n && (out[k] = Get()) != nullptr) ++k;
    return k;
  }
  void Put(T* obj) { pool_->Put(obj); }
  // PerCpuRequestCache::PutRun's interface: each Put takes the pool's lock.
  class PutRun {
   public:
    explicit PutRun(SharedRequestCache& cache) : cache_(cache) {}
    PutRun(const PutRun&) = delete;
    PutRun& operator=(const PutRun&) = delete;
    void Put(T* obj) { cache_.Put(obj); }
    // Puts never flush here.
    size_t room() const { return std::numeric_limits<size_t>::max(); }
    void PutFitting(T* obj) { cache_.Put(obj); }

   private:
    SharedRequestCache& cache_;
  };
  void Fill(T* const* objs, size_t n) { pool_->PutBatch(objs, n); }

  uint64_t hits() const { return 0; }
  uint64_t misses() const { return misses_.load(std::memory_order_relaxed); }

 private:
  SharedRequestPool<T>* const pool_;
  std::atomic<uint64_t> misses_{0};
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_ENGINE_RING_REQUEST_CACHE_H_
