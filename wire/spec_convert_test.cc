#include "wire/spec_convert.h"

#include <functional>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

v1::WorkloadSpec MinimalSpec() {
  v1::WorkloadSpec spec;
  spec.add_targets()->set_path("/data/file");
  return spec;
}

TEST(SpecFromProtoTest, UnsetFieldsKeepEngineDefaults) {
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(MinimalSpec());
  ASSERT_TRUE(spec.ok()) << spec.status();
  const WorkloadSpec defaults;
  ASSERT_EQ(spec->targets.size(), 1u);
  EXPECT_EQ(spec->targets[0].path, "/data/file");
  EXPECT_EQ(spec->op, defaults.op);
  EXPECT_EQ(spec->read_percent, defaults.read_percent);
  EXPECT_EQ(spec->block_size, defaults.block_size);
  EXPECT_EQ(spec->queue_depth, defaults.queue_depth);
  EXPECT_EQ(spec->runtime, defaults.runtime);
  EXPECT_EQ(spec->direct, defaults.direct);
  EXPECT_EQ(spec->seed, defaults.seed);
  EXPECT_EQ(spec->fixed_buffers, defaults.fixed_buffers);
  EXPECT_EQ(spec->registered_files, defaults.registered_files);
  EXPECT_EQ(spec->polled, defaults.polled);
  EXPECT_EQ(spec->sqpoll_cpu, defaults.sqpoll_cpu);
  EXPECT_EQ(spec->request_cache, defaults.request_cache);
  EXPECT_EQ(spec->latency_tracking, defaults.latency_tracking);
  EXPECT_EQ(spec->split, defaults.split);
  EXPECT_EQ(spec->vectored, defaults.vectored);
  EXPECT_EQ(spec->nop, defaults.nop);
  EXPECT_EQ(spec->buffer_layout, BufferLayout::kAuto);
  EXPECT_EQ(spec->huge_pages, HugePageMode::kAuto);
}

// The audit's B46: io_count alone means "until the count", not a 10 s
// default that a daemon with --max_runtime below 10 s refuses.
TEST(SpecFromProtoTest, IoCountWithoutRuntimeRunsUntilTheCount) {
  v1::WorkloadSpec proto = MinimalSpec();
  proto.set_io_count(1000);
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(proto);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->runtime, absl::ZeroDuration());
  EXPECT_EQ(spec->io_count, 1000u);
  // A runtime given is kept.
  proto.mutable_runtime()->set_seconds(3);
  spec = SpecFromProto(proto);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->runtime, absl::Seconds(3));
}

TEST(SpecFromProtoTest, SetFieldsAreTaken) {
  v1::WorkloadSpec proto = MinimalSpec();
  proto.mutable_targets(0)->set_create_size(1 << 20);
  proto.mutable_targets(0)->set_allow_write(true);
  proto.set_op(v1::OP_RANDRW);
  proto.set_read_percent(70);
  proto.set_block_size(8192);
  proto.set_queue_depth(4);
  proto.set_threads(2);
  proto.add_cpus(1);
  proto.add_cpus(3);
  proto.mutable_runtime()->set_seconds(2);
  proto.mutable_runtime()->set_nanos(500000000);
  proto.mutable_ramp_time()->set_seconds(1);
  proto.set_direct(false);
  proto.set_fixed_buffers(false);
  proto.set_vectored(true);
  proto.set_buffer_layout(v1::BUFFER_LAYOUT_ONE_REGION);
  proto.set_huge_pages(v1::HUGE_PAGE_MODE_ON);
  proto.set_polled(v1::POLL_MODE_AUTO);
  proto.set_request_cache(v1::REQUEST_CACHE_MODE_SHARED);
  proto.set_split("fixed:8k");
  proto.set_force_async(true);
  proto.add_ab_strategies("none");
  proto.add_ab_strategies("limits");
  proto.add_ab_strategies("fixed:64k");
  proto.mutable_ab_slice()->set_nanos(250000000);
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(proto);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->targets[0].create_size, 1u << 20);
  EXPECT_TRUE(spec->targets[0].allow_write);
  EXPECT_EQ(spec->op, Op::kRandRW);
  EXPECT_EQ(spec->read_percent, 70u);
  EXPECT_EQ(spec->block_size, 8192u);
  EXPECT_EQ(spec->queue_depth, 4u);
  EXPECT_EQ(spec->threads, 2u);
  EXPECT_EQ(spec->cpus, (std::vector<int>{1, 3}));
  EXPECT_EQ(spec->runtime, absl::Milliseconds(2500));
  EXPECT_EQ(spec->ramp_time, absl::Seconds(1));
  EXPECT_FALSE(spec->direct);
  EXPECT_FALSE(spec->fixed_buffers);
  EXPECT_TRUE(spec->vectored);
  EXPECT_EQ(spec->buffer_layout, BufferLayout::kOneRegion);
  EXPECT_EQ(spec->huge_pages, HugePageMode::kOn);
  EXPECT_EQ(spec->polled, PollMode::kAuto);
  EXPECT_EQ(spec->request_cache, RequestCacheMode::kShared);
  EXPECT_EQ(spec->split.kind, SplitStrategy::Kind::kFixed);
  EXPECT_EQ(spec->split.fixed_bytes, 8192u);
  EXPECT_TRUE(spec->force_async);
  ASSERT_EQ(spec->ab_strategies.size(), 3u);
  EXPECT_EQ(spec->ab_strategies[0].kind, SplitStrategy::Kind::kNone);
  EXPECT_EQ(spec->ab_strategies[1].kind, SplitStrategy::Kind::kLimits);
  EXPECT_EQ(spec->ab_strategies[2].kind, SplitStrategy::Kind::kFixed);
  EXPECT_EQ(spec->ab_strategies[2].fixed_bytes, 65536u);
  EXPECT_EQ(spec->ab_slice, absl::Milliseconds(250));
}

