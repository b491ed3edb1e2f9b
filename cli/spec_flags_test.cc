#include "cli/spec_flags.h"

#include <unistd.h>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

ABSL_DECLARE_FLAG(std::vector<std::string>, target);
ABSL_DECLARE_FLAG(std::optional<std::string>, bs);
ABSL_DECLARE_FLAG(std::optional<uint32_t>, qd);
ABSL_DECLARE_FLAG(std::optional<std::string>, op);
ABSL_DECLARE_FLAG(std::optional<std::string>, cpus);
ABSL_DECLARE_FLAG(std::optional<absl::Duration>, runtime);
ABSL_DECLARE_FLAG(bool, direct);
ABSL_DECLARE_FLAG(bool, allow_write);
ABSL_DECLARE_FLAG(bool, fixed_buffers);
ABSL_DECLARE_FLAG(std::vector<std::string>, create_size);
ABSL_DECLARE_FLAG(std::optional<std::string>, polled);
ABSL_DECLARE_FLAG(bool, vectored);
ABSL_DECLARE_FLAG(bool, nop);
ABSL_DECLARE_FLAG(std::optional<std::string>, buffer_layout);
ABSL_DECLARE_FLAG(std::optional<std::string>, huge_pages);
ABSL_DECLARE_FLAG(std::optional<uint64_t>, io_count);
ABSL_DECLARE_FLAG(bool, force_async);
ABSL_DECLARE_FLAG(std::optional<std::string>, latency_mode);
ABSL_DECLARE_FLAG(std::optional<absl::Duration>, io_timeout);
ABSL_DECLARE_FLAG(std::optional<std::string>, request_cache);
ABSL_DECLARE_FLAG(std::string, spec_file);
ABSL_DECLARE_FLAG(std::optional<std::string>, distribution);
ABSL_DECLARE_FLAG(std::optional<uint32_t>, random_percent);
ABSL_DECLARE_FLAG(std::optional<std::string>, bssplit);
ABSL_DECLARE_FLAG(std::optional<uint64_t>, rate_iops);
ABSL_DECLARE_FLAG(std::optional<std::string>, rate_bw);
ABSL_DECLARE_FLAG(std::optional<std::string>, arrivals);
ABSL_DECLARE_FLAG(std::optional<uint32_t>, fsync);
ABSL_DECLARE_FLAG(std::optional<uint32_t>, fdatasync);
ABSL_DECLARE_FLAG(std::optional<std::string>, groups);
ABSL_DECLARE_FLAG(std::optional<std::string>, slo);
ABSL_DECLARE_FLAG(std::optional<double>, slo_precision);
ABSL_DECLARE_FLAG(std::optional<absl::Duration>, slo_step);
ABSL_DECLARE_FLAG(std::optional<absl::Duration>, slo_settle);
ABSL_DECLARE_FLAG(std::optional<std::string>, steady_state);
ABSL_DECLARE_FLAG(std::optional<absl::Duration>, steady_state_window);
ABSL_DECLARE_FLAG(std::optional<absl::Duration>, steady_state_check);
ABSL_DECLARE_FLAG(std::optional<std::string>, steady_state_mode);
ABSL_DECLARE_FLAG(std::optional<std::string>, precondition);

namespace blkperf {
namespace {

using ::testing::HasSubstr;

TEST(ParseSizeFlagTest, Suffixes) {
  EXPECT_EQ(*ParseSizeFlag("4096", "bs"), 4096u);
  EXPECT_EQ(*ParseSizeFlag("4k", "bs"), 4096u);
  EXPECT_EQ(*ParseSizeFlag("1M", "bs"), 1u << 20);
  EXPECT_EQ(*ParseSizeFlag("2g", "bs"), 2ull << 30);
  absl::Status bad = ParseSizeFlag("4x", "bs").status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.message()), HasSubstr("--bs=4x"));
}

