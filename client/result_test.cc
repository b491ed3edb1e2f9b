#include "client/result.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/report.h"
#include "wire/snapshot_convert.h"
#include "wire/spec_convert.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

ThreadSnapshot Thread(int index, uint64_t ios, uint64_t latency_ns) {
  ThreadSnapshot t;
  t.thread_index = index;
  t.cpu = index;
  t.ios = ios;
  t.bytes = ios * (1 << 20);
  t.read_ios = ios;
  t.read_bytes = t.bytes;
  t.sqes = ios * 8;
  t.enter_calls = ios / 4;
  t.cache_hits = ios;
  t.user_cpu_seconds = 0.25;
  t.system_cpu_seconds = 1.5;
  t.io_worker_cpu_seconds = 0.5;
  for (uint64_t i = 0; i < ios; ++i) t.latency.Record(latency_ns + 13 * i);
  return t;
}

// A finished 1 MiB-read A/B run on a loop device, in the engine's terms.
struct Local {
  WorkloadSpec spec;
  std::vector<TargetInfo> targets;
  WorkloadSnapshot snapshot;
};

Local SampleRun() {
  Local local;
  local.spec.targets.push_back({.path = "/dev/loop7"});
  local.spec.op = Op::kRead;
  local.spec.block_size = 1 << 20;
  local.spec.queue_depth = 4;
  local.spec.submit_batch = 4;
  local.spec.complete_batch = 4;
  local.spec.threads = 2;
  local.spec.cpus = {0, 1};
  local.spec.runtime = absl::Seconds(4);
  local.spec.force_async = true;
  local.spec.ab_strategies = {SplitStrategy{SplitStrategy::Kind::kNone, 0},
                              SplitStrategy{SplitStrategy::Kind::kLimits, 0}};
  TargetInfo target;
  target.path = "/dev/loop7";
  target.resolved_path = "/dev/loop7";
  target.kind = TargetKind::kBlockDevice;
  target.size_bytes = 1ull << 30;
  target.logical_block_size = 512;
  target.physical_block_size = 512;
  target.device_name = "loop7";
  target.limits.max_sectors_kb = 128;
  target.limits.scheduler = "none";
  local.targets.push_back(target);

  WorkloadSnapshot& s = local.snapshot;
  s.state = WorkloadState::kFinished;
  s.taken = absl::FromUnixSeconds(1700000000);
  s.elapsed = absl::Seconds(4);
  s.threads = {Thread(0, 400, 900000), Thread(1, 600, 700000)};
  s.total.Merge(s.threads[0]);
  s.total.Merge(s.threads[1]);
  s.ring.setup_flags = {"SINGLE_ISSUER"};
  s.ring.fixed_buffers = true;
  s.split_strategy = "limits";
  s.device = {.available = true,
              .requests = 8000,
              .merges = 0,
              .sectors = 2048000,
              .requests_per_sqe = 1.0};
  ThreadSnapshot first = Thread(-1, 400, 900000);
  ThreadSnapshot second = s.total;
  second.Subtract(first);
  s.phases.push_back({.index = 0,
                      .strategy = "none",
                      .start = absl::ZeroDuration(),
                      .end = absl::Seconds(2),
                      .elapsed = absl::Seconds(2),
                      .total = first,
                      .device = {.available = true,
                                 .requests = 4000,
                                 .requests_per_sqe = 1.0}});
  s.phases.push_back({.index = 1,
                      .strategy = "limits",
                      .start = absl::Seconds(2),
                      .end = absl::Seconds(4),
                      .elapsed = absl::Seconds(2),
                      .total = second,
                      .device = {.available = true,
                                 .requests = 4000,
                                 .requests_per_sqe = 1.0}});
  s.ab.push_back({.strategy = "none",
                  .slices = 1,
                  .median_iops = 250,
                  .median_bytes_per_second = 250.0 * (1 << 20),
                  .ratio_to_first = 1});
  s.ab.push_back({.strategy = "limits",
                  .slices = 1,
                  .median_iops = 250,
                  .median_bytes_per_second = 250.0 * (1 << 20),
                  .ratio_to_first = 1});
  s.notes = {"force_async: every SQE goes to io-wq"};
  return local;
}