TEST(SpecFromProtoTest, AbDefaultsAreEngineDefaults) {
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(MinimalSpec());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->force_async);
  EXPECT_TRUE(spec->ab_strategies.empty());
  EXPECT_EQ(spec->ab_slice, WorkloadSpec().ab_slice);
}

TEST(SpecFromProtoTest, EveryBufferLayoutRoundTrips) {
  for (const BufferLayout layout :
       {BufferLayout::kPerSlot, BufferLayout::kOneRegion,
        BufferLayout::kAuto}) {
    v1::WorkloadSpec proto = MinimalSpec();
    proto.set_buffer_layout(BufferLayoutToProto(layout));
    absl::StatusOr<WorkloadSpec> spec = SpecFromProto(proto);
    ASSERT_TRUE(spec.ok()) << spec.status();
    EXPECT_EQ(spec->buffer_layout, layout) << BufferLayoutName(layout);
  }
}

TEST(SpecFromProtoTest, RoundTripsThroughSpecToProto) {
  v1::WorkloadSpec proto = MinimalSpec();
  proto.set_op(v1::OP_WRITE);
  proto.mutable_targets(0)->set_allow_write(true);
  proto.add_cpus(0);
  proto.set_split("limits");
  proto.set_force_async(true);
  proto.set_huge_pages(v1::HUGE_PAGE_MODE_OFF);
  proto.set_buffer_layout(v1::BUFFER_LAYOUT_ONE_REGION);
  proto.add_ab_strategies("limits");
  proto.add_ab_strategies("fixed:128k");
  proto.mutable_ab_slice()->set_seconds(2);
  proto.set_latency_mode(v1::LATENCY_MODE_PER_IO);
  proto.mutable_io_timeout()->set_nanos(500000000);
  proto.mutable_precondition()->set_sequential_passes(2);
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(proto);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->precondition.sequential_passes, 2u);
  v1::WorkloadSpec full;
  SpecToProto(*spec, &full);
  absl::StatusOr<WorkloadSpec> again = SpecFromProto(full);
  ASSERT_TRUE(again.ok()) << again.status();
  v1::WorkloadSpec full_again;
  SpecToProto(*again, &full_again);
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(full, full_again))
      << full.DebugString() << "\nvs\n"
      << full_again.DebugString();
  EXPECT_EQ(full.split(), "limits");
  EXPECT_TRUE(full.has_block_size());
  EXPECT_TRUE(full.force_async());
  EXPECT_THAT(full.ab_strategies(),
              ::testing::ElementsAre("limits", "fixed:131072"));
  EXPECT_EQ(full.ab_slice().seconds(), 2);
  EXPECT_EQ(spec->latency_mode, LatencyMode::kPerIo);
  EXPECT_EQ(spec->io_timeout, absl::Milliseconds(500));
  EXPECT_EQ(full.latency_mode(), v1::LATENCY_MODE_PER_IO);
  EXPECT_EQ(full.io_timeout().nanos(), 500000000);
  EXPECT_EQ(full.huge_pages(), v1::HUGE_PAGE_MODE_OFF);
  EXPECT_EQ(full.buffer_layout(), v1::BUFFER_LAYOUT_ONE_REGION);
  EXPECT_TRUE(full.has_vectored());
  EXPECT_EQ(full.precondition().sequential_passes(), 2u);
}