TEST(ParseCpuListTest, Ranges) {
  EXPECT_EQ(*ParseCpuList("0-3,6", "cpus"), (std::vector<int>{0, 1, 2, 3, 6}));
  EXPECT_EQ(*ParseCpuList("5", "cpus"), std::vector<int>{5});
  EXPECT_FALSE(ParseCpuList("3-1", "cpus").ok());
  EXPECT_FALSE(ParseCpuList("a", "cpus").ok());
}

TEST(SpecFromFlagsTest, OnlyGivenFlagsAreSet) {
  absl::SetFlag(&FLAGS_target, {"/dev/zram0", "/data/f"});
  absl::SetFlag(&FLAGS_bs, "8k");
  absl::SetFlag(&FLAGS_qd, 64u);
  absl::SetFlag(&FLAGS_op, "randwrite");
  absl::SetFlag(&FLAGS_cpus, "0-1");
  absl::SetFlag(&FLAGS_runtime, absl::Milliseconds(1500));
  absl::SetFlag(&FLAGS_direct, false);
  absl::SetFlag(&FLAGS_allow_write, true);
  absl::SetFlag(&FLAGS_create_size, {"0", "1m"});
  absl::SetFlag(&FLAGS_polled, "auto");
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->targets_size(), 2);
  EXPECT_EQ(spec->targets(1).path(), "/data/f");
  EXPECT_TRUE(spec->targets(0).allow_write());
  EXPECT_EQ(spec->targets(0).create_size(), 0u);
  EXPECT_EQ(spec->targets(1).create_size(), 1u << 20);
  EXPECT_EQ(spec->block_size(), 8192u);
  EXPECT_EQ(spec->queue_depth(), 64u);
  EXPECT_EQ(spec->op(), v1::OP_RANDWRITE);
  EXPECT_EQ(spec->cpus_size(), 2);
  EXPECT_EQ(spec->runtime().seconds(), 1);
  EXPECT_EQ(spec->runtime().nanos(), 500000000);
  EXPECT_TRUE(spec->has_direct());
  EXPECT_FALSE(spec->direct());
  EXPECT_EQ(spec->polled(), v1::POLL_MODE_AUTO);
  // Not given: left unset for the engine's defaults.
  EXPECT_FALSE(spec->has_read_percent());
  EXPECT_FALSE(spec->has_fixed_buffers());
  EXPECT_FALSE(spec->has_threads());

  absl::SetFlag(&FLAGS_op, "sideways");
  absl::Status bad = SpecFromFlags().status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.message()), HasSubstr("--op=sideways"));
}

TEST(SpecFromFlagsTest, IoCountAloneRunsUntilDone) {
  absl::SetFlag(&FLAGS_op, std::nullopt);
  absl::SetFlag(&FLAGS_runtime, std::nullopt);
  absl::SetFlag(&FLAGS_io_count, uint64_t{1000});
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->io_count(), 1000u);
  ASSERT_TRUE(spec->has_runtime());
  EXPECT_EQ(spec->runtime().seconds(), 0);
  absl::SetFlag(&FLAGS_runtime, absl::Seconds(3));
  EXPECT_EQ(SpecFromFlags()->runtime().seconds(), 3);
  absl::SetFlag(&FLAGS_io_count, std::nullopt);
  absl::SetFlag(&FLAGS_runtime, std::nullopt);
}

TEST(SpecFromFlagsTest, ForceAsyncAndNoAbSchedule) {
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->has_force_async());
  absl::SetFlag(&FLAGS_force_async, true);
  spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->has_force_async());
  EXPECT_TRUE(spec->force_async());
  // --ab and --ab_slice are experiment flags (experiment/flags.h), not
  // spec flags: an A/B schedule comes only from a spec file.
  EXPECT_EQ(absl::FindCommandLineFlag("ab"), nullptr);
  EXPECT_EQ(absl::FindCommandLineFlag("ab_slice"), nullptr);
  EXPECT_EQ(spec->ab_strategies_size(), 0);
  EXPECT_FALSE(spec->has_ab_slice());
  absl::SetFlag(&FLAGS_force_async, false);
}

