#include "fleet/phase_merge.h"

#include <algorithm>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "wire/merge.h"

namespace blkperf::fleet {
namespace {

int64_t Nanos(const google::protobuf::Duration& d) {
  return d.seconds() * 1000000000 + d.nanos();
}

void SetNanos(int64_t ns, google::protobuf::Duration* d) {
  d->set_seconds(ns / 1000000000);
  d->set_nanos(static_cast<int32_t>(ns % 1000000000));
}

// The hosts' phase `p`, merged; `hosts` checked to have it alike.
absl::StatusOr<v1::Phase> MergePhase(
    const std::vector<const v1::Snapshot*>& hosts, int p) {
  const v1::Phase& first = hosts[0]->phases(p);
  std::vector<v1::ThreadStats> totals;
  double iops = 0, bps = 0;
  int64_t start = Nanos(first.start()), end = Nanos(first.end());
  for (size_t h = 0; h < hosts.size(); ++h) {
    const v1::Phase& phase = hosts[h]->phases(p);
    if (phase.strategy() != first.strategy()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "hosts[", h, "].phases[", p, "].strategy \"", phase.strategy(),
          "\" differs from hosts[0]'s \"", first.strategy(),
          "\" (phases merge only when every host switched alike)"));
    }
    totals.push_back(phase.total());
    iops += phase.total().iops();
    bps += phase.total().bytes_per_second();
    start = std::min(start, Nanos(phase.start()));
    end = std::max(end, Nanos(phase.end()));
  }
  absl::StatusOr<v1::ThreadStats> total = MergeThreadStats(
      totals, absl::Nanoseconds(std::max<int64_t>(end - start, 1)),
      absl::StrCat("hosts[].phases[", p, "]"));
  if (!total.ok()) return total.status();
  total->set_iops(iops);
  total->set_bytes_per_second(bps);
  v1::Phase out;
  out.set_index(first.index());
  out.set_strategy(first.strategy());
  SetNanos(start, out.mutable_start());
  SetNanos(end, out.mutable_end());
  SetNanos(end - start, out.mutable_elapsed());
  out.set_pieces_per_io(total->ios() == 0 ? 0.0
                                          : static_cast<double>(total->sqes()) /
                                                static_cast<double>(total->ios()));
  *out.mutable_total() = *std::move(total);
  return out;
}

}  // namespace

absl::Status MergePhases(const std::vector<const v1::Snapshot*>& hosts,
                         v1::Snapshot& merged) {
  merged.clear_phases();
  if (hosts.empty()) return absl::OkStatus();
  for (size_t h = 1; h < hosts.size(); ++h) {
    if (hosts[h]->phases_size() != hosts[0]->phases_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "hosts[", h, "].phases has ", hosts[h]->phases_size(),
          " phases, hosts[0] ", hosts[0]->phases_size()));
    }
  }
  std::vector<v1::Phase> phases;
  for (int p = 0; p < hosts[0]->phases_size(); ++p) {
    absl::StatusOr<v1::Phase> phase = MergePhase(hosts, p);
    if (!phase.ok()) return phase.status();
    phases.push_back(*std::move(phase));
  }
  for (v1::Phase& phase : phases) *merged.add_phases() = std::move(phase);
  return absl::OkStatus();
}

absl::Status MergeAb(const std::vector<const v1::Snapshot*>& hosts,
                     v1::Snapshot& merged) {
  merged.clear_ab();
  if (hosts.empty()) return absl::OkStatus();
  const v1::Snapshot& first = *hosts[0];
  std::vector<v1::AbResult> ab(first.ab().begin(), first.ab().end());
  for (v1::AbResult& r : ab) {
    r.set_median_iops(0);
    r.set_median_bytes_per_second(0);
  }
  for (size_t h = 0; h < hosts.size(); ++h) {
    if (hosts[h]->ab_size() != first.ab_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "hosts[", h, "].ab has ", hosts[h]->ab_size(), " strategies, hosts[0] ",
          first.ab_size()));
    }
    for (int k = 0; k < first.ab_size(); ++k) {
      const v1::AbResult& r = hosts[h]->ab(k);
      if (r.strategy() != ab[k].strategy()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "hosts[", h, "].ab[", k, "].strategy \"", r.strategy(),
            "\" differs from hosts[0]'s \"", ab[k].strategy(), "\""));
      }
      ab[k].set_slices(std::min(ab[k].slices(), r.slices()));
      ab[k].set_median_iops(ab[k].median_iops() + r.median_iops());
      ab[k].set_median_bytes_per_second(ab[k].median_bytes_per_second() +
                                        r.median_bytes_per_second());
      if (ab[k].note().empty() && !r.note().empty()) {
        ab[k].set_note(absl::StrCat("hosts[", h, "]: ", r.note()));
      }
    }
  }
  const double first_iops = ab.empty() ? 0.0 : ab[0].median_iops();
  for (v1::AbResult& r : ab) {
    r.set_ratio_to_first(first_iops == 0 ? 0.0 : r.median_iops() / first_iops);
    *merged.add_ab() = std::move(r);
  }
  return absl::OkStatus();
}

}  // namespace blkperf::fleet
