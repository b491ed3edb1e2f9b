#include "cli/command_line.h"

#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

ABSL_FLAG(absl::Duration, runtime, absl::Seconds(1), "test flag");
ABSL_FLAG(absl::Duration, ramp, absl::ZeroDuration(), "test flag");
ABSL_FLAG(bool, direct, false, "test flag");
ABSL_FLAG(int, qd, 1, "test flag");

namespace blkperf {
namespace {

using ::testing::HasSubstr;

absl::Status Check(std::vector<std::string> args) {
  args.insert(args.begin(), "blkperf");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return CheckCommandLineFlags(static_cast<int>(argv.size()), argv.data());
}

TEST(CheckCommandLineFlags, AcceptsEveryFormAbseilAccepts) {
  EXPECT_TRUE(Check({"fleet", "run", "--runtime=2s", "-qd", "4", "--direct",
                     "--nodirect", "-ramp=1s", "--", "--not-a-flag"})
                  .ok());
  EXPECT_EQ(absl::GetFlag(FLAGS_qd), 4);
  EXPECT_TRUE(Check({"--help"}).ok());  // Abseil's parser handles it
  EXPECT_EQ(absl::GetFlag(FLAGS_runtime), absl::Seconds(2));
}

TEST(CheckCommandLineFlags, UnknownFlagIsNamedWithSuggestions) {
  const absl::Status s = Check({"fleet", "run", "--runtim=2s"});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("unknown flag --runtim"));
  EXPECT_THAT(s.message(), HasSubstr("did you mean --runtime?"));
  EXPECT_THAT(Check({"--zzzz"}).message(), HasSubstr("unknown flag --zzzz"));
}

TEST(CheckCommandLineFlags, BadValueAndMissingValueNameTheFlag) {
  const absl::Status bad = Check({"--qd=four"});
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("flag --qd"));
  EXPECT_THAT(Check({"--runtime"}).message(),
              HasSubstr("flag --runtime needs a value"));
  EXPECT_THAT(Check({"--nodirect=1"}).message(),
              HasSubstr("unknown flag --nodirect"));
}

}  // namespace
}  // namespace blkperf
