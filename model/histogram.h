// Log-linear latency histograms in nanoseconds with one fixed bucket layout,
// so histograms from different threads, workloads and hosts merge exactly by
// adding bucket counts.
//
// The engine gives each submitter thread a LiveLatencyHistogram (one writer,
// lock-free readers); the stats thread snapshots it into a LatencyHistogram,
// a plain value that merges, subtracts, answers percentiles and serializes.
//
//   // Submitter thread, per reaped completion:
//   live.Record(completion_ns - submit_ns);
//
//   // Stats thread, once per interval:
//   LatencyHistogram now;
//   live.SnapshotTo(&now);
//   LatencyHistogram interval = now;
//   interval.Subtract(previous);
//   uint64_t p99 = interval.Percentile(99.0);
//   previous = now;
//
// Bucket layout (other code, e.g. Prometheus export and the wire format,
// rebuilds boundaries from it; do not change it):
//   * values 0..127 ns each have their own bucket: index = value;
//   * for v >= 128: msb = 63 - countl_zero(v), shift = msb - 6,
//     index = 64 * shift + (v >> shift), where v >> shift is in [64, 127];
//   * values above kMaxTrackableNs are clamped to it.
// Every bucket at or above 64 ns is at most 1/64 of its lower bound wide, so
// reporting the bucket midpoint is within 1/128 (< 1%) of any value in it.
#ifndef BLKPERF_MODEL_HISTOGRAM_H_
#define BLKPERF_MODEL_HISTOGRAM_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/single_writer.h"

namespace blkperf {

// A copyable histogram value: the result of a snapshot, a merge or a
// decoded wire message. Not thread-safe; guard it like any other value.
class LatencyHistogram {
 public:
  // Largest value with a bucket of its own (~36 minutes); larger values are
  // recorded as this value, in the last bucket.
  static constexpr uint64_t kMaxTrackableNs = (uint64_t{1} << 41) - 1;
  // Size of the bucket index space, fixed by the layout contract: 128 linear
  // buckets plus 34 groups of 64; BucketIndex(kMaxTrackableNs) is the last.
  static constexpr int kNumBuckets = 64 * 34 + 128;

  // Index of the bucket holding `ns` (clamped to kMaxTrackableNs).
  // Branch-free: OR-ing in 64 makes every value below 128 take shift 0, for
  // which the general formula already yields index == value.
  static constexpr int BucketIndex(uint64_t ns) {
    ns = std::min(ns, kMaxTrackableNs);
    const int shift = 57 - std::countl_zero(ns | 64);
    return 64 * shift + static_cast<int>(ns >> shift);
  }

  // Smallest value in bucket `index`. REQUIRES: 0 <= index < kNumBuckets.
  static constexpr uint64_t BucketLowerBound(int index) {
    if (index < 128) return static_cast<uint64_t>(index);
    const int shift = index / 64 - 1;
    return static_cast<uint64_t>(64 + index % 64) << shift;
  }

  // Largest value in bucket `index` (inclusive).
  // REQUIRES: 0 <= index < kNumBuckets.
  static constexpr uint64_t BucketUpperBound(int index) {
    if (index < 128) return static_cast<uint64_t>(index);
    const int shift = index / 64 - 1;
    return BucketLowerBound(index) + ((uint64_t{1} << shift) - 1);
  }

  // Value reported for anything in bucket `index`: its midpoint.
  static constexpr uint64_t BucketMidpoint(int index) {
    const uint64_t lower = BucketLowerBound(index);
    return lower + (BucketUpperBound(index) - lower) / 2;
  }

  LatencyHistogram() = default;

  // Rebuilds a histogram from its sparse wire form (as NonEmptyBuckets()
  // returns it) plus the exact sum, min and max. Fails with InvalidArgument
  // naming the offending field if a bucket index is out of range or min/max
  // do not fall in the lowest/highest non-empty bucket.
  static absl::StatusOr<LatencyHistogram> FromBuckets(
      absl::Span<const std::pair<int, uint64_t>> buckets, uint64_t sum_ns,
      uint64_t min_ns, uint64_t max_ns);

  // Records one latency. Values above kMaxTrackableNs count as
  // kMaxTrackableNs (in the sum and max too), so the histogram stays
  // consistent with its buckets.
  void Record(uint64_t ns);
  // Records `n` completions that all had latency `ns`.
  void RecordN(uint64_t ns, uint64_t n);

  // Adds `other` bucket by bucket; the result equals having recorded both
  // histograms' values into one.
  void Merge(const LatencyHistogram& other);

  // Turns this histogram into the interval delta `*this - earlier`.
  // REQUIRES: `earlier` is an earlier snapshot of the same recorder, so every
  // bucket count is <= this one's (a count that would go negative saturates
  // at 0 rather than wrapping). Counts and sum are exact; the delta's min and
  // max are not known exactly, so they become the bounds of its lowest and
  // highest non-empty buckets, clamped to this (the later) histogram's min
  // and max.
  void Subtract(const LatencyHistogram& earlier);
  // Whether `earlier` may be subtracted without saturating: each of its
  // buckets holds no more than this one's, and its sum is no larger. True
  // for an earlier snapshot of the same recorder; a caller that cannot be
  // sure (a histogram read back over the wire) checks this first.
  bool Contains(const LatencyHistogram& earlier) const;

  void Clear() { *this = LatencyHistogram(); }

  uint64_t Count() const { return count_; }
  uint64_t Sum() const { return sum_ns_; }
  // Min()/Max()/Mean() are 0 for an empty histogram.
  uint64_t Min() const { return count_ == 0 ? 0 : min_ns_; }
  uint64_t Max() const { return count_ == 0 ? 0 : max_ns_; }
  double Mean() const {
    return count_ == 0
               ? 0.0
               : static_cast<double>(sum_ns_) / static_cast<double>(count_);
  }