// What the daemon sends for `local` (GetWorkload with every histogram).
v1::Workload Remote(const Local& local) {
  v1::Workload w;
  w.set_workload_id("w7");
  w.set_state(StateToProto(local.snapshot.state));
  SpecToProto(local.spec, w.mutable_spec());
  SnapshotToProto(local.snapshot,
                  {.thread_histograms = true, .phase_histograms = true},
                  w.mutable_snapshot());
  w.set_split(local.snapshot.split_strategy);
  for (const TargetInfo& t : local.targets) {
    TargetInfoToProto(t, w.add_targets());
  }
  return w;
}

TEST(ResultTest, PrintsExactlyWhatBlkperfdRunPrints) {
  const Local local = SampleRun();
  absl::StatusOr<RemoteResult> remote = ResultFromProto(Remote(local));
  ASSERT_TRUE(remote.ok()) << remote.status();
  EXPECT_EQ(remote->id, "w7");
  EXPECT_EQ(remote->snapshot.state, WorkloadState::kFinished);
  const std::string text =
      FormatTextReport(local.spec, local.targets, local.snapshot);
  EXPECT_EQ(FormatResultText(*remote), "workload w7\n" + text);
  EXPECT_EQ(FormatJsonReport(remote->spec, remote->targets, remote->snapshot),
            FormatJsonReport(local.spec, local.targets, local.snapshot));
  // The report has what issue 4 asks for.
  EXPECT_THAT(text, HasSubstr("force_async"));
  EXPECT_THAT(text, HasSubstr("phase 0 none"));
  EXPECT_THAT(text, HasSubstr("phase 1 limits"));
  EXPECT_THAT(text, HasSubstr("A/B limits"));
  EXPECT_THAT(text, HasSubstr("device requests per SQE: 1.00"));
  EXPECT_THAT(text, HasSubstr("target: /dev/loop7 (block device"));
  EXPECT_THAT(text, HasSubstr("io_uring workers="));
}

TEST(ResultTest, FleetRunShowsRunIdEndReasonAndStart) {
  Local local = SampleRun();
  local.snapshot.state = WorkloadState::kAborted;
  local.snapshot.start = {.scheduled_monotonic_ns = 5'000'000'000,
                          .first_monotonic_ns = 5'000'041'200,
                          .first_realtime_ns = 1'700'000'000'000'000'000,
                          .last_monotonic_ns = 5'000'049'300,
                          .threads_started = 2,
                          .realtime_wait_threads = 1,
                          .realtime_wait_error = "sched_setscheduler: no"};
  v1::Workload w = Remote(local);
  w.set_run_id("fleet-7");
  w.set_end_reason("aborted by AbortRun: ctrl-c");
  StartTimesToProto(local.snapshot.start, w.mutable_start());
  absl::StatusOr<RemoteResult> remote = ResultFromProto(w);
  ASSERT_TRUE(remote.ok()) << remote.status();
  EXPECT_EQ(remote->snapshot.state, WorkloadState::kAborted);
  EXPECT_EQ(remote->snapshot.start.first_realtime_ns,
            local.snapshot.start.first_realtime_ns);
  const std::string text = FormatResultText(*remote);
  EXPECT_THAT(text, HasSubstr("workload w7 run fleet-7\n"
                              "ended: aborted by AbortRun: ctrl-c\n"));
  EXPECT_THAT(text, HasSubstr("state: aborted"));
  EXPECT_THAT(text, HasSubstr("start: scheduled 5.000000000s (monotonic), "
                              "first submit 41.2us after it, threads spread "
                              "8.1us, real-time wait 1/2 threads (the others "
                              "waited at normal priority and may start late "
                              "under load: sched_setscheduler: no)\n"));
  const std::string json =
      FormatJsonReport(remote->spec, remote->targets, remote->snapshot);
  EXPECT_THAT(json,
              HasSubstr("\"first_submit_realtime_ns\":1700000000000000000"));
  EXPECT_THAT(json, HasSubstr("\"threads_started\":2,"
                              "\"realtime_wait_threads\":1,"
                              "\"realtime_wait_error\":"
                              "\"sched_setscheduler: no\""));
}