TEST(SpecFromFlagsTest, PreconditionSequentialPasses) {
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->has_precondition());
  absl::SetFlag(&FLAGS_precondition, "sequential:2");
  spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->precondition().sequential_passes(), 2u);
  absl::SetFlag(&FLAGS_precondition, "none");
  spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->has_precondition());
  for (const char* bad :
       {"sequential", "sequential:", "sequential:0", "sequential:17",
        "sequential:-1", "random:2", "2"}) {
    absl::SetFlag(&FLAGS_precondition, bad);
    const absl::Status status = SpecFromFlags().status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(status.message()),
                HasSubstr(absl::StrCat("--precondition=", bad, ":")));
  }
  absl::SetFlag(&FLAGS_precondition, std::nullopt);
}

TEST(SpecFromFlagsTest, LatencyModeAndIoTimeout) {
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->latency_mode(), v1::LATENCY_MODE_UNSPECIFIED);
  EXPECT_FALSE(spec->has_io_timeout());

  absl::SetFlag(&FLAGS_latency_mode, "per_io");
  absl::SetFlag(&FLAGS_io_timeout, absl::Milliseconds(250));
  spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->latency_mode(), v1::LATENCY_MODE_PER_IO);
  EXPECT_EQ(spec->io_timeout().nanos(), 250000000);

  absl::SetFlag(&FLAGS_latency_mode, "sometimes");
  absl::Status bad = SpecFromFlags().status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.message()), HasSubstr("--latency_mode=sometimes"));
  absl::SetFlag(&FLAGS_latency_mode, std::nullopt);
  absl::SetFlag(&FLAGS_io_timeout, -absl::Seconds(1));
  bad = SpecFromFlags().status();
  EXPECT_THAT(std::string(bad.message()), HasSubstr("--io_timeout"));
  absl::SetFlag(&FLAGS_io_timeout, std::nullopt);
}

TEST(SpecFromFlagsTest, SteadyStateFlags) {
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->has_steady_state());

  absl::SetFlag(&FLAGS_steady_state, "iops_slope:0.5%");
  absl::SetFlag(&FLAGS_steady_state_window, absl::Seconds(20));
  absl::SetFlag(&FLAGS_steady_state_check, absl::Seconds(2));
  absl::SetFlag(&FLAGS_steady_state_mode, "gate");
  spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->steady_state().criterion(), "iops_slope:0.5%");
  EXPECT_EQ(spec->steady_state().window().seconds(), 20);
  EXPECT_EQ(spec->steady_state().check().seconds(), 2);
  EXPECT_EQ(spec->steady_state().mode(), v1::STEADY_STATE_MODE_GATE);

  absl::SetFlag(&FLAGS_steady_state_mode, "sometimes");
  absl::Status bad = SpecFromFlags().status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.message()),
              HasSubstr("--steady_state_mode=sometimes"));
  absl::SetFlag(&FLAGS_steady_state_mode, "stop");
  absl::SetFlag(&FLAGS_steady_state, std::nullopt);
  bad = SpecFromFlags().status();  // a window without a criterion
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.message()), HasSubstr("need --steady_state"));
  absl::SetFlag(&FLAGS_steady_state_window, std::nullopt);
  absl::SetFlag(&FLAGS_steady_state_check, std::nullopt);
  absl::SetFlag(&FLAGS_steady_state_mode, std::nullopt);
}

// The spec field's spelling (per_cpu) and the older flag's (percpu) both.
TEST(SpecFromFlagsTest, RequestCacheTakesTheSpecFieldsName) {
  for (const char* name : {"per_cpu", "percpu", "PER_CPU"}) {
    absl::SetFlag(&FLAGS_request_cache, name);
    absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
    ASSERT_TRUE(spec.ok()) << name << ": " << spec.status();
    EXPECT_EQ(spec->request_cache(), v1::REQUEST_CACHE_MODE_PER_CPU) << name;
  }
  absl::SetFlag(&FLAGS_request_cache, "shared");
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->request_cache(), v1::REQUEST_CACHE_MODE_SHARED);
  absl::SetFlag(&FLAGS_request_cache, "unspecified");
  const absl::Status bad = SpecFromFlags().status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.message()),
              HasSubstr("--request_cache=unspecified"));
  EXPECT_THAT(std::string(bad.message()), HasSubstr("per_cpu"));
  absl::SetFlag(&FLAGS_request_cache, std::nullopt);
}

