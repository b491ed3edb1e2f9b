#include "store/save_result.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "report/report.h"
#include "store/results_store.h"
#include "wire/remote_result.h"
#include "wire/snapshot_convert.h"
#include "wire/spec_convert.h"

ABSL_FLAG(std::string, results_db, "",
          "Where results are kept: an SQLite file path, \"none\", or "
          "postgresql://... (docs/results.md). Default: $BLKPERF_RESULTS_DB, "
          "else the user's data directory (blkperf/results.sqlite).");
ABSL_FLAG(std::string, tag, "",
          "Tags stored with the result: key=value[,key=value...].");

namespace blkperf {
namespace {

template <typename Message>
std::string Deterministic(const Message& m) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    m.SerializeToCodedStream(&coded);
  }
  return bytes;
}

}  // namespace

absl::StatusOr<SaveSettings> SaveSettingsFromFlags() {
  SaveSettings s;
  std::string location = absl::GetFlag(FLAGS_results_db);
  if (location.empty()) location = DefaultResultsDb();
  if (location != "none") {
    if (absl::Status ok = CheckStoreLocation(location); !ok.ok()) return ok;
    s.location = location;
    s.spool_dir = SpoolDirFor(location);
  }
  absl::StatusOr<Tags> tags = ParseTags(absl::GetFlag(FLAGS_tag), "--tag");
  if (!tags.ok()) return tags.status();
  s.tags = *std::move(tags);
  return s;
}

ResultRecord MakeResultRecord(const WorkloadSpec& spec,
                              const std::vector<TargetInfo>& targets,
                              const WorkloadSnapshot& s,
                              const std::string& run_id,
                              const std::string& source, const Tags& tags) {
  ResultRecord r;
  r.id = NewResultId();
  r.created_unix_ns = absl::ToUnixNanos(absl::Now());
  r.run_id = run_id;
  r.source = source;
  r.hostname = s.environment.hostname;
  r.kernel_release = s.environment.kernel_release;
  r.target_model = s.environment.targets.empty()
                       ? std::string(kUnknownFact)
                       : s.environment.targets[0].model;
  r.state = std::string(WorkloadStateName(s.state));
  r.iops = s.total.Iops(s.elapsed);
  r.bytes_per_second = s.total.BytesPerSecond(s.elapsed);
  r.p99_ns = s.total.latency.Percentile(99);
  r.spec_summary = SpecSummary(spec);
  r.spec_hash = s.environment.spec_hash;
  r.tags = tags;
  r.report_json = FormatJsonReport(spec, targets, s);
  while (!r.report_json.empty() && r.report_json.back() == '\n') {
    r.report_json.pop_back();
  }
  v1::WorkloadSpec spec_proto;
  SpecToProto(spec, &spec_proto);
  r.spec_proto = Deterministic(spec_proto);
  v1::Snapshot snapshot_proto;
  SnapshotToProto(s, SnapshotProtoOptions{.thread_histograms = true,
                                          .phase_histograms = true,
                                          .series_histograms = true},
                  &snapshot_proto);
  r.snapshot_proto = Deterministic(snapshot_proto);
  return r;
}

absl::StatusOr<ResultRecord> RemoteResultRecord(const v1::Workload& workload,
                                                const std::string& source,
                                                const Tags& tags) {
  absl::StatusOr<RemoteResult> result = ResultFromProto(workload);
  if (!result.ok()) return result.status();
  ResultRecord r = MakeResultRecord(result->spec, result->targets,
                                    result->snapshot, workload.workload_id(),
                                    source, tags);
  if (!workload.run_id().empty()) r.run_id = workload.run_id();
  const Environment& env = result->snapshot.environment;
  r.id = StableResultId(absl::StrCat(
      env.hostname, "/", env.boot_id, "/", workload.workload_id(), "/",
      result->snapshot.start.first_monotonic_ns));
  return r;
}

SaveReport SaveResults(const SaveSettings& settings,
                       const std::function<std::optional<ResultRecord>()>& next,
                       const std::string& what) {
  SaveReport report;
  if (settings.location.empty()) return report;
  report = SaveOrSpoolEach(OpenResultsStore, settings.location,
                           settings.spool_dir, next);
  std::fputs(report.message.c_str(), stderr);
  if (report.saved_count > 0) {
    std::fprintf(stderr, "results store: saved %d result(s) of %s in %s\n",
                 report.saved_count, what.c_str(), settings.location.c_str());
  }
  return report;
}

SaveReport SaveResult(const SaveSettings& settings, const ResultRecord& record,
                      bool announce) {
  SaveReport report;
  if (settings.location.empty()) return report;
  report = SaveOrSpool(OpenResultsStore, settings.location, settings.spool_dir,
                       record);
  std::fputs(report.message.c_str(), stderr);
  if (report.saved && announce) {
    std::fprintf(stderr, "results store: saved as %s in %s\n",
                 record.id.c_str(), settings.location.c_str());
  }
  return report;
}

}  // namespace blkperf