TEST(ResultTest, BadHistogramIsInvalidArgumentNamingIt) {
  v1::Workload w = Remote(SampleRun());
  w.mutable_snapshot()->mutable_threads(1)->mutable_histogram()->set_count(1);
  absl::StatusOr<RemoteResult> remote = ResultFromProto(w);
  EXPECT_EQ(remote.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(remote.status().message()),
              HasSubstr("snapshot.threads[1].histogram.count"));
}

TEST(StatusLinesTest, IntervalFiguresWithIdAndStrategy) {
  Local local = SampleRun();
  local.snapshot.state = WorkloadState::kRunning;
  StatusLines lines;
  v1::WatchWorkloadResponse first;
  *first.mutable_workload() = Remote(local);
  const std::string line = lines.Next(first);
  EXPECT_THAT(line, StartsWith("w7 [running 4s] IOPS=250"));
  EXPECT_THAT(line, HasSubstr("split=limits"));

  // One second later with 500 more I/Os: the line shows that second alone.
  WorkloadSnapshot later = local.snapshot;
  later.elapsed += absl::Seconds(1);
  later.total.Merge(Thread(0, 500, 100000));
  later.split_strategy = "none";
  v1::WatchWorkloadResponse second;
  second.mutable_workload()->set_workload_id("w7");
  second.mutable_workload()->set_state(v1::WORKLOAD_STATE_RUNNING);
  SnapshotToProto(later, {}, second.mutable_workload()->mutable_snapshot());
  const std::string next = lines.Next(second);
  EXPECT_THAT(next, StartsWith("w7 [running 5s] IOPS=500 "));
  EXPECT_THAT(next, HasSubstr("split=none"));
}

TEST(WorkloadLineTest, SummarizesTheSpec) {
  v1::Workload w = Remote(SampleRun());
  const std::string line = FormatWorkloadLine(w);
  EXPECT_THAT(line, StartsWith("w7    finished  read bs=1.00MiB qd=4"));
  EXPECT_THAT(line, HasSubstr("on /dev/loop7"));
  EXPECT_THAT(line, HasSubstr("IOPS=250"));
  w.clear_snapshot();
  EXPECT_THAT(FormatWorkloadLine(w), ::testing::Not(HasSubstr("IOPS")));
}

TEST(WorkloadLineTest, ANopWorkloadsSpecReadsBack) {
  // The daemon's resolved NOP spec names the stand-in target "nop".
  v1::Workload w = Remote(SampleRun());
  w.mutable_spec()->clear_targets();
  w.mutable_spec()->add_targets()->set_path("nop");
  w.mutable_spec()->set_nop(true);
  const std::string line = FormatWorkloadLine(w);
  EXPECT_THAT(line, ::testing::Not(HasSubstr("unreadable"))) << line;
  EXPECT_THAT(line, HasSubstr("on nop"));
  absl::StatusOr<RemoteResult> result = ResultFromProto(w);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->spec.nop);
}

TEST(WorkloadLineTest, PathsCannotForgeLinesOrReachTheTerminal) {
  v1::Workload w = Remote(SampleRun());
  w.mutable_spec()->mutable_targets(0)->set_path(
      "/rw/y\nE1207 13:00:00.000000 server.cc:1] FORGED\x1b[2J");
  const std::string line = FormatWorkloadLine(w);
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
  EXPECT_THAT(line, HasSubstr("on /rw/y\\nE1207"));
}

}  // namespace
}  // namespace blkperf