// Each shape flag's value, and that no flag leaks into the next test.
class ShapeFlagsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    absl::SetFlag(&FLAGS_distribution, std::nullopt);
    absl::SetFlag(&FLAGS_random_percent, std::nullopt);
    absl::SetFlag(&FLAGS_bssplit, std::nullopt);
    absl::SetFlag(&FLAGS_rate_iops, std::nullopt);
    absl::SetFlag(&FLAGS_rate_bw, std::nullopt);
    absl::SetFlag(&FLAGS_arrivals, std::nullopt);
    absl::SetFlag(&FLAGS_fsync, std::nullopt);
    absl::SetFlag(&FLAGS_fdatasync, std::nullopt);
    absl::SetFlag(&FLAGS_groups, std::nullopt);
    absl::SetFlag(&FLAGS_slo, std::nullopt);
    absl::SetFlag(&FLAGS_slo_precision, std::nullopt);
    absl::SetFlag(&FLAGS_slo_step, std::nullopt);
    absl::SetFlag(&FLAGS_slo_settle, std::nullopt);
    absl::SetFlag(&FLAGS_op, std::nullopt);
  }

  // The error SpecFromFlags gives, which must name `flag`.
  void ExpectBad(const std::string& flag, const std::string& why) {
    absl::Status bad = SpecFromFlags().status();
    EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument) << flag;
    EXPECT_THAT(std::string(bad.message()), HasSubstr(flag));
    EXPECT_THAT(std::string(bad.message()), HasSubstr(why));
  }
};

TEST_F(ShapeFlagsTest, UnsetShapeFlagsSetNothing) {
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->distribution().empty());
  EXPECT_FALSE(spec->has_rate_iops());
  EXPECT_EQ(spec->read_bssplit_size(), 0);
  EXPECT_EQ(spec->groups_size(), 0);
  EXPECT_FALSE(spec->has_slo());
}

TEST_F(ShapeFlagsTest, FioStyleShapeFlags) {
  absl::SetFlag(&FLAGS_op, "randtrim");
  absl::SetFlag(&FLAGS_distribution, "zipf:1.2");
  absl::SetFlag(&FLAGS_random_percent, 90u);
  absl::SetFlag(&FLAGS_bssplit, "4k/70:64k/30");
  absl::SetFlag(&FLAGS_rate_bw, "200m");
  absl::SetFlag(&FLAGS_arrivals, "poisson");
  absl::SetFlag(&FLAGS_fdatasync, 8u);
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->op(), v1::OP_RANDTRIM);
  EXPECT_EQ(spec->distribution(), "zipf:1.2");
  EXPECT_EQ(spec->random_percent(), 90u);
  ASSERT_EQ(spec->read_bssplit_size(), 2);
  ASSERT_EQ(spec->write_bssplit_size(), 2);  // one mix: both directions
  EXPECT_EQ(spec->read_bssplit(1).block_size(), 65536u);
  EXPECT_EQ(spec->read_bssplit(1).percent(), 30u);
  EXPECT_EQ(spec->rate_bw(), 200u << 20);
  EXPECT_EQ(spec->arrivals(), v1::ARRIVALS_POISSON);
  EXPECT_EQ(spec->fdatasync_every(), 8u);

  absl::SetFlag(&FLAGS_bssplit, "4k/50:8k/,64k/100");
  spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->read_bssplit_size(), 2);
  EXPECT_EQ(spec->read_bssplit(1).percent(), 50u);  // fio's blank entry
  ASSERT_EQ(spec->write_bssplit_size(), 1);
  EXPECT_EQ(spec->write_bssplit(0).block_size(), 65536u);
  absl::SetFlag(&FLAGS_bssplit, ",16k/100");
  spec = SpecFromFlags();
  EXPECT_EQ(spec->read_bssplit_size(), 0);
  EXPECT_EQ(spec->write_bssplit_size(), 1);
}

