// The phases (split strategy changes, `fleet split` at one instant) and
// A/B results (--ab) of a fleet run, merged across hosts: what a
// fleet-wide strategy comparison reads.
//
//   absl::Status s = MergePhases(snapshots, *merged.mutable_snapshot());
//   if (!s.ok()) note("phases not merged: ", s.message());
//
// Phase i of the merge is phase i of every host (the hosts must list the
// same strategies in the same order, as a fleet split at one instant
// leaves them): ios, bytes, every counter and every histogram bucket are
// exact sums (wire/merge.h; per-phase histograms must have been fetched),
// percentiles come from the merged histogram; iops and bytes_per_second
// are the sums of each host's rate over its own phase; start and end are
// the earliest start and latest end over the hosts, elapsed between them.
// A/B result k is strategy k of every host (same strategies, same order):
// median_iops and median_bytes_per_second are the sums of the hosts'
// medians (the fleet's rate under that strategy, a slice's median per
// host), slices the fewest any host ran, ratio_to_first that sum over the
// first strategy's.
#ifndef BLKPERF_FLEET_PHASE_MERGE_H_
#define BLKPERF_FLEET_PHASE_MERGE_H_

#include <vector>

#include "absl/status/status.h"
#include "proto/blkperf.pb.h"

namespace blkperf::fleet {

// Sets merged.phases. InvalidArgument naming "hosts[i].phases[p]" (count,
// strategy or a histogram missing) when they cannot be merged; `merged`
// keeps no phases then. REQUIRES: no pointer in `hosts` is null.
absl::Status MergePhases(const std::vector<const v1::Snapshot*>& hosts,
                         v1::Snapshot& merged);

// Sets merged.ab. InvalidArgument naming "hosts[i].ab[k]" when the hosts'
// strategies differ; `merged` keeps no A/B results then.
absl::Status MergeAb(const std::vector<const v1::Snapshot*>& hosts,
                     v1::Snapshot& merged);

}  // namespace blkperf::fleet

#endif  // BLKPERF_FLEET_PHASE_MERGE_H_
