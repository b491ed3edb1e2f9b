#include "daemon/engine/ring/shaped_issuer.h"

#include "base/status_macros.h"

namespace blkperf::internal {

absl::StatusOr<ShapedIssuer> ShapedIssuer::Create(
    const GroupShape& group, const std::vector<uint64_t>& target_sizes,
    uint32_t thread_in_group) {
  ShapedIssuer issuer;
  BLKPERF_ASSIGN_OR_RETURN(
      issuer.shaper_, IoShaper::Create(group, target_sizes, thread_in_group));
  issuer.write_kind_ = OpTrims(group.op) ? kTrimIo : kWriteIo;
  issuer.sync_every_ = group.sync_every;
  issuer.writes_to_sync_ = group.sync_every;
  return issuer;
}

RatePacer::Rate ShapedIssuer::ThreadRate(const GroupShape& group) {
  RatePacer::Rate rate;
  rate.arrivals = group.arrivals;
  if (group.rate_iops != 0) {
    rate.per_second = static_cast<double>(group.rate_iops) / group.threads;
  } else if (group.rate_bw != 0) {
    rate.per_second = static_cast<double>(group.rate_bw) / group.threads;
    rate.per_byte = true;
  }
  return rate;
}

}  // namespace blkperf::internal
