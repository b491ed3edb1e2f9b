#include "wire/connection.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "gtest/gtest.h"

namespace blkperf {
namespace {

// A listening unix socket of mode 0600 owned by this process's user.
class UnixSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Short (sun_path holds 107 bytes) and searchable by everyone, so only
    // the socket's own mode can refuse.
    char dir[] = "/tmp/blkperf-conn-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    ASSERT_EQ(chmod(dir, 0755), 0);
    dir_ = dir;
    path_ = dir_ + "/s.sock";
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd_, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    path_.copy(address.sun_path, path_.size());
    ASSERT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&address),
                   sizeof(address)),
              0);
    ASSERT_EQ(listen(fd_, 4), 0);
    ASSERT_EQ(chmod(path_.c_str(), 0600), 0);
  }
  void TearDown() override {
    close(fd_);
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  std::string dir_;
  std::string path_;
  int fd_ = -1;
};

TEST_F(UnixSocketTest, ReachableSocketAndHostPortAreOk) {
  EXPECT_TRUE(UnixSocketReachability("unix:" + path_).ok());
  EXPECT_TRUE(UnixSocketReachability("unix://" + path_).ok());
  EXPECT_TRUE(UnixSocketReachability("127.0.0.1:1").ok());
}

TEST_F(UnixSocketTest, AMissingSocketIsNotFound) {
  const absl::Status s = UnixSocketReachability("unix:" + path_ + ".none");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("no socket there"), std::string::npos);
}

// The audit's B15: EACCES is a permission problem, not "is it running?".
// As root, the check runs in a child that became nobody.
TEST_F(UnixSocketTest, ASocketThisUserMayNotUseIsPermissionDenied) {
  const std::string server = "unix:" + path_;
  if (geteuid() != 0) {
    ASSERT_EQ(chmod(path_.c_str(), 0), 0);
    const absl::Status s = UnixSocketReachability(server);
    EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << s;
    EXPECT_NE(s.message().find("permission denied"), std::string::npos);
    return;
  }
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 ||
        setresuid(65534, 65534, 65534) != 0) {
      _exit(3);
    }
    const absl::Status s = UnixSocketReachability(server);
    _exit(s.code() != absl::StatusCode::kPermissionDenied ? 4
          : s.message().find("permission denied") == absl::string_view::npos
              ? 5
              : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "3: could not become nobody, 4: not PermissionDenied, 5: message";
}

}  // namespace
}  // namespace blkperf