TEST_F(ShapeFlagsTest, GroupsFlag) {
  absl::SetFlag(&FLAGS_groups,
                "reads: op=randread cpus=0-1 distribution=zipf:1.2 qd=16; "
                "op=write cpus=2 bs=128k rate_iops=500 arrivals=poisson "
                "fsync=32 bssplit=,64k/50:128k/50");
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->groups_size(), 2);
  const v1::JobGroup& reads = spec->groups(0);
  EXPECT_EQ(reads.name(), "reads");
  EXPECT_EQ(reads.op(), v1::OP_RANDREAD);
  EXPECT_THAT(reads.cpus(), ::testing::ElementsAre(0, 1));
  EXPECT_EQ(reads.distribution(), "zipf:1.2");
  EXPECT_EQ(reads.queue_depth(), 16u);
  const v1::JobGroup& writes = spec->groups(1);
  EXPECT_TRUE(writes.name().empty());
  EXPECT_EQ(writes.op(), v1::OP_WRITE);
  EXPECT_EQ(writes.block_size(), 128u << 10);
  EXPECT_EQ(writes.rate_iops(), 500u);
  EXPECT_EQ(writes.arrivals(), v1::ARRIVALS_POISSON);
  EXPECT_EQ(writes.fsync_every(), 32u);
  EXPECT_FALSE(writes.has_read_bssplit());
  EXPECT_EQ(writes.write_bssplit().shares_size(), 2);

  absl::SetFlag(&FLAGS_groups, "op=randread cpus=0 color=blue");
  ExpectBad("--groups=color", "not a group key");
  absl::SetFlag(&FLAGS_groups, "op=randread cpus");
  ExpectBad("--groups=cpus", "not KEY=VALUE");
  absl::SetFlag(&FLAGS_groups, "op=sideways cpus=0");
  ExpectBad("--groups op=sideways", "not one of read");
  absl::SetFlag(&FLAGS_groups, " ; ");
  ExpectBad("--groups", "no group given");
}

TEST_F(ShapeFlagsTest, SloFlags) {
  absl::SetFlag(&FLAGS_slo, "p99<1ms");
  absl::SetFlag(&FLAGS_slo_precision, 0.02);
  absl::SetFlag(&FLAGS_slo_step, absl::Seconds(3));
  absl::SetFlag(&FLAGS_slo_settle, absl::Milliseconds(500));
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->slo().objective(), "p99<1ms");
  EXPECT_EQ(spec->slo().precision(), 0.02);
  EXPECT_EQ(spec->slo().step().seconds(), 3);
  EXPECT_EQ(spec->slo().settle().nanos(), 500000000);
  absl::SetFlag(&FLAGS_slo_step, -absl::Seconds(1));
  ExpectBad("--slo_step", "must not be negative");
}

TEST_F(ShapeFlagsTest, BadShapeFlagsNameTheFlag) {
  absl::SetFlag(&FLAGS_bssplit, "4k/70:64k/20");
  ExpectBad("--bssplit", "add up to 90, not 100");
  absl::SetFlag(&FLAGS_bssplit, "4k,8k,16k");
  ExpectBad("--bssplit", "one comma");
  absl::SetFlag(&FLAGS_bssplit, std::nullopt);
  absl::SetFlag(&FLAGS_rate_bw, "fast");
  ExpectBad("--rate_bw=fast", "not a size");
  absl::SetFlag(&FLAGS_rate_bw, std::nullopt);
  absl::SetFlag(&FLAGS_arrivals, "bursty");
  ExpectBad("--arrivals=bursty", "not one of uniform, poisson");
}