TEST(SpecFromProtoTest, ShapeFieldsRoundTrip) {
  v1::WorkloadSpec proto = MinimalSpec();
  proto.set_op(v1::OP_RANDTRIM);
  proto.set_distribution("zipf:1.2");
  proto.set_random_percent(80);
  v1::BlockSizeShare* share = proto.add_write_bssplit();
  share->set_block_size(4096);
  share->set_percent(70);
  share = proto.add_write_bssplit();
  share->set_block_size(65536);
  share->set_percent(30);
  proto.set_rate_iops(20000);
  proto.set_arrivals(v1::ARRIVALS_POISSON);
  proto.set_fdatasync_every(16);
  v1::JobGroup* g = proto.add_groups();
  g->set_name("writes");
  g->add_cpus(2);
  g->set_op(v1::OP_WRITE);
  g->set_queue_depth(4);
  g->mutable_read_bssplit();  // set and empty: block_size, not the mix
  g->set_rate_bw(1 << 20);
  proto.add_groups()->add_cpus(0);
  proto.mutable_slo()->set_objective("p99.9<=250us");
  proto.mutable_slo()->set_precision(0.02);
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(proto);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->op, Op::kRandTrim);
  EXPECT_EQ(spec->distribution,
            (OffsetDistribution{OffsetDistribution::Kind::kZipf, 1.2}));
  EXPECT_EQ(spec->random_percent, 80u);
  EXPECT_EQ(spec->write_bssplit,
            (std::vector<BlockSizeShare>{{4096, 70}, {65536, 30}}));
  EXPECT_TRUE(spec->read_bssplit.empty());
  EXPECT_EQ(spec->rate_iops, 20000u);
  EXPECT_EQ(spec->arrivals, Arrivals::kPoisson);
  EXPECT_EQ(spec->fdatasync_every, 16u);
  ASSERT_EQ(spec->groups.size(), 2u);
  const JobGroupSpec& w = spec->groups[0];
  EXPECT_EQ(w.name, "writes");
  EXPECT_EQ(w.cpus, std::vector<int>{2});
  EXPECT_EQ(w.op, Op::kWrite);
  EXPECT_EQ(w.queue_depth, 4u);
  ASSERT_TRUE(w.read_bssplit.has_value());
  EXPECT_TRUE(w.read_bssplit->empty());
  EXPECT_FALSE(w.write_bssplit.has_value());  // inherits the workload's
  EXPECT_EQ(w.rate_bw, uint64_t{1} << 20);
  EXPECT_FALSE(w.distribution.has_value());
  EXPECT_FALSE(spec->groups[1].op.has_value());
  EXPECT_TRUE(spec->slo.enabled);
  EXPECT_EQ(spec->slo.target.percentile, 99.9);
  EXPECT_TRUE(spec->slo.target.inclusive);
  EXPECT_EQ(spec->slo.precision, 0.02);
  EXPECT_EQ(spec->slo.step, absl::Seconds(2));  // default
  v1::WorkloadSpec full;
  SpecToProto(*spec, &full);
  absl::StatusOr<WorkloadSpec> again = SpecFromProto(full);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, *spec);
  EXPECT_EQ(full.slo().objective(), "p99.9<=250us");
  EXPECT_EQ(full.distribution(), "zipf:1.2");
  EXPECT_TRUE(full.groups(0).has_read_bssplit());
  EXPECT_FALSE(full.groups(0).has_write_bssplit());
  // No SLO search stays none.
  v1::WorkloadSpec plain;
  SpecToProto(WorkloadSpec{}, &plain);
  EXPECT_FALSE(plain.has_slo());
  EXPECT_EQ(plain.distribution(), "uniform");
}

struct BadField {
  std::string name;   // test name
  std::string field;  // the message must start with this
  std::function<void(v1::WorkloadSpec*)> spoil;
};

class BadSpecTest : public ::testing::TestWithParam<BadField> {};

TEST_P(BadSpecTest, IsInvalidArgumentNamingTheField) {
  v1::WorkloadSpec proto = MinimalSpec();
  GetParam().spoil(&proto);
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(proto);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(spec.status().message()),
              StartsWith(GetParam().field));
}

