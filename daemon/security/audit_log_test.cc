#include "daemon/security/audit_log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const char* dir = getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(JsonStringTest, EscapesAndBounds) {
  EXPECT_EQ(JsonString("a\"b\\c\nd\x01", 100), "\"a\\\"b\\\\c\\nd\\u0001\"");
  EXPECT_EQ(JsonString("abcdef", 3), "\"abc...(+3 bytes)\"");
}

TEST(AuditLogTest, ANewlineInAFileNameCannotForgeALine) {
  const std::string path = TempPath("audit_forge.log");
  unlink(path.c_str());
  absl::StatusOr<std::unique_ptr<AuditLog>> log = AuditLog::Open(path);
  ASSERT_TRUE(log.ok()) << log.status();
  (*log)->Write({.peer = "ipv4:127.0.0.1:5",
                 .identity = "alice",
                 .role = "operator",
                 .method = "StartWorkload",
                 .summary = "read on /tmp/x\n{\"method\":\"forged\"}",
                 .outcome = "OK",
                 .workload_id = "w1"});
  (*log)->Write({.method = "StopWorkload",
                 .summary = std::string(100000, 'y'),
                 .outcome = "PERMISSION_DENIED: no"});
  const std::string text = ReadAll(path);
  std::vector<std::string> lines =
      absl::StrSplit(text, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u) << text;
  EXPECT_THAT(lines[0], HasSubstr("\"identity\":\"alice\""));
  EXPECT_THAT(lines[0],
              HasSubstr("\"summary\":\"read on /tmp/x\\n{\\\"method\\\""));
  EXPECT_THAT(lines[0], HasSubstr("\"workload_id\":\"w1\"}"));
  EXPECT_THAT(lines[1], HasSubstr("\"outcome\":\"PERMISSION_DENIED: no\""));
  EXPECT_THAT(lines[1], HasSubstr("...(+98976 bytes)\""));
  EXPECT_LT(lines[1].size(), 2000u);
  struct stat st = {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(AuditLogTest, RefusesASymlink) {
  const std::string target = TempPath("audit_target.log");
  const std::string link = TempPath("audit_link.log");
  unlink(link.c_str());
  { std::ofstream(target) << ""; }
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  absl::StatusOr<std::unique_ptr<AuditLog>> log = AuditLog::Open(link);
  EXPECT_EQ(log.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(log.status().message()),
              HasSubstr("--audit_log"));
}

TEST(AuditLogTest, RefusesADirectory) {
  absl::StatusOr<std::unique_ptr<AuditLog>> log = AuditLog::Open("/");
  EXPECT_FALSE(log.ok());
  EXPECT_THAT(std::string(log.status().message()),
              HasSubstr("--audit_log \"/\""));
}

}  // namespace
}  // namespace blkperf