  // The value of rank ceil(p / 100 * Count()) (at least 1) in sorted order,
  // `p` clamped to [0, 100]. Reported as its bucket's midpoint clamped to
  // [Min(), Max()]; ranks 1 and Count() return Min() and Max() exactly.
  // Returns 0 when empty.
  uint64_t Percentile(double p) const;

  // REQUIRES: 0 <= index < kNumBuckets.
  uint64_t BucketCount(int index) const { return counts_[index]; }

  // (index, count) of every non-empty bucket in increasing index order: the
  // sparse form for serialization.
  std::vector<std::pair<int, uint64_t>> NonEmptyBuckets() const;

  // Rebuilding from a sparse wire form, for decoders that stream buckets
  // rather than use FromBuckets(). AddBucket widens Min()/Max() to the
  // bucket's bounds; SetSum()/SetMinMax() then install the exact values.
  // AddBucket fails with InvalidArgument naming the index if it is outside
  // [0, kNumBuckets).
  absl::Status AddBucket(int index, uint64_t count);
  void SetSum(uint64_t sum_ns) { sum_ns_ = sum_ns; }
  // Fails with InvalidArgument if the histogram is non-empty and `min_ns`
  // (`max_ns`) is not inside the lowest (highest) non-empty bucket. Ignored
  // on an empty histogram.
  absl::Status SetMinMax(uint64_t min_ns, uint64_t max_ns);

  friend bool operator==(const LatencyHistogram&,
                         const LatencyHistogram&) = default;

 private:
  friend class LiveLatencyHistogram;

  // Index of the lowest/highest non-empty bucket. REQUIRES: count_ > 0.
  int LowestBucket() const;
  int HighestBucket() const;
  // Clamps min_ns_/max_ns_ into the extreme non-empty buckets' bounds (or
  // resets them when empty). Keeps Percentile()'s clamp meaningful after
  // operations that only know min/max approximately.
  void ClampMinMaxToBuckets();

  std::array<uint64_t, kNumBuckets> counts_{};
  uint64_t count_ = 0;
  uint64_t sum_ns_ = 0;
  // Empty state is (max, 0) so Record/Merge need no emptiness branch.
  uint64_t min_ns_ = std::numeric_limits<uint64_t>::max();
  uint64_t max_ns_ = 0;
};

// The engine's per-thread recorder. Exactly one thread (the submitter that
// reaps the completions) may call Record/RecordN; any number of other threads
// may call SnapshotTo concurrently.
//
// Every field is a std::atomic written with a relaxed load and a relaxed
// store, never a read-modify-write: with a single writer no update can be
// lost, and on x86-64 this compiles to a plain add on a line only this thread
// writes. The atomics exist solely so concurrent readers are not a data race.
class alignas(ABSL_CACHELINE_SIZE) LiveLatencyHistogram {
 public:
  LiveLatencyHistogram() = default;
  LiveLatencyHistogram(const LiveLatencyHistogram&) = delete;
  LiveLatencyHistogram& operator=(const LiveLatencyHistogram&) = delete;

  // Writer thread only. Same clamping as LatencyHistogram::Record.
  void Record(uint64_t ns) { RecordN(ns, 1); }

  // Writer thread only: `n` I/Os reaped in one batch with the same latency.
  // Inlined into the submitter loop, like its other per-turn work.
  ABSL_ATTRIBUTE_ALWAYS_INLINE void RecordN(uint64_t ns, uint64_t n) {
    if (ABSL_PREDICT_FALSE(n == 0)) return;
    ns = std::min(ns, LatencyHistogram::kMaxTrackableNs);
    const int bucket = LatencyHistogram::BucketIndex(ns);
    SingleWriterAdd(counts_[bucket], n);
    last_bucket_ = bucket;
    SingleWriterAdd(sum_ns_, ns * n);
    // Unconditional stores keep this branch-free; the line is already dirty
    // from sum_ns_.
    min_ns_.store(std::min(min_ns_.load(std::memory_order_relaxed), ns),
                  std::memory_order_relaxed);
    max_ns_.store(std::max(max_ns_.load(std::memory_order_relaxed), ns),
                  std::memory_order_relaxed);
  }

  // Any thread. Copies the current state into `*out` with relaxed loads.
  //
  // The copy is not a single instant: the writer may record while it is
  // taken, so some buckets may include a completion that sum (or min/max)
  // does not yet reflect, or vice versa. To keep the snapshot self-consistent
  // anyway, its Count() is computed from the copied bucket counts, and its
  // min/max are clamped into the bounds of its lowest/highest non-empty
  // bucket. Only Sum() (hence Mean()) may be off by the few completions
  // recorded during the copy.
  void SnapshotTo(LatencyHistogram* out) const;

  // Writer thread only: starts loading the line of the hot scalars and the
  // one of the bucket recorded last (a hint: no effect on the counts). A
  // writer whose next record likely lands near its last one calls it ahead
  // of RecordN, so that the bucket's page walk overlaps other work.
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Prefetch() const {
    __builtin_prefetch(this, 1);
    __builtin_prefetch(&counts_[last_bucket_], 1);
  }

 private:
  // Hot scalars first, on the object's first cache line.
  std::atomic<uint64_t> sum_ns_{0};
  std::atomic<uint64_t> min_ns_{std::numeric_limits<uint64_t>::max()};
  std::atomic<uint64_t> max_ns_{0};
  int last_bucket_ = 0;  // the writer's own: Prefetch's hint
  std::array<std::atomic<uint64_t>, LatencyHistogram::kNumBuckets> counts_{};
};

}  // namespace blkperf

#endif  // BLKPERF_MODEL_HISTOGRAM_H_