INSTANTIATE_TEST_SUITE_P(
    EveryField, BadSpecTest,
    ::testing::Values(
        BadField{"EmptyPath", "spec.targets[1].path",
                 [](v1::WorkloadSpec* s) { s->add_targets(); }},
        BadField{"RelativePath", "spec.targets[0].path",
                 [](v1::WorkloadSpec* s) {
                   s->mutable_targets(0)->set_path("data/file");
                 }},
        BadField{"NulInPath", "spec.targets[0].path",
                 [](v1::WorkloadSpec* s) {
                   s->mutable_targets(0)->set_path(std::string("/a\0b", 4));
                 }},
        BadField{
            "UnknownOp", "spec.op",
            [](v1::WorkloadSpec* s) { s->set_op(static_cast<v1::Op>(42)); }},
        BadField{"ReadPercent", "spec.read_percent",
                 [](v1::WorkloadSpec* s) { s->set_read_percent(101); }},
        BadField{"ZeroBlockSize", "spec.block_size",
                 [](v1::WorkloadSpec* s) { s->set_block_size(0); }},
        BadField{"ZeroQueueDepth", "spec.queue_depth",
                 [](v1::WorkloadSpec* s) { s->set_queue_depth(0); }},
        BadField{"NegativeCpu", "spec.cpus[1]",
                 [](v1::WorkloadSpec* s) {
                   s->add_cpus(0);
                   s->add_cpus(-2);
                 }},
        BadField{
            "NegativeRuntime", "spec.runtime",
            [](v1::WorkloadSpec* s) { s->mutable_runtime()->set_seconds(-1); }},
        BadField{"MalformedRuntime", "spec.runtime",
                 [](v1::WorkloadSpec* s) {
                   s->mutable_runtime()->set_seconds(1);
                   s->mutable_runtime()->set_nanos(-5);
                 }},
        BadField{"EndlessRuntime", "spec.runtime",
                 [](v1::WorkloadSpec* s) { s->mutable_runtime(); }},
        BadField{
            "NegativeRamp", "spec.ramp_time",
            [](v1::WorkloadSpec* s) { s->mutable_ramp_time()->set_nanos(-1); }},
        BadField{"UnknownPollMode", "spec.polled",
                 [](v1::WorkloadSpec* s) {
                   s->set_polled(static_cast<v1::PollMode>(9));
                 }},
        BadField{"SqpollCpu", "spec.sqpoll_cpu",
                 [](v1::WorkloadSpec* s) { s->set_sqpoll_cpu(-2); }},
        BadField{"UnknownRequestCache", "spec.request_cache",
                 [](v1::WorkloadSpec* s) {
                   s->set_request_cache(static_cast<v1::RequestCacheMode>(7));
                 }},
        BadField{"UnknownBufferLayout", "spec.buffer_layout",
                 [](v1::WorkloadSpec* s) {
                   s->set_buffer_layout(static_cast<v1::BufferLayout>(5));
                 }},
        BadField{"UnknownHugePageMode", "spec.huge_pages",
                 [](v1::WorkloadSpec* s) {
                   s->set_huge_pages(static_cast<v1::HugePageMode>(6));
                 }},
        BadField{"Split", "spec.split",
                 [](v1::WorkloadSpec* s) { s->set_split("sideways"); }},
        BadField{"AbStrategy", "spec.ab_strategies[1]",
                 [](v1::WorkloadSpec* s) {
                   s->add_ab_strategies("none");
                   s->add_ab_strategies("bogus");
                 }},
        BadField{"AbFixedSize", "spec.ab_strategies[0]",
                 [](v1::WorkloadSpec* s) {
                   s->add_ab_strategies("fixed:1000");
                   s->add_ab_strategies("none");
                 }},
        BadField{"NegativeAbSlice", "spec.ab_slice",
                 [](v1::WorkloadSpec* s) {
                   s->add_ab_strategies("none");
                   s->add_ab_strategies("limits");
                   s->mutable_ab_slice()->set_seconds(-1);
                 }},
        BadField{"ZeroAbSlice", "spec.ab_slice",
                 [](v1::WorkloadSpec* s) {
                   s->add_ab_strategies("none");
                   s->add_ab_strategies("limits");
                   s->mutable_ab_slice();
                 }},
        BadField{"LatencyMode", "spec.latency_mode",
                 [](v1::WorkloadSpec* s) {
                   s->set_latency_mode(static_cast<v1::LatencyMode>(9));
                 }},
        BadField{"NegativeIoTimeout", "spec.io_timeout",
                 [](v1::WorkloadSpec* s) {
                   s->mutable_io_timeout()->set_seconds(-1);
                 }},
        BadField{"Distribution", "spec.distribution",
                 [](v1::WorkloadSpec* s) { s->set_distribution("zipf:0"); }},
        BadField{"RandomPercent", "spec.random_percent",
                 [](v1::WorkloadSpec* s) { s->set_random_percent(101); }},
        BadField{"BssplitSize", "spec.read_bssplit[1]",
                 [](v1::WorkloadSpec* s) {
                   s->add_read_bssplit()->set_block_size(4096);
                   s->mutable_read_bssplit(0)->set_percent(50);
                   s->add_read_bssplit()->set_percent(50);
                 }},
        BadField{"BssplitPercent", "spec.write_bssplit[0]",
                 [](v1::WorkloadSpec* s) {
                   s->add_write_bssplit()->set_block_size(4096);
                 }},
        BadField{"Arrivals", "spec.arrivals",
                 [](v1::WorkloadSpec* s) {
                   s->set_arrivals(static_cast<v1::Arrivals>(7));
                 }},
        BadField{"GroupOp", "spec.groups[1].op",
                 [](v1::WorkloadSpec* s) {
                   s->add_groups();
                   s->add_groups()->set_op(static_cast<v1::Op>(99));
                 }},
        BadField{"GroupCpu", "spec.groups[0].cpus[0]",
                 [](v1::WorkloadSpec* s) { s->add_groups()->add_cpus(-1); }},
        BadField{"GroupDistribution", "spec.groups[0].distribution",
                 [](v1::WorkloadSpec* s) {
                   s->add_groups()->set_distribution("pareto:2");
                 }},
        BadField{"GroupBssplit", "spec.groups[0].read_bssplit[0]",
                 [](v1::WorkloadSpec* s) {
                   s->add_groups()->mutable_read_bssplit()->add_shares();
                 }},
        BadField{"TooManyGroups", "spec.groups",
                 [](v1::WorkloadSpec* s) {
                   for (int i = 0; i < 17; ++i) s->add_groups();
                 }},
        BadField{"SloObjective", "spec.slo.objective",
                 [](v1::WorkloadSpec* s) {
                   s->mutable_slo()->set_objective("p99>1ms");
                 }},
        BadField{"SloMissingObjective", "spec.slo.objective",
                 [](v1::WorkloadSpec* s) { s->mutable_slo(); }},
        BadField{"SloStep", "spec.slo.step",
                 [](v1::WorkloadSpec* s) {
                   s->mutable_slo()->set_objective("p99<1ms");
                   s->mutable_slo()->mutable_step()->set_seconds(-1);
                 }}),
    [](const ::testing::TestParamInfo<BadField>& info) {
      return info.param.name;
    });

