// BuildReport and FormatReportText/Json on hand-built runs: job groups
// merged per group and across hosts exactly, hosts whose groups disagree
// refused, open-loop lines printed as the single-host report prints them.
#include "fleet/report.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/histogram.h"
#include "model/snapshot.h"
#include "report/report.h"
#include "wire/message_json.h"
#include "wire/remote_result.h"
#include "wire/snapshot_convert.h"

namespace blkperf::fleet {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kStart = 5'000'000'000;  // the common start, local clock
constexpr int64_t kRun = 2'000'000'000;    // each host's measured run

// Group `g` of host `k`: its own latencies, intended-time ones when open.
ThreadSnapshot GroupFigures(int k, int g, bool open_loop) {
  ThreadSnapshot t;
  const uint64_t n = 1000 + 300 * k + 700 * g;
  for (uint64_t v = 1; v <= n; ++v) {
    t.latency.Record(v * (90 + 40 * g + 7 * k));
    if (open_loop) t.intended_latency.Record(v * (200 + 40 * g + 7 * k));
  }
  t.ios = n;
  t.bytes = n * (g == 0 ? 4096 : 131072);
  if (g == 0) {
    t.read_ios = t.ios;
    t.read_bytes = t.bytes;
  } else {
    t.write_ios = t.ios;
    t.write_bytes = t.bytes;
  }
  t.late_ios = open_loop ? 5u + k + g : 0u;
  t.sqes = t.enter_calls = n;
  return t;
}

// A completed host with groups "hot" (thread 0) and "log" (thread 1),
// whose measured run starts `start_ns` after the common start.
HostRun Host(int k, int64_t start_ns, bool open_loop) {
  HostRun h;
  h.address = absl::StrCat("h", k, ":7777");
  h.state = HostState::kCompleted;
  h.workload_id = "w1";
  h.go_host_ns = kStart;
  v1::Workload& w = h.workload;
  w.set_workload_id("w1");
  w.set_state(v1::WORKLOAD_STATE_FINISHED);
  const char* names[] = {"hot", "log"};
  for (int g = 0; g < 2; ++g) {
    v1::JobGroup* spec = w.mutable_spec()->add_groups();
    spec->set_name(names[g]);
    spec->add_cpus(g);
    spec->set_op(g == 0 ? v1::OP_RANDREAD : v1::OP_WRITE);
  }
  w.mutable_start()->set_first_submit_monotonic_ns(kStart + start_ns);
  w.mutable_start()->set_measure_start_monotonic_ns(kStart + start_ns);
  v1::Snapshot* s = w.mutable_snapshot();
  s->mutable_elapsed()->set_seconds(kRun / 1'000'000'000);
  ThreadSnapshot total;
  for (int g = 0; g < 2; ++g) {
    const ThreadSnapshot t = GroupFigures(k, g, open_loop);
    total.Merge(t);
    v1::GroupResult* group = s->add_groups();
    group->set_name(names[g]);
    group->add_threads(g);
    ThreadToProto(t, absl::Nanoseconds(kRun), /*with_histogram=*/true,
                  group->mutable_total());
  }
  ThreadToProto(total, absl::Nanoseconds(kRun), /*with_histogram=*/true,
                s->mutable_total());
  // Polled at mid-run and at the end, I/Os at a steady rate.
  h.samples = {{kRun / 2, total.ios / 2, total.bytes / 2},
               {kRun, total.ios, total.bytes}};
  return h;
}

FleetRun GroupsRun(bool open_loop) {
  FleetRun run;
  run.run_id = "r1";
  run.started = true;
  run.start_local_ns = kStart;
  run.hosts.push_back(Host(0, 0, open_loop));
  run.hosts.push_back(Host(1, 100'000'000, open_loop));
  run.hosts.push_back(Host(2, 40'000'000, open_loop));
  run.needed = 3;
  return run;
}

LatencyHistogram FromProto(const v1::LatencyHistogram& proto) {
  absl::StatusOr<LatencyHistogram> h = HistogramFromProto(proto);
  EXPECT_TRUE(h.ok()) << h.status();
  return h.ok() ? *std::move(h) : LatencyHistogram();
}

TEST(ReportTest, MergesEachGroupAcrossHostsExactly) {
  const FleetRun run = GroupsRun(/*open_loop=*/true);
  absl::StatusOr<FleetReport> report = BuildReport(run);
  ASSERT_TRUE(report.ok()) << report.status();
  const v1::Snapshot& merged = report->merged.snapshot();
  ASSERT_EQ(merged.groups_size(), 2);
  double group_iops = 0;
  for (int g = 0; g < 2; ++g) {
    SCOPED_TRACE(g);
    const v1::GroupResult& group = merged.groups(g);
    EXPECT_EQ(group.name(), run.hosts[0].workload.snapshot().groups(g).name());
    EXPECT_THAT(group.threads(), ::testing::ElementsAre(static_cast<uint32_t>(g)));
    uint64_t ios = 0, bytes = 0, late = 0;
    LatencyHistogram latency, intended;
    for (const HostRun& h : run.hosts) {
      const v1::ThreadStats& t = h.workload.snapshot().groups(g).total();
      ios += t.ios();
      bytes += t.bytes();
      late += t.late_ios();
      latency.Merge(FromProto(t.histogram()));
      intended.Merge(FromProto(t.intended_histogram()));
    }
    ASSERT_GT(ios, 0u);
    EXPECT_EQ(group.total().ios(), ios);
    EXPECT_EQ(group.total().bytes(), bytes);
    EXPECT_EQ(group.total().late_ios(), late);
    ASSERT_EQ(group.total().histogram().count(), ios);
    EXPECT_EQ(FromProto(group.total().histogram()), latency);
    EXPECT_EQ(FromProto(group.total().intended_histogram()), intended);
    EXPECT_EQ(group.total().latency().p99_ns(), latency.Percentile(99));
    group_iops += group.total().iops();
  }
  // The groups' rates share out the overlap window's I/Os: they add up to
  // the total's.
  EXPECT_NEAR(group_iops, merged.total().iops(), 1e-6 * merged.total().iops());
  EXPECT_EQ(merged.groups(0).total().ios() + merged.groups(1).total().ios(),
            merged.total().ios());
}

TEST(ReportTest, JsonCarriesTheMergedGroups) {
  absl::StatusOr<FleetReport> report = BuildReport(GroupsRun(/*open_loop=*/false));
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->merged.snapshot().groups_size(), 2);
  const std::string api = FormatReportJson(*report, WorkloadJson::kApi);
  EXPECT_THAT(api, HasSubstr(absl::StrCat(
                       "\"groups\":[", MessageJson(report->merged.snapshot().groups(0),
                                   JsonLayout::kOneLine))));
}

TEST(ReportTest, JsonWorkloadsAreInTheReportSchema) {
  absl::StatusOr<FleetReport> report = BuildReport(GroupsRun(/*open_loop=*/false));
  ASSERT_TRUE(report.ok()) << report.status();
  const std::string json = FormatReportJson(*report);
  absl::StatusOr<RemoteResult> merged = ResultFromProto(report->merged);
  ASSERT_TRUE(merged.ok()) << merged.status();
  std::string expected =
      FormatJsonReport(merged->spec, merged->targets, merged->snapshot);
  expected.pop_back();  // its newline
  EXPECT_THAT(json, HasSubstr(absl::StrCat("\"merged\": ", expected)));
  ASSERT_FALSE(report->hosts.empty());
  absl::StatusOr<RemoteResult> host = ResultFromProto(report->hosts[0].workload);
  ASSERT_TRUE(host.ok()) << host.status();
  expected = FormatJsonReport(host->spec, host->targets, host->snapshot);
  expected.pop_back();
  EXPECT_THAT(json, HasSubstr(absl::StrCat("\"report\": ", expected)));
  EXPECT_THAT(json, Not(HasSubstr("\"unreadable\"")));
}

TEST(ReportTest, TheStartMarginPrintsInWholeMilliseconds) {
  FleetRun run = GroupsRun(/*open_loop=*/false);
  run.margin = absl::Nanoseconds(2'873'630'917);
  absl::StatusOr<FleetReport> report = BuildReport(run);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(FormatReportText(*report), HasSubstr("start margin 2.873s)"));
}

TEST(ReportTest, TextPrintsGroupsAndOpenLoopLinesAsASingleHostDoes) {
  absl::StatusOr<FleetReport> report = BuildReport(GroupsRun(/*open_loop=*/true));
  ASSERT_TRUE(report.ok()) << report.status();
  const std::string text = FormatReportText(*report);
  const v1::ThreadStats& total = report->merged.snapshot().total();
  ASSERT_GT(total.intended_latency().count(), 0u);
  absl::StatusOr<ThreadSnapshot> t = ThreadFromProto(total, "total");
  ASSERT_TRUE(t.ok()) << t.status();
  const std::string open_loop = OpenLoopText(*t);
  EXPECT_THAT(open_loop, HasSubstr("  ilat percentiles: p50="));
  EXPECT_THAT(text, HasSubstr(open_loop));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("  open loop: late=",
                                           total.late_ios(), " of ",
                                           total.ios(), " I/Os")));
  for (const v1::GroupResult& group : report->merged.snapshot().groups()) {
    absl::StatusOr<ThreadSnapshot> g = ThreadFromProto(group.total(), "g");
    ASSERT_TRUE(g.ok()) << g.status();
    const std::string line =
        GroupText(group.name(), "", *g, group.total().iops(),
                  group.total().bytes_per_second());
    // The summary (from the spec) sits between the name and the figures.
    const std::string head = absl::StrCat("  group ", group.name(), ": ");
    EXPECT_THAT(text, HasSubstr(head));
    EXPECT_THAT(text, HasSubstr(line.substr(head.size())));
    EXPECT_THAT(line, HasSubstr(" intended p99="));
  }
  EXPECT_THAT(text, HasSubstr("  group hot: randread"));
  EXPECT_THAT(text, HasSubstr("  group log: write"));
}

