// The orchestrator against in-process fake daemons (fleet/testing): quorum,
// host loss under both policies, retries only where idempotent, Ctrl-C, the
// exact merge and the start instants.
#include "fleet/orchestrator.h"

#include <atomic>
#include <map>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "fleet/merge.h"
#include "fleet/report.h"
#include "fleet/testing/fake_fleet.h"
#include "fleet/testing/silent_relay.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace blkperf::fleet {
namespace {

using ::testing::HasSubstr;
using testing::ArmBehavior;
using testing::FakeFleet;
using testing::FakeHostConfig;

constexpr int64_t kHour = int64_t{3600} * 1000000000;

FleetOptions FastOptions() {
  FleetOptions o;
  o.run_id = "test-run";
  o.start_margin = absl::Milliseconds(200);
  o.poll_interval = absl::Milliseconds(100);
  o.call_timeout = absl::Seconds(2);
  o.connect_timeout = absl::Seconds(2);
  o.arm_timeout = absl::Seconds(5);
  o.retry.initial_backoff = absl::Milliseconds(5);
  o.retry.max_backoff = absl::Milliseconds(20);
  o.min_hosts = Quorum{100, true};
  return o;
}

v1::WorkloadSpec Spec(absl::Duration runtime) {
  v1::WorkloadSpec spec;
  const int64_t ns = absl::ToInt64Nanoseconds(runtime);
  spec.mutable_runtime()->set_seconds(ns / 1000000000);
  spec.mutable_runtime()->set_nanos(static_cast<int32_t>(ns % 1000000000));
  spec.set_block_size(4096);
  return spec;
}

std::vector<FakeHostConfig> Hosts(int n) {
  std::vector<FakeHostConfig> hosts(n);
  for (int i = 0; i < n; ++i) {
    hosts[i].clock_offset_ns = (i - 1) * 5 * kHour;  // hours apart, some behind
    hosts[i].iops = 10000 * (i + 1);
    hosts[i].bucket_base = 400 + 10 * i;
  }
  return hosts;
}

struct Outcome {
  FleetRun run;
  FleetReport report;
};

Outcome RunFleet(FakeFleet& fleet, const FleetOptions& options,
                 absl::Duration runtime = absl::Milliseconds(500),
                 std::atomic<bool>* interrupted = nullptr,
                 std::function<void(const IntervalFigures&)> on_interval = {}) {
  Orchestrator o(options, fleet.addresses(), interrupted);
  if (on_interval) o.OnInterval(on_interval);
  absl::StatusOr<FleetRun> run = o.Run(Spec(runtime));
  EXPECT_TRUE(run.ok()) << run.status();
  absl::StatusOr<FleetReport> report = BuildReport(*run);
  EXPECT_TRUE(report.ok()) << report.status();
  return {*std::move(run), *std::move(report)};
}

const Excluded* FindExcluded(const FleetReport& r, const std::string& address) {
  for (const Excluded& e : r.excluded) {
    if (e.address == address) return &e;
  }
  return nullptr;
}

TEST(OrchestratorTest, AllHostsStartTogetherAndMergeExactly) {
  auto fleet = FakeFleet::Start(Hosts(4));
  ASSERT_TRUE(fleet.ok()) << fleet.status();
  Outcome out = RunFleet(**fleet, FastOptions());
  EXPECT_EQ(out.report.outcome, "completed");
  ASSERT_EQ(out.report.hosts.size(), 4u);
  EXPECT_TRUE(out.report.excluded.empty());
  EXPECT_EQ(out.report.completed, 4);
  // Every host was told the same instant of true time, within its clock
  // error, though their monotonic clocks are hours apart.
  std::vector<FakeHostConfig> configs = Hosts(4);
  for (size_t i = 0; i < 4; ++i) {
    const HostRun& h = out.run.hosts[i];
    const int64_t true_local = h.go_host_ns - configs[i].clock_offset_ns;
    EXPECT_LE(std::llabs(true_local - out.run.start_local_ns), h.clock.error_ns)
        << h.address;
    EXPECT_EQ((*fleet)->host(i).go_host_ns, h.go_host_ns);
    EXPECT_EQ((*fleet)->host(i).workloads_created, 1);
  }
  // The merge equals an independent merge of the per-host final reports.
  uint64_t ios = 0, bytes = 0;
  std::map<uint32_t, uint64_t> buckets;
  for (const HostRun& h : out.run.hosts) {
    const v1::ThreadStats& t = h.workload.snapshot().total();
    ASSERT_GT(t.ios(), 0u);
    ios += t.ios();
    bytes += t.bytes();
    for (const auto& b : t.histogram().buckets()) buckets[b.index()] += b.count();
  }
  const v1::ThreadStats& merged = out.report.merged.snapshot().total();
  EXPECT_EQ(merged.ios(), ios);
  EXPECT_EQ(merged.bytes(), bytes);
  ASSERT_EQ(merged.histogram().buckets_size(), static_cast<int>(buckets.size()));
  for (const auto& b : merged.histogram().buckets()) {
    EXPECT_EQ(b.count(), buckets[b.index()]) << b.index();
  }
  EXPECT_EQ(merged.latency().count(), ios);
  // Overlap-window IOPS: the fakes run 10k..40k IOPS each.
  EXPECT_NEAR(merged.iops(), 100000, 2000);
  EXPECT_GT(out.report.overlap.length_ns(), 450000000);
  // Sorted by IOPS, highest first.
  EXPECT_EQ(out.report.hosts[0].address, (*fleet)->addresses()[3]);
  const std::string json = FormatReportJson(out.report);
  EXPECT_THAT(json, HasSubstr("\"start_offset_ns\""));
  EXPECT_THAT(json, HasSubstr("\"clock_error_ns\""));
  EXPECT_THAT(FormatReportText(out.report), HasSubstr("completed=4"));
}

// The fields of a JSON object, by name.
std::vector<std::string> Keys(const google::protobuf::Value& v) {
  std::vector<std::string> keys;
  for (const auto& [k, unused] : v.struct_value().fields()) keys.push_back(k);
  return keys;
}

// `v` printed back as JSON parses as the API's Workload (no unknown field):
// the same shape as a single host's report.
void ExpectWorkloadShape(const google::protobuf::Value& v,
                         const std::string& what) {
  std::string json;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(v, &json).ok());
  v1::Workload w;
  const auto parsed = google::protobuf::util::JsonStringToMessage(json, &w);
  EXPECT_TRUE(parsed.ok()) << what << ": " << parsed;
}