TEST(SpecFromProtoTest, SteadyStateRoundTripsAndNamesItsFields) {
  v1::WorkloadSpec proto = MinimalSpec();
  proto.mutable_steady_state()->set_criterion("p99:10%");
  proto.mutable_steady_state()->mutable_window()->set_seconds(12);
  proto.mutable_steady_state()->set_mode(v1::STEADY_STATE_MODE_GATE);
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(proto);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->steady_state.enabled);
  EXPECT_EQ(spec->steady_state.criterion.metric, SteadyMetric::kP99);
  EXPECT_EQ(spec->steady_state.window, absl::Seconds(12));
  EXPECT_EQ(spec->steady_state.check, absl::ZeroDuration());
  EXPECT_EQ(spec->steady_state.mode, SteadyStateMode::kGate);
  v1::WorkloadSpec written;
  SpecToProto(*spec, &written);
  absl::StatusOr<WorkloadSpec> again = SpecFromProto(written);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->steady_state, spec->steady_state);
  v1::WorkloadSpec none;
  SpecToProto(WorkloadSpec{}, &none);
  EXPECT_FALSE(none.has_steady_state());

  proto.mutable_steady_state()->set_criterion("iops:fast");
  absl::Status bad = SpecFromProto(proto).status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.message()),
              HasSubstr("spec.steady_state.criterion"));
  proto.mutable_steady_state()->set_criterion("iops:5%");
  proto.mutable_steady_state()->mutable_check()->set_seconds(-1);
  bad = SpecFromProto(proto).status();
  EXPECT_THAT(std::string(bad.message()), HasSubstr("spec.steady_state.check"));
  proto.mutable_steady_state()->clear_check();
  proto.mutable_steady_state()->set_mode(static_cast<v1::SteadyStateMode>(9));
  bad = SpecFromProto(proto).status();
  EXPECT_THAT(std::string(bad.message()), HasSubstr("spec.steady_state.mode"));
}

