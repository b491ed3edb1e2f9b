// The daemon's --max_buffer_bytes is the engine's one buffer rule
// (GroupBufferBytes over the resolved job groups), applied by the engine's
// field checks at the daemon's limit and named as its flag: one function
// computes the figure the daemon refuses, the figure the engine checks and
// the buffers a thread allocates.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/engine/host/host_cpus.h"
#include "daemon/engine/spec/shape_validation.h"
#include "daemon/engine/spec/spec_validation.h"
#include "daemon/service/access_policy.h"
#include "daemon/service/workload_backend.h"
#include "daemon/service/workload_manager.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

TEST(BufferLimitTest, TheDaemonRefusesWhatTheEnginesRuleComputes) {
  const std::string dir =
      absl::StrCat(testing::TempDir(), "/buffer_limit_", getpid());
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  const std::string target = dir + "/data";
  std::ofstream(target) << std::string(1 << 20, 'x');

  // One group: 1 thread x queue depth 8 x its largest block (64 KiB of a
  // 4 KiB / 64 KiB mix) = 512 KiB of buffers.
  WorkloadSpec spec;
  spec.targets.push_back({.path = target});
  JobGroupSpec group;
  group.cpus = {CurrentHostCpus().online[0]};
  group.op = Op::kRandRead;
  group.queue_depth = 8;
  group.read_bssplit =
      std::vector<BlockSizeShare>{{.block_size = 4096, .percent = 50},
                                  {.block_size = 65536, .percent = 50}};
  spec.groups.push_back(group);
  const uint64_t bytes = 8 * 65536;

  ManagerLimits limits;
  limits.max_buffer_bytes = bytes - 1;
  WorkloadManager manager(NewEngineBackend(), limits,
                          AccessPolicy::Create({dir + "/"}, {}, ""));
  const EngineLimits& engine = manager.engine_limits();
  EXPECT_EQ(engine.max_buffer_bytes, bytes - 1);
  absl::StatusOr<std::vector<GroupShape>> groups =
      internal::ResolveGroups(spec, engine, CurrentHostCpus());
  ASSERT_TRUE(groups.ok()) << groups.status();
  ASSERT_EQ(internal::GroupBufferBytes(*groups), bytes);

  const absl::Status refused = manager.Start(spec).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(refused.message()),
              HasSubstr(absl::StrCat(bytes, " bytes of I/O buffers")));
  EXPECT_THAT(std::string(refused.message()),
              HasSubstr(absl::StrCat("the daemon limit --max_buffer_bytes=",
                                     bytes - 1)));
  // The refusal is the engine's own check at the daemon's limit, word for
  // word: the daemon has no formula of its own.
  EXPECT_EQ(refused, ValidateSpecFields(spec, engine));

  // At exactly the figure, the rule passes.
  EngineLimits at_limit = engine;
  at_limit.max_buffer_bytes = bytes;
  EXPECT_TRUE(ValidateSpecFields(spec, at_limit).ok());
  // The engine's own limits name the field, not a flag.
  at_limit.max_buffer_bytes = bytes - 1;
  at_limit.daemon_flags = false;
  EXPECT_THAT(
      std::string(ValidateSpecFields(spec, at_limit).message()),
      HasSubstr(absl::StrCat("the limit max_buffer_bytes ", bytes - 1)));
  unlink(target.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace blkperf
