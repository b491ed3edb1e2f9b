// A fleet result end to end through the report and the results store, on
// hand-built hosts: the merged series folded host by host (exact
// per-interval histograms), then the merged record and every host's saved
// and read back whole (report, environment and series equal to what was
// saved), on SQLite and on PostgreSQL. The PostgreSQL case runs in
// //fleet:save_fleet_postgres_test, under store/testing/with_postgres.sh
// (which sets $BLKPERF_TEST_POSTGRES); without a server it fails.
#include "fleet/save_fleet.h"

#include <postgresql/libpq-fe.h>
#include <unistd.h>

#include <atomic>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "fleet/orchestrator.h"
#include "fleet/report.h"
#include "model/histogram.h"
#include "model/series.h"
#include "model/snapshot.h"
#include "store/results_store.h"
#include "wire/context_convert.h"
#include "wire/snapshot_convert.h"

namespace blkperf::fleet {
namespace {

constexpr int64_t kStart = 5'000'000'000;
constexpr int kSeconds = 3;

// Host k: 1000 * (k + 1) reads a second at 100 us * (k + 1), 3 s and a
// partial 4th interval; its final series carries the intervals' histograms
// as GetWorkload sends them with ended_series_histograms.
HostRun Host(int k, const std::shared_ptr<SeriesMerger>& series) {
  HostRun h;
  h.address = absl::StrCat("h", k, ":7777");
  h.state = HostState::kCompleted;
  h.workload_id = "w1";
  h.go_host_ns = kStart;
  h.series = series;
  v1::Workload& w = h.workload;
  w.set_workload_id("w1");
  w.set_state(v1::WORKLOAD_STATE_FINISHED);
  v1::JobGroup* group = w.mutable_spec()->add_groups();
  group->set_op(v1::OP_RANDREAD);
  w.mutable_start()->set_first_submit_monotonic_ns(kStart);
  w.mutable_start()->set_measure_start_monotonic_ns(kStart);
  v1::Snapshot* s = w.mutable_snapshot();
  s->mutable_elapsed()->set_seconds(kSeconds);
  s->mutable_elapsed()->set_nanos(400'000'000);
  Series model;
  model.interval = absl::Seconds(1);
  ThreadSnapshot total;
  for (int i = 0; i <= kSeconds; ++i) {
    SeriesPoint& p = model.points.emplace_back();
    p.start = absl::Seconds(i);
    p.length = i < kSeconds ? absl::Seconds(1) : absl::Milliseconds(400);
    p.read_ios = i < kSeconds ? 1000 * (k + 1) : 400 * (k + 1);
    p.read_bytes = p.read_ios * 4096;
    LatencyHistogram h;
    h.RecordN(100'000 * (k + 1), p.read_ios);
    p.latency_buckets = h.NonEmptyBuckets();
    p.latency_sum_ns = h.Sum();
    total.latency.Merge(h);
    total.ios += p.read_ios;
    total.read_ios += p.read_ios;
    total.bytes += p.read_bytes;
    total.read_bytes += p.read_bytes;
  }
  ThreadToProto(total, absl::Milliseconds(3400), /*with_histogram=*/true,
                s->mutable_total());
  SeriesToProto(model, s->mutable_series(), /*histograms=*/true);
  v1::Environment* env = s->mutable_environment();
  env->set_hostname(absl::StrCat("host", k));
  env->set_boot_id(absl::StrCat("boot", k));
  env->set_kernel_release("6.1.0-test");
  env->add_targets()->set_model(k == 2 ? "Other SSD" : "Test SSD");
  h.samples = {{1'700'000'000, total.ios / 2, total.bytes / 2},
               {3'400'000'000, total.ios, total.bytes}};
  // What the orchestrator's Record does when the host finishes.
  series->Add(h.address, *w.mutable_snapshot()->mutable_series());
  return h;
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir ? dir : "/tmp", "/", getpid(), "_", name);
}

// A new database on the test's PostgreSQL server, as a store location.
std::string FreshPostgresDatabase() {
  const char* server = std::getenv("BLKPERF_TEST_POSTGRES");
  EXPECT_NE(server, nullptr)
      << "no $BLKPERF_TEST_POSTGRES: run under store/testing/with_postgres.sh "
         "(//fleet:save_fleet_postgres_test)";
  if (server == nullptr) return "";
  static std::atomic<int> counter{0};
  const std::string name = absl::StrCat("fleet", getpid(), "_", counter++);
  PGconn* conn = PQconnectdb(absl::StrCat(server, "/postgres").c_str());
  EXPECT_EQ(PQstatus(conn), CONNECTION_OK) << PQerrorMessage(conn);
  PGresult* r = PQexec(conn, absl::StrCat("CREATE DATABASE ", name).c_str());
  EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  PQclear(r);
  PQfinish(conn);
  return absl::StrCat(server, "/", name);
}

struct StoreCase {
  std::string name;
  std::string (*location)();
};

class SaveFleetTest : public ::testing::TestWithParam<StoreCase> {};

bool Equal(const google::protobuf::Message& a,
           const google::protobuf::Message& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

TEST_P(SaveFleetTest, MergedSeriesAndEveryHostRoundTripThroughTheStore) {
  FleetRun run;
  run.run_id = "fleet-r1";
  run.started = true;
  run.start_local_ns = kStart;
  const auto series = std::make_shared<SeriesMerger>();
  for (int k = 0; k < 3; ++k) run.hosts.push_back(Host(k, series));
  run.needed = 3;
  absl::StatusOr<FleetReport> report = BuildReport(run);
  ASSERT_TRUE(report.ok()) << report.status();

  // The merged series: 3 complete intervals, each the exact sum.
  const v1::Series& merged = report->merged.snapshot().series();
  EXPECT_EQ(merged.hosts(), 3u);
  ASSERT_EQ(merged.points_size(), kSeconds);
  for (const v1::SeriesPoint& p : merged.points()) {
    EXPECT_EQ(p.read_ios(), 6000u);
    // 6000 I/Os: 1000 at 100 us, 2000 at 200 us, 3000 at 300 us. p50
    // (rank 3000) is 200 us; a mean of the hosts' p50s would be 200 us too,
    // but p99 (rank 5940) is 300 us where the mean of p99s is 200 us.
    EXPECT_EQ(p.p50_ns(), LatencyHistogram::BucketMidpoint(
                              LatencyHistogram::BucketIndex(200'000)));
    EXPECT_EQ(p.p99_ns(), LatencyHistogram::BucketMidpoint(
                              LatencyHistogram::BucketIndex(300'000)));
  }

  const std::string db = GetParam().location();
  ASSERT_FALSE(db.empty());
  const SaveSettings save{.location = db,
                          .spool_dir = TempPath(GetParam().name + ".spool"),
                          .tags = {{"case", "fleet"}}};
  const SaveReport saved = SaveFleetResult(save, *report);
  EXPECT_TRUE(saved.saved) << saved.error << saved.message;
  EXPECT_EQ(saved.saved_count, 4);
  // Saving again keeps one record each (stable ids).
  EXPECT_EQ(SaveFleetResult(save, *report).saved_count, 4);

  auto store = OpenResultsStore(db);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::vector<ResultRecord>> listed =
      (*store)->List({.tags = {{"case", "fleet"}}});
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 4u);
  std::vector<std::string> hosts;
  for (const ResultRecord& r : *listed) {
    EXPECT_EQ(r.run_id, "fleet-r1");
    EXPECT_EQ(r.source, "blkperf fleet run");
    hosts.push_back(r.hostname);
    absl::StatusOr<ResultRecord> whole = (*store)->Get(r.id);
    ASSERT_TRUE(whole.ok()) << whole.status();
    v1::Snapshot snapshot;
    ASSERT_TRUE(snapshot.ParseFromString(whole->snapshot_proto));
    if (r.hostname == "fleet of 3 hosts") {
      EXPECT_EQ(r.state, "completed");
      EXPECT_EQ(r.kernel_release, "6.1.0-test");
      EXPECT_EQ(r.target_model, "mixed");
      EXPECT_EQ(snapshot.series().hosts(), 3u);
      EXPECT_EQ(snapshot.series().points_size(), kSeconds);
      EXPECT_EQ(snapshot.total().ios(), report->merged.snapshot().total().ios());
    } else {
      EXPECT_EQ(snapshot.series().points_size(), kSeconds + 1);
      EXPECT_EQ(r.kernel_release, "6.1.0-test");
      // The host's record reads back as it was saved: its report, spec,
      // environment and series (the points' percentiles; the histograms
      // were dropped once folded into the fleet's series).
      const HostRow* host = nullptr;
      for (const HostRow& h : report->hosts) {
        if (h.workload.snapshot().environment().hostname() == r.hostname) {
          host = &h;
        }
      }
      ASSERT_NE(host, nullptr) << r.hostname;
      absl::StatusOr<ResultRecord> saved_record = RemoteResultRecord(
          host->workload, "blkperf fleet run", save.tags);
      ASSERT_TRUE(saved_record.ok()) << saved_record.status();
      EXPECT_FALSE(whole->report_json.empty());
      EXPECT_EQ(whole->report_json, saved_record->report_json);
      v1::Snapshot saved;
      ASSERT_TRUE(saved.ParseFromString(saved_record->snapshot_proto));
      EXPECT_TRUE(Equal(snapshot.environment(), saved.environment()))
          << snapshot.environment().DebugString();
      EXPECT_TRUE(Equal(snapshot.series(), saved.series()))
          << snapshot.series().DebugString();
      EXPECT_TRUE(Equal(snapshot, saved));
      v1::WorkloadSpec spec;
      v1::WorkloadSpec saved_spec;
      ASSERT_TRUE(spec.ParseFromString(whole->spec_proto));
      ASSERT_TRUE(saved_spec.ParseFromString(saved_record->spec_proto));
      EXPECT_TRUE(Equal(spec, saved_spec));
      // ... and what was saved is the host's own: its environment's facts
      // and its series' points.
      const v1::Environment& env = host->workload.snapshot().environment();
      EXPECT_EQ(snapshot.environment().boot_id(), env.boot_id());
      EXPECT_EQ(snapshot.environment().kernel_release(), env.kernel_release());
      ASSERT_EQ(snapshot.environment().targets_size(), 1);
      EXPECT_EQ(snapshot.environment().targets(0).model(), env.targets(0).model());
      const v1::Series& series = host->workload.snapshot().series();
      ASSERT_EQ(snapshot.series().points_size(), series.points_size());
      for (int i = 0; i < series.points_size(); ++i) {
        EXPECT_EQ(snapshot.series().points(i).read_ios(),
                  series.points(i).read_ios());
        EXPECT_EQ(snapshot.series().points(i).p99_ns(),
                  series.points(i).p99_ns());
      }
      EXPECT_EQ(snapshot.total().ios(), host->workload.snapshot().total().ios());
      EXPECT_EQ(whole->tags, (Tags{{"case", "fleet"}}));
    }
  }
  EXPECT_THAT(hosts, ::testing::UnorderedElementsAre(
                         "fleet of 3 hosts", "host0", "host1", "host2"));
}

INSTANTIATE_TEST_SUITE_P(
    Stores, SaveFleetTest,
    ::testing::Values(StoreCase{"Sqlite", [] { return TempPath("fleet.sqlite"); }},
                      StoreCase{"Postgres", FreshPostgresDatabase}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace blkperf::fleet