TEST(OrchestratorTest, JsonHasTheNamedShapeAndFlagsOutliers) {
  // Five hosts near 20k IOPS but one at 100k: median 20k, MAD 1k, so only
  // the 100k host lies more than 3 MADs out. A sixth host refuses to arm.
  std::vector<FakeHostConfig> hosts = Hosts(6);
  const double iops[6] = {20000, 21000, 100000, 19000, 20000, 0};
  for (int i = 0; i < 6; ++i) hosts[i].iops = iops[i];
  hosts[5].arm = ArmBehavior::kRefuse;
  auto fleet = FakeFleet::Start(hosts);
  ASSERT_TRUE(fleet.ok());
  FleetOptions options = FastOptions();
  options.min_hosts = Quorum{5, false};
  Outcome out = RunFleet(**fleet, options);
  ASSERT_EQ(out.report.outcome, "partial");

  // --json: every workload in the report schema, `total` at its top.
  google::protobuf::Value report_root;
  const std::string report_json = FormatReportJson(out.report);
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(report_json, &report_root)
          .ok())
      << report_json;
  EXPECT_THAT(Keys(report_root.struct_value().fields().at("merged")),
              ::testing::IsSupersetOf({"total", "state", "elapsed_seconds"}));
  // --api_json: the API's Workload messages.
  google::protobuf::Value root;
  const std::string json = FormatReportJson(out.report, WorkloadJson::kApi);
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &root).ok())
      << json;
  EXPECT_THAT(Keys(root), ::testing::IsSupersetOf(
                              {"run_id", "outcome", "merged", "hosts",
                               "excluded", "window", "counts"}));
  const auto& f = root.struct_value().fields();
  ExpectWorkloadShape(f.at("merged"), "merged");
  const auto& rows = f.at("hosts").list_value().values();
  ASSERT_EQ(rows.size(), 5);
  std::vector<bool> flagged;
  for (const google::protobuf::Value& row : rows) {
    EXPECT_THAT(Keys(row), ::testing::IsSupersetOf(
                               {"address", "state", "report", "environment",
                                "start_offset_ns", "clock_error_ns"}));
    const auto& h = row.struct_value().fields();
    // Each host's environment block (the fakes send none: every fact says
    // unknown rather than being left out).
    EXPECT_EQ(h.at("environment").struct_value().fields().at(
                  "kernel_release").string_value(), "unknown");
    EXPECT_EQ(h.at("state").string_value(), "completed");
    ExpectWorkloadShape(h.at("report"), h.at("address").string_value());
    flagged.push_back(h.at("outlier").bool_value());
  }
  // Sorted by IOPS: the 100k host first, and only it flagged.
  EXPECT_EQ(rows[0].struct_value().fields().at("address").string_value(),
            (*fleet)->addresses()[2]);
  EXPECT_THAT(flagged, ::testing::ElementsAre(true, false, false, false, false));
  EXPECT_NEAR(out.report.outliers.median, 20000, 100);
  EXPECT_NEAR(out.report.outliers.mad, 1000, 100);
  const auto& excluded = f.at("excluded").list_value().values();
  ASSERT_EQ(excluded.size(), 1);
  EXPECT_THAT(Keys(excluded[0]),
              ::testing::IsSupersetOf({"address", "reason"}));
  EXPECT_EQ(excluded[0].struct_value().fields().at("address").string_value(),
            (*fleet)->addresses()[5]);
  const std::string text = FormatReportText(out.report);
  EXPECT_EQ(text.find("OUTLIER"), text.rfind("OUTLIER")) << text;
  EXPECT_THAT(text, HasSubstr("OUTLIER"));
}