TEST(ReportTest, ClosedLoopTextHasNoOpenLoopLines) {
  absl::StatusOr<FleetReport> report = BuildReport(GroupsRun(/*open_loop=*/false));
  ASSERT_TRUE(report.ok()) << report.status();
  const std::string text = FormatReportText(*report);
  ASSERT_THAT(text, HasSubstr("  group hot: "));
  EXPECT_THAT(text, Not(HasSubstr("ilat")));
  EXPECT_THAT(text, Not(HasSubstr("open loop:")));
}

TEST(ReportTest, AHostRefusedTheRealTimeStartWaitIsNoted) {
  FleetRun run = GroupsRun(/*open_loop=*/false);
  for (HostRun& h : run.hosts) {
    v1::StartReport* start = h.workload.mutable_start();
    start->set_scheduled_monotonic_ns(kStart);
    start->set_threads_started(2);
    start->set_realtime_wait_threads(2);
  }
  v1::StartReport* refused = run.hosts[1].workload.mutable_start();
  refused->set_realtime_wait_threads(0);
  refused->set_realtime_wait_error("sched_setscheduler(SCHED_FIFO, 1): no");
  absl::StatusOr<FleetReport> report = BuildReport(run);
  ASSERT_TRUE(report.ok()) << report.status();
  for (const HostRow& row : report->hosts) {
    SCOPED_TRACE(row.address);
    if (row.address == run.hosts[1].address) {
      EXPECT_EQ(row.note,
                "waited for the start at normal priority on 2 of 2 threads "
                "(may start late under load): sched_setscheduler(SCHED_FIFO, "
                "1): no");
    } else {
      EXPECT_EQ(row.note, "");
    }
  }
  EXPECT_THAT(FormatReportText(*report),
              HasSubstr("(waited for the start at normal priority on 2 of 2"));
}

