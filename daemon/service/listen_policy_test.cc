#include "daemon/service/listen_policy.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

TEST(ListenPolicyTest, LocalAddresses) {
  EXPECT_TRUE(IsLocalListen("127.0.0.1:7777"));
  EXPECT_TRUE(IsLocalListen("127.1.2.3:0"));
  EXPECT_TRUE(IsLocalListen("localhost:7777"));
  EXPECT_TRUE(IsLocalListen("[::1]:7777"));
  EXPECT_TRUE(IsLocalListen("unix:/run/blkperf/blkperfd.sock"));
  EXPECT_FALSE(IsLocalListen("0.0.0.0:0"));
  EXPECT_FALSE(IsLocalListen("[::]:7777"));
  EXPECT_FALSE(IsLocalListen("10.0.0.1:7777"));
  EXPECT_FALSE(IsLocalListen("128.0.0.1:7777"));
  EXPECT_FALSE(IsLocalListen("example.com:7777"));
}

TEST(ListenPolicyTest, NonLocalWithoutTlsIsRefusedNamingInsecureListen) {
  const absl::Status refused = CheckListenPolicy({.listen = "0.0.0.0:0"});
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.message()), HasSubstr("--insecure_listen"));
  EXPECT_THAT(std::string(refused.message()), HasSubstr("--tls_cert"));
  EXPECT_TRUE(CheckListenPolicy({.listen = "0.0.0.0:0",
                                 .insecure_listen = true})
                  .ok());
  EXPECT_TRUE(CheckListenPolicy({.listen = "0.0.0.0:0",
                                 .tls_cert = "c",
                                 .tls_key = "k",
                                 .tls_client_ca = "ca"})
                  .ok());
  EXPECT_TRUE(CheckListenPolicy({.listen = "127.0.0.1:0"}).ok());
}

TEST(ListenPolicyTest, MetricsOffLoopbackIsWarned) {
  for (const char* local : {"127.0.0.1:9477", "[::1]:9477", "localhost:9477",
                            ""}) {
    EXPECT_EQ(MetricsListenWarning(local), "") << local;
  }
  for (const char* open : {"0.0.0.0:9477", "[::]:9477", "10.0.0.1:9477"}) {
    EXPECT_THAT(MetricsListenWarning(open),
                ::testing::AllOf(::testing::HasSubstr(open),
                                 ::testing::HasSubstr("not loopback")))
        << open;
  }
}

TEST(ListenPolicyTest, TlsFilesGoTogether) {
  const absl::Status partial =
      CheckListenPolicy({.listen = "127.0.0.1:0", .tls_cert = "c"});
  EXPECT_EQ(partial.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(partial.message()), HasSubstr("--tls_client_ca"));
}

TEST(ListenPolicyTest, UnixSocketPath) {
  EXPECT_EQ(UnixSocketPath("unix:/run/b.sock"), "/run/b.sock");
  EXPECT_EQ(UnixSocketPath("127.0.0.1:1"), "");
}

TEST(ListenPolicyTest, ANonSocketFileIsNotReplaced) {
  const absl::Status status = CheckUnixSocketFree("/etc/hostname");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("not a socket"));
}

}  // namespace
}  // namespace blkperf