TEST(SpecFromJsonTest, ShapeFieldsGroupsAndSloInSpecFiles) {
  v1::WorkloadSpec spec;
  ASSERT_TRUE(SpecFromJson(R"({
      "distribution": "zipf:1.2",
      "readBssplit": [{"blockSize": 4096, "percent": 70},
                      {"blockSize": 65536, "percent": 30}],
      "rateIops": "20000", "arrivals": "ARRIVALS_POISSON",
      "groups": [{"name": "reads", "cpus": [0, 1], "op": "OP_RANDREAD"},
                 {"cpus": [2], "op": "OP_WRITE", "writeBssplit": {},
                  "fdatasyncEvery": 16}],
      "slo": {"objective": "p99<1ms", "precision": 0.02, "step": "1s"}})",
                           &spec)
                  .ok());
  EXPECT_EQ(spec.distribution(), "zipf:1.2");
  EXPECT_EQ(spec.read_bssplit_size(), 2);
  EXPECT_EQ(spec.rate_iops(), 20000u);
  EXPECT_EQ(spec.arrivals(), v1::ARRIVALS_POISSON);
  ASSERT_EQ(spec.groups_size(), 2);
  EXPECT_EQ(spec.groups(0).name(), "reads");
  EXPECT_TRUE(spec.groups(1).has_write_bssplit());
  EXPECT_EQ(spec.groups(1).fdatasync_every(), 16u);
  EXPECT_EQ(spec.slo().objective(), "p99<1ms");
  EXPECT_EQ(spec.slo().step().seconds(), 1);
  absl::Status unknown = SpecFromJson(R"({"rateIopz": 5})", &spec);
  EXPECT_THAT(std::string(unknown.message()), HasSubstr("rateIopz"));
}

TEST(SpecFromJsonTest, ProtobufJsonMapping) {
  v1::WorkloadSpec spec;
  ASSERT_TRUE(SpecFromJson(R"({"targets": [{"path": "/dev/zram0"}],
                               "op": "OP_RANDREAD", "queue_depth": 16,
                               "runtime": "2.5s", "split": "fixed:64k",
                               "force_async": true,
                               "ab_strategies": ["none", "limits"],
                               "ab_slice": "0.5s"})",
                           &spec)
                  .ok());
  EXPECT_EQ(spec.queue_depth(), 16u);
  EXPECT_EQ(spec.runtime().seconds(), 2);
  EXPECT_EQ(spec.split(), "fixed:64k");
  EXPECT_TRUE(spec.force_async());
  EXPECT_EQ(spec.ab_strategies_size(), 2);
  EXPECT_EQ(spec.ab_slice().nanos(), 500000000);
  absl::Status bad = SpecFromJson(R"({"queue_dept": 16})", &spec);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
TEST(SpecFromFlagsTest, IoModeAndBufferFlags) {
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->has_vectored());
  EXPECT_EQ(spec->buffer_layout(), v1::BUFFER_LAYOUT_UNSPECIFIED);
  EXPECT_EQ(spec->huge_pages(), v1::HUGE_PAGE_MODE_UNSPECIFIED);

  absl::SetFlag(&FLAGS_vectored, true);
  absl::SetFlag(&FLAGS_buffer_layout, "one_region");
  absl::SetFlag(&FLAGS_huge_pages, "on");
  spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->vectored());
  EXPECT_EQ(spec->buffer_layout(), v1::BUFFER_LAYOUT_ONE_REGION);
  EXPECT_EQ(spec->huge_pages(), v1::HUGE_PAGE_MODE_ON);

  absl::SetFlag(&FLAGS_buffer_layout, "auto");
  spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->buffer_layout(), v1::BUFFER_LAYOUT_AUTO);

  absl::SetFlag(&FLAGS_buffer_layout, "striped");
  absl::Status bad = SpecFromFlags().status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.message()), HasSubstr("--buffer_layout=striped"));
  absl::SetFlag(&FLAGS_buffer_layout, std::nullopt);
  absl::SetFlag(&FLAGS_huge_pages, "sometimes");
  bad = SpecFromFlags().status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.message()), HasSubstr("--huge_pages=sometimes"));
  absl::SetFlag(&FLAGS_huge_pages, std::nullopt);
  absl::SetFlag(&FLAGS_vectored, false);
}

TEST(SpecFromFlagsTest, NopFlag) {
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->has_nop());
  absl::SetFlag(&FLAGS_nop, true);
  spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->nop());
  absl::SetFlag(&FLAGS_nop, false);
}

}  // namespace blkperf

