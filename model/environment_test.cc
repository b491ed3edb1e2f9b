#include "model/environment.h"

#include <string>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

TEST(SanitizeFactTest, TrimsAndKeepsPrintableText) {
  EXPECT_EQ(SanitizeFact("  Samsung SSD 980 \n"), "Samsung SSD 980");
}

TEST(SanitizeFactTest, EmptyIsUnknown) {
  EXPECT_EQ(SanitizeFact(""), kUnknownFact);
  EXPECT_EQ(SanitizeFact(" \n\t"), kUnknownFact);
}

TEST(SanitizeFactTest, ControlAndHighBytesBecomeQuestionMarks) {
  EXPECT_EQ(SanitizeFact("a\x1b[2Jb\xff"), "a?[2Jb?");
}

TEST(SanitizeFactTest, LongTextIsCutAndSaysSo) {
  const std::string fact = SanitizeFact(std::string(1000, 'x'));
  ASSERT_EQ(fact.size(), kMaxFactBytes);
  EXPECT_EQ(fact.substr(kMaxFactBytes - 3), "...");
}

TEST(EnvironmentSummaryTest, NamesHostKernelAndModels) {
  Environment env;
  env.hostname = "h1";
  env.kernel_release = "6.1.0";
  env.targets.resize(2);
  env.targets[0].model = "A";
  env.targets[1].model = "B";
  EXPECT_EQ(EnvironmentSummary(env), "h1 6.1.0 A,B");
  env.targets.clear();
  EXPECT_EQ(EnvironmentSummary(env), "h1 6.1.0 unknown");
}

}  // namespace
}  // namespace blkperf
