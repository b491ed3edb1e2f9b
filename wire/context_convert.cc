#include "wire/context_convert.h"

#include <algorithm>
#include <cstdint>

#include "model/histogram.h"
#include "wire/snapshot_convert.h"

namespace blkperf {

// The string facts, one list for both directions.
#define BLKPERF_HOST_FACTS(X)                                              \
  X(blkperf_version) X(blkperf_commit) X(hostname) X(boot_id)             \
  X(kernel_release) X(kernel_version) X(machine) X(cpu_model)             \
  X(online_cpus) X(smt) X(cpu_governor) X(numa_nodes) X(memory_bytes)     \
  X(io_uring_features) X(liburing_version) X(spec_hash)
#define BLKPERF_TARGET_FACTS(X)                                            \
  X(path) X(device) X(model) X(firmware_rev) X(serial) X(wwid)            \
  X(size_bytes) X(logical_block_size) X(physical_block_size)              \
  X(rotational) X(scheduler) X(nomerges) X(rq_affinity) X(nr_requests)    \
  X(max_sectors_kb) X(write_cache) X(numa_node)

void EnvironmentToProto(const Environment& env, v1::Environment* proto) {
#define BLKPERF_TO(f) proto->set_##f(env.f);
  BLKPERF_HOST_FACTS(BLKPERF_TO)
#undef BLKPERF_TO
  for (const TargetEnvironment& t : env.targets) {
    v1::TargetEnvironment* out = proto->add_targets();
#define BLKPERF_TO(f) out->set_##f(t.f);
    BLKPERF_TARGET_FACTS(BLKPERF_TO)
#undef BLKPERF_TO
  }
}

Environment EnvironmentFromProto(const v1::Environment& proto) {
  Environment env;
#define BLKPERF_FROM(f) env.f = SanitizeFact(proto.f());
  BLKPERF_HOST_FACTS(BLKPERF_FROM)
#undef BLKPERF_FROM
  for (const v1::TargetEnvironment& in : proto.targets()) {
    if (env.targets.size() == kMaxEnvironmentTargets) break;
    TargetEnvironment& t = env.targets.emplace_back();
#define BLKPERF_FROM(f) t.f = SanitizeFact(in.f());
    BLKPERF_TARGET_FACTS(BLKPERF_FROM)
#undef BLKPERF_FROM
  }
  return env;
}

namespace {

// A point's sparse interval histogram as a LatencyHistogram: min and max
// are its lowest and highest buckets' bounds (as LatencyHistogram::Subtract
// makes them; the exact ones are not kept).
LatencyHistogram PointHistogram(const SeriesPoint& p) {
  if (p.latency_buckets.empty()) return LatencyHistogram();
  absl::StatusOr<LatencyHistogram> h = LatencyHistogram::FromBuckets(
      p.latency_buckets, p.latency_sum_ns,
      LatencyHistogram::BucketLowerBound(p.latency_buckets.front().first),
      LatencyHistogram::BucketUpperBound(p.latency_buckets.back().first));
  return h.ok() ? *std::move(h) : LatencyHistogram();
}

}  // namespace

void SeriesToProto(const Series& series, v1::Series* proto,
                   bool histograms) {
  DurationToProto(series.interval, proto->mutable_interval());
  proto->set_ticks_per_point(static_cast<uint32_t>(series.ticks_per_point));
  proto->set_downsampled(series.downsampled);
  proto->set_hosts(static_cast<uint32_t>(std::max(series.hosts, 0)));
  for (const SeriesPoint& p : series.points) {
    v1::SeriesPoint* out = proto->add_points();
    DurationToProto(p.start, out->mutable_start());
    DurationToProto(p.length, out->mutable_length());
    out->set_read_ios(p.read_ios);
    out->set_write_ios(p.write_ios);
    out->set_read_bytes(p.read_bytes);
    out->set_write_bytes(p.write_bytes);
    out->set_errors(p.errors);
    out->set_p50_ns(p.p50_ns);
    out->set_p99_ns(p.p99_ns);
    out->set_p99_9_ns(p.p99_9_ns);
    out->set_user_cpu_seconds(p.user_cpu_seconds);
    out->set_system_cpu_seconds(p.system_cpu_seconds);
    if (histograms) HistogramToProto(PointHistogram(p), out->mutable_histogram());
  }
}

Series SeriesFromProto(const v1::Series& proto) {
  Series series;
  series.interval = DurationFromProto(proto.interval());
  series.ticks_per_point =
      static_cast<int>(std::min<uint32_t>(proto.ticks_per_point(), 1u << 30));
  if (series.ticks_per_point < 1) series.ticks_per_point = 1;
  series.downsampled = proto.downsampled();
  series.hosts = static_cast<int>(std::min<uint32_t>(proto.hosts(), 1u << 30));
  for (const v1::SeriesPoint& in : proto.points()) {
    if (series.points.size() > kMaxSeriesPoints) break;
    SeriesPoint& p = series.points.emplace_back();
    p.start = DurationFromProto(in.start());
    p.length = DurationFromProto(in.length());
    p.read_ios = in.read_ios();
    p.write_ios = in.write_ios();
    p.read_bytes = in.read_bytes();
    p.write_bytes = in.write_bytes();
    p.errors = in.errors();
    p.p50_ns = in.p50_ns();
    p.p99_ns = in.p99_ns();
    p.p99_9_ns = in.p99_9_ns();
    p.user_cpu_seconds = in.user_cpu_seconds();
    p.system_cpu_seconds = in.system_cpu_seconds();
    if (in.has_histogram()) {
      absl::StatusOr<LatencyHistogram> h = HistogramFromProto(in.histogram());
      if (h.ok()) {
        p.latency_buckets = h->NonEmptyBuckets();
        p.latency_sum_ns = h->Sum();
      }
    }
  }
  return series;
}

}  // namespace blkperf