namespace blkperf {
namespace {

using ::testing::HasSubstr;

TEST(SpecFromJsonTest, NestedArraysAreRefusedNotFlattened) {
  for (const char* json : {R"({"targets":[[]]})",
                           R"({"targets":[[{"path":"/dev/zram0"}]]})",
                           R"({"cpus":[0,[1]]})"}) {
    v1::WorkloadSpec spec;
    absl::Status s = SpecFromJson(json, &spec);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << json;
    EXPECT_THAT(std::string(s.message()), HasSubstr("array inside an array"));
    EXPECT_EQ(spec.targets_size(), 0) << json;
  }
  // Brackets inside strings are text, not shape.
  v1::WorkloadSpec spec;
  ASSERT_TRUE(SpecFromJson(R"({"targets":[{"path":"/srv/[[x]]\"["}]})", &spec)
                  .ok());
  EXPECT_EQ(spec.targets(0).path(), "/srv/[[x]]\"[");
}

TEST(SpecFromJsonTest, DeepNestingAndHugeInputAreRefusedBeforeParsing) {
  v1::WorkloadSpec spec;
  const std::string deep =
      std::string(100, '{') + std::string(100, '}');
  absl::Status s = SpecFromJson(deep, &spec);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("deeper than 16"));
  const std::string huge =
      R"({"targets":[{"path":")" + std::string(kMaxSpecJsonBytes, 'a') + "\"}]}";
  s = SpecFromJson(huge, &spec);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("over the limit"));
}

// A 50 MB nested-array file: refused after reading one byte past the limit,
// naming the flag.
TEST(SpecFromFlagsTest, OversizedSpecFileIsRefusedNamingTheFlag) {
  const std::string path =
      absl::StrCat(testing::TempDir(), "/huge_spec_", getpid(), ".json");
  {
    std::ofstream out(path);
    const std::string chunk(1 << 20, '[');
    for (int i = 0; i < 50; ++i) out << chunk;
  }
  absl::SetFlag(&FLAGS_spec_file, path);
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  absl::SetFlag(&FLAGS_spec_file, "");
  unlink(path.c_str());
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(spec.status().message()), HasSubstr("--spec_file"));
  EXPECT_THAT(std::string(spec.status().message()), HasSubstr("limit"));
}

TEST(SpecFromFlagsWithTest, AppliesOneFieldAndRestoresTheFlags) {
  absl::SetFlag(&FLAGS_qd, 8u);
  absl::SetFlag(&FLAGS_bs, std::string("16k"));
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlagsWith("qd", "64");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->queue_depth(), 64u);
  EXPECT_EQ(spec->block_size(), 16384u);  // shared flags stay
  EXPECT_EQ(absl::GetFlag(FLAGS_qd), 8u);
  spec = SpecFromFlagsWith("rate_iops", "25000");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->queue_depth(), 8u);
  EXPECT_FALSE(absl::GetFlag(FLAGS_rate_iops).has_value());
  absl::SetFlag(&FLAGS_qd, std::nullopt);
  absl::SetFlag(&FLAGS_bs, std::nullopt);
}

TEST(SpecFromFlagsWithTest, ABoolAtItsDefaultIsStillGiven) {
  absl::StatusOr<v1::WorkloadSpec> on = SpecFromFlagsWith("fixed_buffers", "true");
  ASSERT_TRUE(on.ok()) << on.status();
  ASSERT_TRUE(on->has_fixed_buffers());
  EXPECT_TRUE(on->fixed_buffers());
  absl::StatusOr<v1::WorkloadSpec> off =
      SpecFromFlagsWith("fixed_buffers", "false");
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_FALSE(off->fixed_buffers());
  EXPECT_TRUE(absl::GetFlag(FLAGS_fixed_buffers));
  // Without the override, the default leaves the field unset.
  EXPECT_FALSE(SpecFromFlags()->has_fixed_buffers());
}