TEST(SpecFromProtoTest, NoTargetsStayNone) {
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(v1::WorkloadSpec());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->targets.empty());
}

TEST(SpecFromProtoTest, ZeroRuntimeWithIoCountIsFine) {
  v1::WorkloadSpec proto = MinimalSpec();
  proto.mutable_runtime();
  proto.set_io_count(1000);
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(proto);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->runtime, absl::ZeroDuration());
  EXPECT_EQ(spec->io_count, 1000u);
}

TEST(SpecFromProtoTest, NopRoundTripsWithNoTargets) {
  v1::WorkloadSpec proto;
  proto.set_nop(true);
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(proto);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->nop);
  EXPECT_TRUE(spec->targets.empty());
  v1::WorkloadSpec back;
  SpecToProto(*spec, &back);
  EXPECT_TRUE(back.nop());
  EXPECT_EQ(back.targets_size(), 0);
}

TEST(SpecFromProtoTest, ZeroRuntimeWithAnSloSearchIsFine) {
  v1::WorkloadSpec proto = MinimalSpec();
  proto.mutable_runtime();  // a search ends after its steps
  proto.mutable_slo()->set_objective("p99<1ms");
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(proto);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->slo.enabled);
  EXPECT_EQ(spec->runtime, absl::ZeroDuration());
}

TEST(SpecFromProtoTest, MessagesGiveTheValue) {
  v1::WorkloadSpec proto = MinimalSpec();
  proto.set_read_percent(150);
  EXPECT_THAT(std::string(SpecFromProto(proto).status().message()),
              HasSubstr("150"));
}

}  // namespace
}  // namespace blkperf

namespace blkperf {
namespace {

// A NOP workload's resolved spec, as the daemon returns it: its stand-in
// target is "nop", which no request may name.
TEST(SpecFromProtoTest, ADaemonResultIsDecodedNotCheckedAsInput) {
  v1::WorkloadSpec resolved;
  resolved.add_targets()->set_path("nop");
  resolved.set_nop(true);
  resolved.set_op(v1::OP_RANDREAD);
  resolved.set_read_percent(100);
  const absl::StatusOr<WorkloadSpec> as_request = SpecFromProto(resolved);
  ASSERT_FALSE(as_request.ok());
  EXPECT_EQ(as_request.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(as_request.status().message()),
              testing::HasSubstr("spec.targets[0].path"));
  const absl::StatusOr<WorkloadSpec> as_result =
      SpecFromProto(resolved, SpecOrigin::kDaemonResult);
  ASSERT_TRUE(as_result.ok()) << as_result.status();
  ASSERT_EQ(as_result->targets.size(), 1u);
  EXPECT_EQ(as_result->targets[0].path, "nop");
  EXPECT_TRUE(as_result->nop);
  // Undecodable data is still refused: an enum number this build lacks.
  resolved.set_op(static_cast<v1::Op>(999));
  EXPECT_FALSE(SpecFromProto(resolved, SpecOrigin::kDaemonResult).ok());
}

TEST(SpecFromProtoTest, ExperimentArmIsABoundedLabelValue) {
  v1::WorkloadSpec proto = MinimalSpec();
  proto.set_experiment_arm("split=fixed:128k");
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(proto);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->experiment_arm, "split=fixed:128k");
  v1::WorkloadSpec back;
  SpecToProto(*spec, &back);
  EXPECT_EQ(back.experiment_arm(), "split=fixed:128k");
  proto.set_experiment_arm(std::string(kMaxExperimentArmBytes, 'a'));
  EXPECT_TRUE(SpecFromProto(proto).ok());
  for (const std::string& bad :
       {std::string(kMaxExperimentArmBytes + 1, 'a'), std::string("a b"),
        std::string("a\"}"), std::string("arm\n")}) {
    proto.set_experiment_arm(bad);
    absl::StatusOr<WorkloadSpec> refused = SpecFromProto(proto);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(refused.status().message()),
                StartsWith("spec.experiment_arm"));
    EXPECT_THAT(std::string(refused.status().message()),
                testing::Not(testing::HasSubstr(bad)));
  }
}

}  // namespace
}  // namespace blkperf