TEST(OrchestratorTest, QuorumMetWithoutARefusingHost) {
  std::vector<FakeHostConfig> hosts = Hosts(4);
  hosts[2].arm = ArmBehavior::kRefuse;
  auto fleet = FakeFleet::Start(hosts);
  ASSERT_TRUE(fleet.ok());
  FleetOptions options = FastOptions();
  options.min_hosts = Quorum{3, false};
  Outcome out = RunFleet(**fleet, options);
  EXPECT_EQ(out.report.outcome, "partial");
  EXPECT_EQ(out.report.hosts.size(), 3u);
  const Excluded* e = FindExcluded(out.report, (*fleet)->addresses()[2]);
  ASSERT_NE(e, nullptr);
  EXPECT_THAT(e->reason, HasSubstr("held by another workload"));
  EXPECT_THAT(out.report.merged.snapshot().notes(1),
              HasSubstr((*fleet)->addresses()[2]));
  EXPECT_EQ((*fleet)->host(2).go_host_ns, 0);
}

TEST(OrchestratorTest, QuorumNotMetStartsNothingAndReleasesEveryArmedHost) {
  std::vector<FakeHostConfig> hosts = Hosts(4);
  hosts[1].arm = ArmBehavior::kRefuse;
  hosts[3].arm = ArmBehavior::kHang;
  auto fleet = FakeFleet::Start(hosts);
  ASSERT_TRUE(fleet.ok());
  FleetOptions options = FastOptions();
  options.min_hosts = Quorum{75, true};
  options.arm_timeout = absl::Milliseconds(800);
  options.call_timeout = absl::Milliseconds(300);
  Outcome out = RunFleet(**fleet, options);
  EXPECT_EQ(out.report.outcome, "not_started");
  EXPECT_THAT(out.run.abort_reason, HasSubstr("quorum not met: 2 of 4"));
  EXPECT_THAT(out.run.abort_reason, HasSubstr("3 needed"));
  for (int i : {0, 2}) {
    EXPECT_TRUE((*fleet)->host(i).aborted) << i;
    EXPECT_THAT((*fleet)->host(i).abort_reason, HasSubstr("quorum not met"));
  }
  for (int i = 0; i < 4; ++i) EXPECT_EQ((*fleet)->host(i).go_host_ns, 0) << i;
  ASSERT_EQ(out.report.excluded.size(), 4u);
  EXPECT_THAT(FindExcluded(out.report, (*fleet)->addresses()[1])->reason,
              HasSubstr("held by another workload"));
  EXPECT_THAT(FindExcluded(out.report, (*fleet)->addresses()[3])->reason,
              HasSubstr("DEADLINE_EXCEEDED"));
}