TEST(ReportTest, RefusesHostsWhoseGroupsDisagree) {
  FleetRun run = GroupsRun(/*open_loop=*/false);
  run.hosts[2].workload.mutable_snapshot()->mutable_groups()->SwapElements(0,
                                                                           1);
  absl::StatusOr<FleetReport> report = BuildReport(run);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr("hosts[2].groups[0] is \"log\""));
}

}  // namespace
}  // namespace blkperf::fleet

namespace blkperf::fleet {
namespace {

// Adds phases "none" then "fixed:4096" (the first with group 0's figures,
// the second with group 1's, as full histograms) and A/B results to each
// host of `run`.
void AddPhasesAndAb(FleetRun& run) {
  for (size_t k = 0; k < run.hosts.size(); ++k) {
    v1::Snapshot* s = run.hosts[k].workload.mutable_snapshot();
    const char* strategies[] = {"none", "fixed:4096"};
    for (int p = 0; p < 2; ++p) {
      v1::Phase* phase = s->add_phases();
      phase->set_index(p);
      phase->set_strategy(strategies[p]);
      phase->mutable_start()->set_seconds(p);
      phase->mutable_end()->set_seconds(p + 1);
      phase->mutable_start()->set_nanos(static_cast<int32_t>(k * 1000));
      phase->mutable_end()->set_nanos(static_cast<int32_t>(k * 1000));
      phase->mutable_elapsed()->set_seconds(1);
      ThreadToProto(GroupFigures(static_cast<int>(k), p, false),
                    absl::Seconds(1), /*with_histogram=*/true,
                    phase->mutable_total());
      v1::AbResult* ab = s->add_ab();
      ab->set_strategy(strategies[p]);
      ab->set_slices(4 + static_cast<uint32_t>(k) - p);
      ab->set_median_iops(1000.0 * (k + 1) * (p + 1));
      ab->set_median_bytes_per_second(4096.0 * (k + 1));
    }
  }
}

TEST(ReportTest, MergesPhasesAndAbPerStrategyExactly) {
  FleetRun run = GroupsRun(/*open_loop=*/false);
  AddPhasesAndAb(run);
  absl::StatusOr<FleetReport> report = BuildReport(run);
  ASSERT_TRUE(report.ok()) << report.status();
  const v1::Snapshot& merged = report->merged.snapshot();
  ASSERT_EQ(merged.phases_size(), 2);
  for (int p = 0; p < 2; ++p) {
    SCOPED_TRACE(p);
    const v1::Phase& phase = merged.phases(p);
    EXPECT_EQ(phase.strategy(), run.hosts[0].workload.snapshot().phases(p).strategy());
    uint64_t ios = 0, bytes = 0;
    double iops = 0;
    LatencyHistogram latency;
    for (const HostRun& h : run.hosts) {
      const v1::ThreadStats& t = h.workload.snapshot().phases(p).total();
      ios += t.ios();
      bytes += t.bytes();
      iops += t.iops();
      latency.Merge(FromProto(t.histogram()));
    }
    ASSERT_GT(ios, 0u);
    EXPECT_EQ(phase.total().ios(), ios);
    EXPECT_EQ(phase.total().bytes(), bytes);
    EXPECT_EQ(FromProto(phase.total().histogram()), latency);
    EXPECT_EQ(phase.total().latency().p99_ns(), latency.Percentile(99));
    EXPECT_DOUBLE_EQ(phase.total().iops(), iops);
    EXPECT_EQ(phase.start().seconds(), p);
    EXPECT_EQ(phase.start().nanos(), 0);
    EXPECT_EQ(phase.end().seconds(), p + 1);
    EXPECT_EQ(phase.end().nanos(), 2000);
  }
  ASSERT_EQ(merged.ab_size(), 2);
  // Hosts' medians 1000, 2000, 3000 (x2 for the second strategy).
  EXPECT_EQ(merged.ab(0).strategy(), "none");
  EXPECT_DOUBLE_EQ(merged.ab(0).median_iops(), 6000);
  EXPECT_DOUBLE_EQ(merged.ab(1).median_iops(), 12000);
  EXPECT_DOUBLE_EQ(merged.ab(1).ratio_to_first(), 2.0);
  EXPECT_DOUBLE_EQ(merged.ab(0).median_bytes_per_second(), 4096.0 * 6);
  EXPECT_EQ(merged.ab(0).slices(), 4u);
  EXPECT_EQ(merged.ab(1).slices(), 3u);
  const std::string text = FormatReportText(*report);
  EXPECT_THAT(text, HasSubstr("  phase 1 fixed:4096 [1.000s, 2.000s]: IOPS="));
  EXPECT_THAT(text, HasSubstr("  ab fixed:4096: fleet median IOPS=12000.0 "
                              "(sum of hosts' medians) ratio=2.0000 slices>=3"));
}

TEST(ReportTest, PhasesThatDifferAreNotMergedAndSaySo) {
  FleetRun run = GroupsRun(/*open_loop=*/false);
  AddPhasesAndAb(run);
  run.hosts[2].workload.mutable_snapshot()->mutable_phases(1)->set_strategy(
      "limits");
  absl::StatusOr<FleetReport> report = BuildReport(run);
  ASSERT_TRUE(report.ok()) << report.status();
  const v1::Snapshot& merged = report->merged.snapshot();
  EXPECT_EQ(merged.phases_size(), 0);
  EXPECT_EQ(merged.ab_size(), 2);
  bool named = false;
  for (const std::string& n : merged.notes()) {
    named = named || absl::StrContains(n, "phases not merged: hosts[2].phases[1]");
  }
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace blkperf::fleet
