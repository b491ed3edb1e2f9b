// One stored result: what the results store keeps of a run (docs/results.md)
// — its spec, environment, series, histograms and outcome (as the --json
// report and the wire Snapshot), user tags and ids, plus the columns that
// `blkperf results list` filters on.
//
//   ResultRecord r = MakeResultRecord(spec, targets, snapshot, {...});
//   std::string bytes = EncodeRecord(r);          // the spool's form
//   absl::StatusOr<ResultRecord> back = DecodeRecord(bytes);
#ifndef BLKPERF_STORE_RESULT_RECORD_H_
#define BLKPERF_STORE_RESULT_RECORD_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace blkperf {

using Tags = std::vector<std::pair<std::string, std::string>>;

struct ResultRecord {
  std::string id;          // "r" + 16 hex digits, made by NewResultId()
  int64_t created_unix_ns = 0;
  std::string run_id;      // the workload id or a fleet run id
  std::string source;      // "blkperfd run", "blkperf run"
  std::string hostname;
  std::string kernel_release;
  std::string target_model;  // the first target's
  std::string state;         // "finished", "failed", ...
  double iops = 0;
  double bytes_per_second = 0;
  uint64_t p99_ns = 0;
  std::string spec_summary;
  std::string spec_hash;
  Tags tags;                 // sorted by key, keys unique
  std::string report_json;   // the --json report, one line
  std::string spec_proto;    // v1::WorkloadSpec, serialized
  std::string snapshot_proto;  // v1::Snapshot with histograms, serialized
};

// A fresh random id.
std::string NewResultId();
// The id of the result `key` names (one workload of one daemon's boot):
// the same key, the same id, so saving one result twice (`blkperf run`,
// then `blkperf status` of it) keeps one record.
std::string StableResultId(absl::string_view key);

// "key=value[,key=value...]" -> sorted tags. Keys: [A-Za-z0-9_.-]{1,64};
// values: printable ASCII without ',' and at most 256 bytes. InvalidArgument
// naming `field` and the bad entry otherwise (or for a repeated key).
absl::StatusOr<Tags> ParseTags(absl::string_view text, absl::string_view field);

// A self-describing byte form (magic, version, length-prefixed fields).
std::string EncodeRecord(const ResultRecord& record);
// DataLoss naming what is wrong for bytes EncodeRecord did not make.
absl::StatusOr<ResultRecord> DecodeRecord(absl::string_view bytes);

}  // namespace blkperf

#endif  // BLKPERF_STORE_RESULT_RECORD_H_
