#include "daemon/security/audit_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/security/roles.h"
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

// A FIFO given as --audit_log (or --roles_file) is refused at once instead
// of blocking the start forever waiting for a peer.
TEST(AuditLogTest, RefusesAFifoWithoutBlocking) {
  const std::string fifo = TempPath("audit_fifo");
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  absl::Notification done;
  absl::Status audit_status, roles_status;
  std::thread opener([&] {
    audit_status = AuditLog::Open(fifo).status();
    roles_status = LoadRolesFile(fifo).status();
    done.Notify();
  });
  const bool prompt = done.WaitForNotificationWithTimeout(absl::Seconds(5));
  while (!done.HasBeenNotified()) {  // old code: unblock it, then fail
    const int peer = open(fifo.c_str(), O_RDWR | O_NONBLOCK);
    absl::SleepFor(absl::Milliseconds(50));
    if (peer >= 0) close(peer);
  }
  opener.join();
  unlink(fifo.c_str());
  EXPECT_TRUE(prompt) << "opening a FIFO blocked";
  EXPECT_EQ(audit_status.code(), absl::StatusCode::kInvalidArgument)
      << audit_status;
  EXPECT_THAT(std::string(audit_status.message()),
              HasSubstr("not a regular file"));
  EXPECT_EQ(roles_status.code(), absl::StatusCode::kInvalidArgument)
      << roles_status;
  EXPECT_THAT(std::string(roles_status.message()), HasSubstr("--roles_file"));
}

}  // namespace
}  // namespace blkperf