TEST(OrchestratorTest, HostLostWithContinueIsExcludedAndNamed) {
  std::vector<FakeHostConfig> hosts = Hosts(4);
  hosts[2].lost_after_ns = 150000000;
  auto fleet = FakeFleet::Start(hosts);
  ASSERT_TRUE(fleet.ok());
  FleetOptions options = FastOptions();
  options.on_host_loss = OnHostLoss::kContinue;
  Outcome out = RunFleet(**fleet, options);
  EXPECT_EQ(out.report.outcome, "partial");
  ASSERT_EQ(out.report.hosts.size(), 3u);
  const Excluded* e = FindExcluded(out.report, (*fleet)->addresses()[2]);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->state, "lost");
  EXPECT_THAT(e->reason, HasSubstr("unreachable"));
  // The total is over the survivors only and says so.
  uint64_t ios = 0;
  for (const HostRow& r : out.report.hosts) ios += r.workload.snapshot().total().ios();
  EXPECT_EQ(out.report.merged.snapshot().total().ios(), ios);
  EXPECT_THAT(FormatReportText(out.report), HasSubstr("excluded " + (*fleet)->addresses()[2]));
  for (int i : {0, 1, 3}) EXPECT_FALSE((*fleet)->host(i).aborted);
}

TEST(OrchestratorTest, HostLostWithAbortStopsEveryHost) {
  std::vector<FakeHostConfig> hosts = Hosts(4);
  hosts[1].lost_after_ns = 150000000;
  auto fleet = FakeFleet::Start(hosts);
  ASSERT_TRUE(fleet.ok());
  FleetOptions options = FastOptions();
  options.on_host_loss = OnHostLoss::kAbort;
  Outcome out = RunFleet(**fleet, options, absl::Seconds(2));
  EXPECT_EQ(out.report.outcome, "aborted");
  EXPECT_THAT(out.run.abort_reason, HasSubstr((*fleet)->addresses()[1]));
  for (int i : {0, 2, 3}) {
    EXPECT_TRUE((*fleet)->host(i).aborted) << i;
    EXPECT_THAT((*fleet)->host(i).abort_reason, HasSubstr("on_host_loss=abort"));
  }
  EXPECT_EQ(out.report.merged.state(), v1::WORKLOAD_STATE_ABORTED);
}

TEST(OrchestratorTest, IdempotentCallsAreRetriedWithoutDuplicates) {
  // Host 1 refuses its first calls of each method. Host 2 arms on its first
  // Arm but the answers to two are lost: the retries find the same
  // workload, and its lease is counted from the first attempt, not from
  // the answer.
  std::vector<FakeHostConfig> hosts = Hosts(3);
  hosts[1].unavailable_first_calls = 2;
  hosts[2].lose_first_arm_answers = 2;
  auto fleet = FakeFleet::Start(hosts);
  ASSERT_TRUE(fleet.ok());
  Outcome out = RunFleet(**fleet, FastOptions());
  EXPECT_EQ(out.report.outcome, "completed");
  const testing::FakeHostState s = (*fleet)->host(1);
  EXPECT_EQ(s.calls.at("ArmWorkload"), 3);
  EXPECT_EQ(s.calls.at("GoWorkload"), 3);
  EXPECT_EQ(s.workloads_created, 1);
  const testing::FakeHostState lost = (*fleet)->host(2);
  EXPECT_EQ(lost.calls.at("ArmWorkload"), 3);
  EXPECT_EQ(lost.workloads_created, 1);
  const HostRun& h = out.run.hosts[2];
  ASSERT_NE(h.arm_sent_local_ns, 0);
  EXPECT_LE(h.arm_sent_local_ns, lost.armed_host_ns - hosts[2].clock_offset_ns);
  EXPECT_LT(h.arm_sent_local_ns, h.armed_local_ns);
}

