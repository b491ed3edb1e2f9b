#include "fleet/save_fleet.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "base/bounded_text.h"
#include "model/environment.h"
#include "wire/context_convert.h"

namespace blkperf::fleet {
namespace {

// The hosts' common value of `fact`, or "mixed".
template <typename Fact>
std::string Common(const FleetReport& report, Fact fact) {
  std::string value;
  for (const HostRow& h : report.hosts) {
    const std::string v =
        fact(EnvironmentFromProto(h.workload.snapshot().environment()));
    if (&h == &report.hosts.front()) {
      value = v;
    } else if (v != value) {
      return "mixed";
    }
  }
  return value;
}

}  // namespace

absl::StatusOr<ResultRecord> MergedRecord(const FleetReport& report,
                                          const Tags& tags) {
  absl::StatusOr<ResultRecord> r =
      RemoteResultRecord(report.merged, "blkperf fleet run", tags);
  if (!r.ok()) return r.status();
  r->id = StableResultId(absl::StrCat("fleet/", report.run_id));
  r->run_id = report.run_id;
  r->hostname = absl::StrCat("fleet of ", report.hosts.size(), " hosts");
  r->state = report.outcome;
  r->kernel_release =
      Common(report, [](const Environment& e) { return e.kernel_release; });
  r->target_model = Common(report, [](const Environment& e) {
    return e.targets.empty() ? std::string(kUnknownFact) : e.targets[0].model;
  });
  if (!report.hosts.empty()) {
    r->spec_hash = report.hosts.front().workload.snapshot().environment().spec_hash();
  }
  return r;
}

SaveReport SaveFleetResult(const SaveSettings& save, const FleetReport& report) {
  size_t next = 0;  // 0: the merged result, then report.hosts[next - 1]
  auto record = [&]() -> std::optional<ResultRecord> {
    while (next <= report.hosts.size()) {
      const size_t i = next++;
      absl::StatusOr<ResultRecord> r =
          i == 0 ? MergedRecord(report, save.tags)
                 : RemoteResultRecord(report.hosts[i - 1].workload,
                                      "blkperf fleet run", save.tags);
      if (r.ok()) {
        if (i > 0) r->run_id = report.run_id;
        return *std::move(r);
      }
      const std::string who =
          i == 0 ? std::string("the merged result")
                 : OneLine(report.hosts[i - 1].address, kMaxEchoBytes);
      std::fprintf(stderr, "results store: %s not saved: %s\n", who.c_str(),
                   OneLine(r.status().message(), kMaxLogLineBytes).c_str());
    }
    return std::nullopt;
  };
  return SaveResults(save, record,
                     absl::StrCat("fleet run ", report.run_id));
}

}  // namespace blkperf::fleet
