#include "base/log.h"

#include <unistd.h>

#include <string>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

// Captures what BLKPERF_LOG writes to stderr.
std::string Logged(const std::string& message) {
  testing::internal::CaptureStderr();
  BLKPERF_LOG(INFO) << "on " << message;
  return testing::internal::GetCapturedStderr();
}

TEST(LogTest, ClientTextCannotForgeALine) {
  const std::string out =
      Logged("/rw/y\nE1207 13:00:00.000000 server.cc:1] FORGED\x1b[2J");
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.find('\n'), out.size() - 1) << out;  // one line
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  EXPECT_NE(out.find("/rw/y\\nE1207"), std::string::npos) << out;
}

TEST(LogTest, LongMessageIsBounded) {
  const std::string out = Logged(std::string(100000, 'p'));
  EXPECT_LT(out.size(), 8400u);
  EXPECT_NE(out.find("bytes)\n"), std::string::npos) << out.substr(8000);
}

}  // namespace
}  // namespace blkperf