TEST(OrchestratorTest, RunIdOfAnEndedRunArmsNothing) {
  auto fleet = FakeFleet::Start(Hosts(2));
  ASSERT_TRUE(fleet.ok());
  Outcome first = RunFleet(**fleet, FastOptions());
  ASSERT_EQ(first.report.outcome, "completed");
  const int gos = (*fleet)->host(0).calls.at("GoWorkload");
  // The same run id again: each daemon returns the finished workload, which
  // Go could not start at a new instant.
  Outcome again = RunFleet(**fleet, FastOptions());
  EXPECT_EQ(again.report.outcome, "not_started");
  ASSERT_EQ(again.report.excluded.size(), 2u);
  for (const Excluded& e : again.report.excluded) {
    EXPECT_THAT(e.reason, HasSubstr("run id test-run is already finished here"));
    EXPECT_THAT(e.reason, HasSubstr("new --run_id"));
  }
  EXPECT_EQ(again.report.armed, 0);
  EXPECT_EQ((*fleet)->host(0).calls.at("GoWorkload"), gos);
  EXPECT_EQ((*fleet)->host(0).workloads_created, 1);
}

TEST(OrchestratorTest, LiveFiguresLeaveOutHostsThatEnded) {
  // Host 0 (10k IOPS) ends after 300 ms, the others (20k, 30k) run 1 s:
  // once it has ended, the fleet's interval IOPS are the others' alone.
  std::vector<FakeHostConfig> hosts = Hosts(3);
  hosts[0].runtime_ns = 300000000;
  auto fleet = FakeFleet::Start(hosts);
  ASSERT_TRUE(fleet.ok());
  std::vector<IntervalFigures> after;
  Outcome out = RunFleet(**fleet, FastOptions(), absl::Seconds(1), nullptr,
                         [&](const IntervalFigures& f) {
                           if (f.running == 2) after.push_back(f);
                         });
  EXPECT_EQ(out.report.outcome, "completed");
  ASSERT_GE(after.size(), 3u);
  // The first of them may still hold host 0's last (partial) interval.
  for (size_t i = 1; i < after.size(); ++i) {
    EXPECT_EQ(after[i].hosts, 3);
    EXPECT_NEAR(after[i].iops, 50000, 1500) << i;
    EXPECT_EQ(after[i].slowest_host, (*fleet)->addresses()[1]) << i;
  }
}

TEST(OrchestratorTest, SplitIsNotRetriedAndLandsAtOneInstant) {
  std::vector<FakeHostConfig> hosts = Hosts(3);
  hosts[2].unavailable_first_calls = 1;  // only its first SetSplitStrategy fails
  auto fleet = FakeFleet::Start(hosts);
  ASSERT_TRUE(fleet.ok());
  FleetOptions options = FastOptions();
  options.on_host_loss = OnHostLoss::kContinue;
  std::atomic<bool> done{false};
  std::thread runner([&] {
    RunFleet(**fleet, options, absl::Seconds(2));
    done = true;
  });
  absl::SleepFor(absl::Milliseconds(600));
  absl::StatusOr<std::vector<HostRun>> found =
      FindRun(options, (*fleet)->addresses(), "test-run");
  ASSERT_TRUE(found.ok()) << found.status();
  SplitRun(options, *found, "limits");
  runner.join();
  EXPECT_EQ((*fleet)->host(2).calls.at("SetSplitStrategy"), 1);
  EXPECT_THAT((*found)[2].error, HasSubstr("UNAVAILABLE"));
  const int64_t at0 = (*fleet)->host(0).split_at_ns - hosts[0].clock_offset_ns;
  const int64_t at1 = (*fleet)->host(1).split_at_ns - hosts[1].clock_offset_ns;
  EXPECT_EQ((*fleet)->host(0).split, "limits");
  EXPECT_LE(std::llabs(at0 - at1),
            (*found)[0].clock.error_ns + (*found)[1].clock.error_ns);
}

