#include "daemon/cli/spec_flags.h"

#include <unistd.h>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
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
ABSL_DECLARE_FLAG(std::vector<std::string>, create_size);
ABSL_DECLARE_FLAG(std::optional<std::string>, polled);
ABSL_DECLARE_FLAG(bool, vectored);
ABSL_DECLARE_FLAG(std::optional<std::string>, buffer_layout);
ABSL_DECLARE_FLAG(std::optional<std::string>, huge_pages);
ABSL_DECLARE_FLAG(std::optional<uint64_t>, io_count);
ABSL_DECLARE_FLAG(bool, force_async);
ABSL_DECLARE_FLAG(std::vector<std::string>, ab);
ABSL_DECLARE_FLAG(std::optional<absl::Duration>, ab_slice);
ABSL_DECLARE_FLAG(std::optional<std::string>, latency_mode);
ABSL_DECLARE_FLAG(std::optional<absl::Duration>, io_timeout);
ABSL_DECLARE_FLAG(std::string, spec_file);

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

TEST(SpecFromFlagsTest, AbAndForceAsync) {
  absl::StatusOr<v1::WorkloadSpec> spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->has_force_async());
  EXPECT_EQ(spec->ab_strategies_size(), 0);
  EXPECT_FALSE(spec->has_ab_slice());

  absl::SetFlag(&FLAGS_force_async, true);
  absl::SetFlag(&FLAGS_ab, {"none", "limits", "fixed:128k"});
  absl::SetFlag(&FLAGS_ab_slice, absl::Milliseconds(500));
  spec = SpecFromFlags();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->has_force_async());
  EXPECT_TRUE(spec->force_async());
  EXPECT_THAT(spec->ab_strategies(),
              ::testing::ElementsAre("none", "limits", "fixed:128k"));
  EXPECT_EQ(spec->ab_slice().seconds(), 0);
  EXPECT_EQ(spec->ab_slice().nanos(), 500000000);

  absl::SetFlag(&FLAGS_ab_slice, absl::Seconds(-1));
  absl::Status bad = SpecFromFlags().status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.message()), HasSubstr("--ab_slice"));
  absl::SetFlag(&FLAGS_force_async, false);
  absl::SetFlag(&FLAGS_ab, {});
  absl::SetFlag(&FLAGS_ab_slice, std::nullopt);
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

}  // namespace
}  // namespace blkperf
