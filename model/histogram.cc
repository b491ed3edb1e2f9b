#include "model/histogram.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace blkperf {
namespace {

// Subtraction that stops at 0: a bucket that would go negative means the
// caller broke Subtract's contract, and a wrapped count would wreck every
// percentile downstream.
uint64_t SaturatingSub(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

}  // namespace

absl::StatusOr<LatencyHistogram> LatencyHistogram::FromBuckets(
    absl::Span<const std::pair<int, uint64_t>> buckets, uint64_t sum_ns,
    uint64_t min_ns, uint64_t max_ns) {
  LatencyHistogram h;
  for (const auto& [index, count] : buckets) {
    absl::Status status = h.AddBucket(index, count);
    if (!status.ok()) return status;
  }
  h.SetSum(sum_ns);
  absl::Status status = h.SetMinMax(min_ns, max_ns);
  if (!status.ok()) return status;
  return h;
}

void LatencyHistogram::Record(uint64_t ns) { RecordN(ns, 1); }

void LatencyHistogram::RecordN(uint64_t ns, uint64_t n) {
  if (n == 0) return;
  ns = std::min(ns, kMaxTrackableNs);
  counts_[BucketIndex(ns)] += n;
  count_ += n;
  sum_ns_ += ns * n;
  min_ns_ = std::min(min_ns_, ns);
  max_ns_ = std::max(max_ns_, ns);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (int i = 0; i < kNumBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_ns_ += other.sum_ns_;
  // An empty side holds (max, 0), the identity for min/max.
  min_ns_ = std::min(min_ns_, other.min_ns_);
  max_ns_ = std::max(max_ns_, other.max_ns_);
}

void LatencyHistogram::Subtract(const LatencyHistogram& earlier) {
  uint64_t count = 0;
  for (int i = 0; i < kNumBuckets; ++i) {
    counts_[i] = SaturatingSub(counts_[i], earlier.counts_[i]);
    count += counts_[i];
  }
  // Recount rather than subtract count_, so saturation cannot leave Count()
  // disagreeing with the buckets.
  count_ = count;
  sum_ns_ = SaturatingSub(sum_ns_, earlier.sum_ns_);
  // The later histogram's min/max still bound every value of the interval;
  // clamping them into the delta's extreme buckets is the best estimate.
  ClampMinMaxToBuckets();
}

bool LatencyHistogram::Contains(const LatencyHistogram& earlier) const {
  for (int i = 0; i < kNumBuckets; ++i) {
    if (earlier.counts_[i] > counts_[i]) return false;
  }
  return earlier.sum_ns_ <= sum_ns_;
}

uint64_t LatencyHistogram::Percentile(double p) const {
  if (count_ == 0) return 0;
  // Written so NaN maps to 0.
  if (!(p > 0.0)) p = 0.0;
  if (p > 100.0) p = 100.0;
  // p * count / 100 rather than p / 100 * count: 99.9 / 100 rounds up and
  // would push an exact rank like 99900 of 100000 to 99901.
  const double exact_rank = std::ceil(p * static_cast<double>(count_) / 100.0);
  uint64_t rank = exact_rank < 1.0 ? 1 : static_cast<uint64_t>(exact_rank);
  if (rank >= count_) return max_ns_;
  if (rank == 1) return min_ns_;

  uint64_t seen = 0;
  for (int i = 0; i < kNumBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      return std::clamp(BucketMidpoint(i), min_ns_, max_ns_);
    }
  }
  // Unreachable while count_ equals the sum of the buckets.
  return max_ns_;
}

std::vector<std::pair<int, uint64_t>> LatencyHistogram::NonEmptyBuckets()
    const {
  std::vector<std::pair<int, uint64_t>> buckets;
  for (int i = 0; i < kNumBuckets; ++i) {
    if (counts_[i] != 0) buckets.emplace_back(i, counts_[i]);
  }
  return buckets;
}

absl::Status LatencyHistogram::AddBucket(int index, uint64_t count) {
  if (index < 0 || index >= kNumBuckets) {
    return absl::InvalidArgumentError(
        absl::StrCat("histogram bucket index ", index, " is out of range [0, ",
                     kNumBuckets, ")"));
  }
  if (count == 0) return absl::OkStatus();
  counts_[index] += count;
  count_ += count;
  min_ns_ = std::min(min_ns_, BucketLowerBound(index));
  max_ns_ = std::max(max_ns_, BucketUpperBound(index));
  return absl::OkStatus();
}

absl::Status LatencyHistogram::SetMinMax(uint64_t min_ns, uint64_t max_ns) {
  if (count_ == 0) return absl::OkStatus();
  const int low = LowestBucket();
  if (min_ns < BucketLowerBound(low) || min_ns > BucketUpperBound(low)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "histogram min_ns ", min_ns, " is not in its lowest non-empty bucket ",
        low, " [", BucketLowerBound(low), ", ", BucketUpperBound(low), "]"));
  }
  const int high = HighestBucket();
  if (max_ns < BucketLowerBound(high) || max_ns > BucketUpperBound(high)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "histogram max_ns ", max_ns, " is not in its highest non-empty bucket ",
        high, " [", BucketLowerBound(high), ", ", BucketUpperBound(high), "]"));
  }
  min_ns_ = min_ns;
  max_ns_ = max_ns;
  return absl::OkStatus();
}

int LatencyHistogram::LowestBucket() const {
  int i = 0;
  while (i < kNumBuckets - 1 && counts_[i] == 0) ++i;
  return i;
}

int LatencyHistogram::HighestBucket() const {
  int i = kNumBuckets - 1;
  while (i > 0 && counts_[i] == 0) --i;
  return i;
}

void LatencyHistogram::ClampMinMaxToBuckets() {
  if (count_ == 0) {
    min_ns_ = std::numeric_limits<uint64_t>::max();
    max_ns_ = 0;
    return;
  }
  const int low = LowestBucket();
  const int high = HighestBucket();
  min_ns_ = std::clamp(min_ns_, BucketLowerBound(low), BucketUpperBound(low));
  max_ns_ = std::clamp(max_ns_, BucketLowerBound(high), BucketUpperBound(high));
  // One non-empty bucket, and a live snapshot that read the writer's new
  // min but its max from before (the writer stores min first): max was
  // clamped to the bucket's lower bound, below min. Both lie in that
  // bucket, so max takes min's value. (histogram_test's concurrent test
  // failed on it once in about 40 runs.)
  if (min_ns_ > max_ns_) max_ns_ = min_ns_;
}

void LiveLatencyHistogram::SnapshotTo(LatencyHistogram* out) const {
  // Sum and extremes first, buckets after: on x86-64 (TSO) the writer's
  // bucket store precedes its sum store, so buckets read later are at least
  // as new as the sum and the torn view errs towards counts ahead of sum.
  out->sum_ns_ = sum_ns_.load(std::memory_order_relaxed);
  out->min_ns_ = min_ns_.load(std::memory_order_relaxed);
  out->max_ns_ = max_ns_.load(std::memory_order_relaxed);
  uint64_t count = 0;
  for (int i = 0; i < LatencyHistogram::kNumBuckets; ++i) {
    const uint64_t c = counts_[i].load(std::memory_order_relaxed);
    out->counts_[i] = c;
    count += c;
  }
  out->count_ = count;
  out->ClampMinMaxToBuckets();
}

}  // namespace blkperf