TEST(OrchestratorTest, KeepalivePingsNoticeAHostThatWentSilentMidCall) {
  // Host 1's Arm hangs; once it is in flight, the relay in front of host 1
  // goes silent (no FIN, no RST, nothing). The keepalive ping goes
  // unanswered, so the call fails within keepalive time + timeout instead
  // of at its 20 s deadline.
  std::vector<FakeHostConfig> hosts = Hosts(2);
  hosts[1].arm = ArmBehavior::kHang;
  auto fleet = FakeFleet::Start(hosts);
  ASSERT_TRUE(fleet.ok());
  const std::string& direct = (*fleet)->addresses()[1];
  int port = 0;
  ASSERT_TRUE(absl::SimpleAtoi(direct.substr(direct.rfind(':') + 1), &port));
  auto relay = testing::SilentRelay::Start(port);
  ASSERT_TRUE(relay.ok()) << relay.status();
  (*fleet)->AddPortAlias((*relay)->port(), 1);
  FleetOptions options = FastOptions();
  options.keepalive_time = absl::Milliseconds(300);
  options.channel.keepalive_timeout = absl::Milliseconds(300);
  options.call_timeout = absl::Seconds(20);
  options.arm_timeout = absl::Seconds(15);
  options.lease = absl::Seconds(30);
  options.retry.max_attempts = 1;
  std::thread silencer([&] {
    while ((*fleet)->host(1).calls.count("ArmWorkload") == 0) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    (*relay)->Silence();
  });
  Orchestrator o(options, {(*fleet)->addresses()[0], (*relay)->address()},
                 nullptr);
  absl::StatusOr<FleetRun> run = o.Run(Spec(absl::Milliseconds(500)));
  silencer.join();
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->hosts[0].state, HostState::kAborted);
  EXPECT_EQ(run->hosts[1].state, HostState::kArmFailed);
  EXPECT_LT(run->arm_time, absl::Seconds(5)) << run->hosts[1].error;
}

TEST(OrchestratorTest, InterruptAbortsEverywhere) {
  auto fleet = FakeFleet::Start(Hosts(3));
  ASSERT_TRUE(fleet.ok());
  std::atomic<bool> interrupted{false};
  Outcome out = RunFleet(**fleet, FastOptions(), absl::Seconds(5), &interrupted,
                         [&](const IntervalFigures& f) {
                           EXPECT_EQ(f.hosts, 3);
                           interrupted = true;
                         });
  EXPECT_EQ(out.report.outcome, "aborted");
  EXPECT_THAT(out.run.abort_reason, HasSubstr("interrupted"));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE((*fleet)->host(i).aborted) << i;
}

TEST(OrchestratorTest, InterruptWhileAHostHoldsArmingAbortsAtOnce) {
  // Host 1's Arm hangs (until its caller gives up). Ctrl-C once host 0 is
  // armed: the hung call is cancelled, not waited out to --arm_timeout.
  std::vector<FakeHostConfig> hosts = Hosts(2);
  hosts[1].arm = ArmBehavior::kHang;
  auto fleet = FakeFleet::Start(hosts);
  ASSERT_TRUE(fleet.ok());
  FleetOptions options = FastOptions();
  options.call_timeout = absl::Seconds(20);
  options.arm_timeout = absl::Seconds(20);
  options.lease = absl::Seconds(30);
  std::atomic<bool> interrupted{false};
  std::thread ctrl_c([&] {
    while ((*fleet)->host(1).calls.count("ArmWorkload") == 0 ||
           !(*fleet)->host(0).armed) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    interrupted = true;
  });
  const absl::Time begin = absl::Now();
  Orchestrator o(options, (*fleet)->addresses(), &interrupted);
  absl::StatusOr<FleetRun> run = o.Run(Spec(absl::Seconds(1)));
  ctrl_c.join();
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_LT(absl::Now() - begin, absl::Seconds(2));
  EXPECT_THAT(run->abort_reason, HasSubstr("interrupted (SIGINT/SIGTERM) while arming"));
  EXPECT_EQ(run->hosts[1].state, HostState::kArmFailed);
  EXPECT_EQ(run->hosts[1].error, "not armed: interrupted");
  EXPECT_TRUE((*fleet)->host(0).aborted);
}

