#include "client/results_command.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "base/bounded_text.h"
#include "base/units.h"
#include "cli/output_format.h"
#include "proto/blkperf.pb.h"
#include "report/fio_json.h"
#include "report/report.h"
#include "store/results_store.h"
#include "store/save_result.h"
#include "wire/snapshot_convert.h"
#include "wire/spec_convert.h"

ABSL_FLAG(std::string, filter_host, "", "results list/export: this hostname");
ABSL_FLAG(std::string, filter_kernel, "",
          "results list/export: this kernel release");
ABSL_FLAG(std::string, filter_model, "",
          "results list/export: this (first) target device model");
ABSL_FLAG(std::string, filter_spec_hash, "",
          "results list/export: this resolved-spec hash");
ABSL_FLAG(std::string, since, "",
          "results list/export: created at or after (RFC 3339)");
// results list/export: created before (RFC 3339); one flag with the
// experiments' --until=decided (experiment/flags.cc).
ABSL_DECLARE_FLAG(std::string, until);
ABSL_FLAG(int, limit, 1000, "results list/export: at most this many");
// The one output-format flag (cli/output_format.h); `results export` takes
// ndjson (its default) and csv.
ABSL_DECLARE_FLAG(std::string, output_format);

namespace blkperf {
namespace {

int Usage(const std::string& why) {
  std::cerr << "blkperf results: " << why << "\n";
  return 2;
}

int StoreError(const absl::Status& status) {
  std::cerr << "blkperf results: " << status.message() << "\n";
  return 1;
}

std::string Q(const std::string& text) {
  std::string out = "\"";
  AppendEscaped(text, &out);
  return out + "\"";
}

std::string TimeText(int64_t unix_ns) {
  return absl::FormatTime(absl::RFC3339_sec, absl::FromUnixNanos(unix_ns),
                          absl::UTCTimeZone());
}

std::string TagsJson(const Tags& tags) {
  std::vector<std::string> kv;
  for (const auto& [k, v] : tags) kv.push_back(absl::StrCat(Q(k), ":", Q(v)));
  return absl::StrCat("{", absl::StrJoin(kv, ","), "}");
}

std::string TagsText(const Tags& tags) {
  std::vector<std::string> kv;
  for (const auto& [k, v] : tags) kv.push_back(absl::StrCat(k, "=", v));
  return absl::StrJoin(kv, ",");
}

absl::StatusOr<ResultFilter> FilterFromFlags() {
  ResultFilter f;
  f.hostname = absl::GetFlag(FLAGS_filter_host);
  f.kernel_release = absl::GetFlag(FLAGS_filter_kernel);
  f.target_model = absl::GetFlag(FLAGS_filter_model);
  f.spec_hash = absl::GetFlag(FLAGS_filter_spec_hash);
  for (auto [flag, value, out] :
       {std::tuple{"--since", absl::GetFlag(FLAGS_since), &f.since_unix_ns},
        std::tuple{"--until", absl::GetFlag(FLAGS_until), &f.until_unix_ns}}) {
    if (value.empty()) continue;
    absl::Time t;
    std::string err;
    if (!absl::ParseTime(absl::RFC3339_full, value, &t, &err)) {
      return absl::InvalidArgumentError(absl::StrCat(
          flag, " ", BoundedText(value), " is not an RFC 3339 time: ", err));
    }
    *out = absl::ToUnixNanos(t);
  }
  const int limit = absl::GetFlag(FLAGS_limit);
  if (limit < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--limit ", limit, " must be at least 1"));
  }
  f.limit = static_cast<size_t>(limit);
  absl::StatusOr<Tags> tags = ParseTags(absl::GetFlag(FLAGS_tag), "--tag");
  if (!tags.ok()) return tags.status();
  f.tags = *std::move(tags);
  return f;
}

std::string ListJson(const ResultRecord& r) {
  return absl::StrCat(
      "{\"id\":", Q(r.id), ",\"created\":", Q(TimeText(r.created_unix_ns)),
      ",\"created_unix_ns\":", r.created_unix_ns, ",\"run_id\":", Q(r.run_id),
      ",\"source\":", Q(r.source), ",\"hostname\":", Q(r.hostname),
      ",\"kernel_release\":", Q(r.kernel_release),
      ",\"target_model\":", Q(r.target_model), ",\"state\":", Q(r.state),
      ",\"iops\":", r.iops, ",\"bytes_per_second\":", r.bytes_per_second,
      ",\"p99_ns\":", r.p99_ns, ",\"spec\":", Q(r.spec_summary),
      ",\"spec_hash\":", Q(r.spec_hash), ",\"tags\":", TagsJson(r.tags), "}");
}

int List(ResultsStore& store, bool json) {
  absl::StatusOr<ResultFilter> filter = FilterFromFlags();
  if (!filter.ok()) return Usage(std::string(filter.status().message()));
  absl::StatusOr<std::vector<ResultRecord>> runs = store.List(*filter);
  if (!runs.ok()) return StoreError(runs.status());
  if (json) {
    std::vector<std::string> items;
    for (const ResultRecord& r : *runs) items.push_back(ListJson(r));
    std::cout << "{\"results\":[" << absl::StrJoin(items, ",") << "]}\n";
    return 0;
  }
  for (const ResultRecord& r : *runs) {
    std::cout << r.id << "  " << TimeText(r.created_unix_ns) << "  "
              << r.hostname << "  " << r.kernel_release << "  "
              << r.target_model << "  " << r.state << "  IOPS="
              << FormatCount(r.iops) << "  p99=" << FormatNanos(static_cast<double>(r.p99_ns))
              << "  " << r.spec_summary
              << (r.tags.empty() ? "" : "  tags=" + TagsText(r.tags)) << "\n";
  }
  if (runs->empty()) std::cout << "no results\n";
  return 0;
}

struct Decoded {
  WorkloadSpec spec;
  WorkloadSnapshot snapshot;
};

// The stored state's name back as the state (the snapshot message has none).
WorkloadState StateNamed(const std::string& name) {
  for (int i = 0; i <= static_cast<int>(WorkloadState::kAborted); ++i) {
    const auto state = static_cast<WorkloadState>(i);
    if (WorkloadStateName(state) == name) return state;
  }
  return WorkloadState::kFailed;
}

absl::StatusOr<Decoded> Decode(const ResultRecord& r) {
  v1::WorkloadSpec spec_proto;
  v1::Snapshot snapshot_proto;
  if (!spec_proto.ParseFromString(r.spec_proto) ||
      !snapshot_proto.ParseFromString(r.snapshot_proto)) {
    return absl::DataLossError(
        absl::StrCat("result ", r.id, ": its stored spec or snapshot is damaged"));
  }
  Decoded d;
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(spec_proto);
  if (!spec.ok()) return spec.status();
  d.spec = *std::move(spec);
  absl::StatusOr<WorkloadSnapshot> snapshot = SnapshotFromProto(snapshot_proto);
  if (!snapshot.ok()) return snapshot.status();
  d.snapshot = *std::move(snapshot);
  d.snapshot.state = StateNamed(r.state);
  return d;
}

// A kept result as text, the JSON it was saved with, or fio's JSON
// (--output_format=fio-json|fio-json+, --percentile_list), so a result read
// back months later goes to fio's tools as the run's own output would.
int Show(ResultsStore& store, const std::string& id, bool json) {
  absl::StatusOr<OutputFormat> format = OutputFormatFromFlags(json);
  if (!format.ok()) return Usage(std::string(format.status().message()));
  absl::StatusOr<std::vector<double>> percentiles = PercentileListFromFlags();
  if (!percentiles.ok()) return Usage(std::string(percentiles.status().message()));
  absl::StatusOr<ResultRecord> r = store.Get(id);
  if (!r.ok()) return StoreError(r.status());
  if (*format == OutputFormat::kJson) {
    std::cout << "{\"id\":" << Q(r->id) << ",\"created\":"
              << Q(TimeText(r->created_unix_ns)) << ",\"run_id\":"
              << Q(r->run_id) << ",\"source\":" << Q(r->source)
              << ",\"tags\":" << TagsJson(r->tags)
              << ",\"report\":" << r->report_json << "}\n";
    return 0;
  }
  absl::StatusOr<Decoded> d = Decode(*r);
  if (!d.ok()) return StoreError(d.status());
  if (IsFioFormat(*format)) {
    std::cout << FormatFioJson(
        d->spec, {}, d->snapshot,
        FioJsonOptions{.plus = *format == OutputFormat::kFioJsonPlus,
                       .percentiles = *percentiles});
    return 0;
  }
  std::cout << "result " << r->id << " (" << r->source << ", "
            << TimeText(r->created_unix_ns) << ")"
            << (r->tags.empty() ? "" : " tags " + TagsText(r->tags)) << "\n"
            << FormatTextReport(d->spec, {}, d->snapshot);
  return 0;
}

// One flat record per run x group ("total" and each job group) x direction.
int Export(ResultsStore& store) {
  std::string format = absl::GetFlag(FLAGS_output_format);
  if (format.empty()) format = "ndjson";
  if (format != "ndjson" && format != "csv") {
    return Usage(absl::StrCat("--output_format ", BoundedText(format),
                              ": export writes ndjson or csv"));
  }
  absl::StatusOr<ResultFilter> filter = FilterFromFlags();
  if (!filter.ok()) return Usage(std::string(filter.status().message()));
  absl::StatusOr<std::vector<ResultRecord>> runs = store.List(*filter);
  if (!runs.ok()) return StoreError(runs.status());
  const std::vector<std::string> keys = {
      "id", "created", "run_id", "source", "hostname", "kernel_release",
      "target_model", "state", "spec_hash", "group", "direction", "ios",
      "bytes", "iops", "bytes_per_second", "group_p99_ns", "tags"};
  if (format == "csv") std::cout << absl::StrJoin(keys, ",") << "\n";
  for (const ResultRecord& listed : *runs) {
    absl::StatusOr<ResultRecord> r = store.Get(listed.id);
    if (!r.ok()) return StoreError(r.status());
    absl::StatusOr<Decoded> d = Decode(*r);
    if (!d.ok()) return StoreError(d.status());
    const WorkloadSnapshot& s = d->snapshot;
    std::vector<std::pair<std::string, const ThreadSnapshot*>> groups = {
        {"total", &s.total}};
    for (const GroupSnapshot& g : s.groups) groups.emplace_back(g.name, &g.total);
    const double seconds = absl::ToDoubleSeconds(s.elapsed);
    for (const auto& [group, t] : groups) {
      for (const bool read : {true, false}) {
        const uint64_t ios = read ? t->read_ios : t->write_ios;
        const uint64_t bytes = read ? t->read_bytes : t->write_bytes;
        const std::vector<std::string> values = {
            r->id, TimeText(r->created_unix_ns), r->run_id, r->source,
            r->hostname, r->kernel_release, r->target_model, r->state,
            r->spec_hash, group, read ? "read" : "write", absl::StrCat(ios),
            absl::StrCat(bytes), absl::StrFormat("%.3f", seconds > 0 ? ios / seconds : 0),
            absl::StrFormat("%.3f", seconds > 0 ? bytes / seconds : 0),
            absl::StrCat(t->latency.Percentile(99)), TagsText(r->tags)};
        std::vector<std::string> out;
        for (size_t i = 0; i < keys.size(); ++i) {
          const bool number = i >= 11 && i <= 15;
          if (format == "csv") {
            out.push_back(number ? values[i] : Q(values[i]));
          } else {
            out.push_back(absl::StrCat(Q(keys[i]), ":",
                                       number ? values[i] : Q(values[i])));
          }
        }
        std::cout << (format == "csv"
                          ? absl::StrJoin(out, ",")
                          : absl::StrCat("{", absl::StrJoin(out, ","), "}"))
                  << "\n";
      }
    }
  }
  return 0;
}

}  // namespace

int RunResultsCommand(const std::vector<std::string>& args, bool json) {
  if (args.empty()) return Usage("results list|show ID|export|delete ID");
  const std::string& verb = args[0];
  const size_t want = verb == "show" || verb == "delete" ? 2 : 1;
  if (verb != "list" && verb != "show" && verb != "export" && verb != "delete") {
    return Usage(absl::StrCat("unknown results command ", BoundedText(verb)));
  }
  if (args.size() != want) {
    return Usage(absl::StrCat("results ", verb, " takes ", want - 1,
                              " argument(s)"));
  }
  std::string location = absl::GetFlag(FLAGS_results_db);
  if (location.empty()) location = DefaultResultsDb();
  if (location == "none") return Usage("--results_db=none: there is no store");
  absl::StatusOr<std::unique_ptr<ResultsStore>> store =
      OpenResultsStore(location);
  if (!store.ok()) return StoreError(store.status());
  if (verb == "list") return List(**store, json);
  if (verb == "show") return Show(**store, args[1], json);
  if (verb == "export") return Export(**store);
  const absl::Status deleted = (*store)->Delete(args[1]);
  if (!deleted.ok()) return StoreError(deleted);
  std::cout << "deleted " << args[1] << "\n";
  return 0;
}

}  // namespace blkperf