TEST(SpecFromFlagsWithTest, RefusesWhatIsNotAnArmsField) {
  for (const auto& [flag, value] :
       std::vector<std::pair<std::string, std::string>>{
           {"runtime", "1s"}, {"ab", "none"}, {"json", "true"},
           {"no_such_flag", "1"}, {"qd", "many"}, {"spec_file", "x"}}) {
    absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlagsWith(flag, value);
    ASSERT_FALSE(spec.ok()) << flag;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(spec.status().message(), HasSubstr("--vary=" + flag + "="));
  }
}

TEST(SpecFromFlagsWithOverridesTest, SeveralFieldsAndAValueWithCommas) {
  absl::SetFlag(&FLAGS_qd, 8u);
  const std::vector<std::string> targets = absl::GetFlag(FLAGS_target);
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlagsWithOverrides(
      {{"target", "/dev/a,/dev/b"}, {"fixed_buffers", "false"}, {"qd", "64"}});
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->targets_size(), 2);
  EXPECT_EQ(spec->targets(1).path(), "/dev/b");
  ASSERT_TRUE(spec->has_fixed_buffers());  // a bool at its default, given
  EXPECT_FALSE(spec->fixed_buffers());
  EXPECT_EQ(spec->queue_depth(), 64u);
  // Every flag is as before, and no longer counts as given.
  EXPECT_EQ(absl::GetFlag(FLAGS_qd), 8u);
  EXPECT_EQ(absl::GetFlag(FLAGS_target), targets);
  EXPECT_FALSE(SpecFromFlags()->has_fixed_buffers());
  // The first bad override is named; the ones before it are restored too.
  spec = SpecFromFlagsWithOverrides({{"qd", "16"}, {"runtime", "1s"}});
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()), HasSubstr("--runtime=1s"));
  EXPECT_EQ(absl::GetFlag(FLAGS_qd), 8u);
  absl::SetFlag(&FLAGS_qd, std::nullopt);
}

TEST(CutTopLevelMemberTest, CutsTheMemberWhereverItStands) {
  struct Case {
    const char* json;
    const char* rest;
    const char* value;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"qd": 8, "experiment": {"arms": [1, "}"]}, "bs": 4096})",
            R"({"qd": 8, "bs": 4096})", R"({"arms": [1, "}"]})"},
           {R"({"qd": 8, "experiment": [1, 2]})", R"({"qd": 8})", "[1, 2]"},
           {R"({"experiment": {}, "qd": 8})", R"({"qd": 8})", "{}"},
           {R"({ "experiment" : "x" })", R"({ })", R"("x")"},
           // A nested "experiment" or one inside a string is not the member.
           {R"({"a": {"experiment": 1}, "b": "\"experiment\": 2"})", nullptr, ""},
       }) {
    const JsonMemberCut cut = CutTopLevelMember(c.json, "experiment");
    EXPECT_EQ(cut.found, c.rest != nullptr) << c.json;
    EXPECT_EQ(cut.rest, c.rest != nullptr ? c.rest : c.json) << c.json;
    EXPECT_EQ(cut.value, c.value) << c.json;
  }
}

TEST(SpecFileExperimentTest, TheSpecParsesAndTheArmsComeApart) {
  const std::string path =
      absl::StrCat(testing::TempDir(), "/experiment_spec_", getpid(), ".json");
  {
    std::ofstream out(path);
    out << R"({"queue_depth": 4, "experiment": {"arms": [{"name": "a"},)"
        << R"( {"name": "b", "overrides": {"qd": 8}}]}, "block_size": 8192})";
  }
  absl::SetFlag(&FLAGS_spec_file, path);
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  absl::StatusOr<std::string> experiment = SpecFileExperimentJson();
  absl::SetFlag(&FLAGS_spec_file, "");
  unlink(path.c_str());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->queue_depth(), 4u);
  EXPECT_EQ(spec->block_size(), 8192u);
  ASSERT_TRUE(experiment.ok()) << experiment.status();
  EXPECT_THAT(*experiment, HasSubstr(R"("overrides": {"qd": 8})"));
  EXPECT_EQ(*SpecFileExperimentJson(), "");  // no --spec_file
}

}  // namespace
}  // namespace blkperf