TEST(OrchestratorTest, SteadyStateGateIsRefusedBeforeAnyHostIsCalled) {
  std::atomic<bool> interrupted{false};
  Orchestrator o(FastOptions(), {"127.0.0.1:1"}, &interrupted);
  v1::WorkloadSpec spec = Spec(absl::Seconds(1));
  spec.mutable_steady_state()->set_criterion("iops:5%");
  spec.mutable_steady_state()->set_mode(v1::STEADY_STATE_MODE_GATE);
  absl::StatusOr<FleetRun> run = o.Run(spec);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(run.status().message(), HasSubstr("spec.steady_state.mode"));
}

TEST(OrchestratorTest, OptionsAreChecked) {
  FleetOptions o = FastOptions();
  o.run_id = "bad id!";
  EXPECT_THAT(CheckOptions(o).message(), HasSubstr("run_id"));
  o = FastOptions();
  o.lease = absl::Seconds(5);
  o.arm_timeout = absl::Seconds(5);
  EXPECT_THAT(CheckOptions(o).message(), HasSubstr("lease 5s must exceed"));
  // The lease covers --arm_timeout plus two start margins (Go's instant and
  // room for the Go calls), as the check before Go does.
  o.lease = o.arm_timeout + 2 * o.start_margin;
  EXPECT_THAT(CheckOptions(o).message(), HasSubstr("2 x --start_margin"));
  o.lease += absl::Milliseconds(1);
  EXPECT_TRUE(CheckOptions(o).ok()) << CheckOptions(o);
  EXPECT_THAT(ParseQuorum("0").status().message(), HasSubstr("min_hosts"));
  EXPECT_THAT(ParseQuorum("101%").status().message(), HasSubstr("min_hosts"));
  absl::StatusOr<Quorum> q = ParseQuorum("90%");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->Needed(1000), 900);
  EXPECT_EQ(q->Needed(7), 7);  // 6.3 rounds up
  EXPECT_TRUE(CheckRunId(NewRunId()).ok());
}

// Clock sampling stops at kMinClockSamples once a host's bound is within
// clock_error_target, and takes every sample when the bound never gets
// there; the offsets are bounded correctly either way.
TEST(OrchestratorTest, ClockSamplingStopsOnceTheBoundIsTightEnough) {
  for (const bool loose : {true, false}) {
    auto fleet = FakeFleet::Start(Hosts(3));
    ASSERT_TRUE(fleet.ok()) << fleet.status();
    FleetOptions options = FastOptions();
    options.clock_samples = 12;
    // Any loopback round trip is within an hour; none is within 0 ns.
    options.clock_error_target = loose ? absl::Hours(1) : absl::ZeroDuration();
    const Outcome out = RunFleet(**fleet, options);
    ASSERT_EQ(out.report.outcome, "completed");
    for (size_t i = 0; i < 3; ++i) {
      const int calls = (*fleet)->host(i).calls["GetClock"];
      EXPECT_EQ(calls, loose ? kMinClockSamples : 12) << i << " loose=" << loose;
      const HostRun& h = out.run.hosts[i];
      EXPECT_EQ(h.clock.samples, calls);
      EXPECT_LE(std::llabs(h.clock.offset_ns - (static_cast<int64_t>(i) - 1) * 5 * kHour),
                h.clock.error_ns);
    }
  }
}

}  // namespace
}  // namespace blkperf::fleet
