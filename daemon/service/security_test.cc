// The control plane's access rules end to end in one process, over a fake
// engine and real TLS (certificates made with openssl here): who may call
// what, owners, the listen policy, a shared port, the unix socket and the
// audit log.
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/service/accept_loop.h"
#include "daemon/service/fake_backend.h"
#include "daemon/service/generic_call_for_test.h"
#include "daemon/service/server.h"
#include "daemon/service/test_pki.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/blkperf.grpc.pb.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string TestDir(const std::string& name) {
  const char* tmp = getenv("TEST_TMPDIR");
  return std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
}

ServeOptions BaseOptions() {
  ServeOptions options;
  options.listen = "127.0.0.1:0";
  options.allow_read = {"/data/"};
  options.allow_write = {"/data/"};
  options.shutdown_timeout = absl::Seconds(2);
  return options;
}

absl::StatusOr<std::unique_ptr<BlkperfServer>> StartFake(
    const ServeOptions& options) {
  auto backend = std::make_unique<FakeBackend>();
  backend->AddFile("/data/a", 1 << 30);
  backend->AddFile("/data/b", 1 << 30);
  return BlkperfServer::Start(options, std::move(backend));
}

grpc::Status Caps(v1::Blkperf::Stub& stub, v1::GetCapabilitiesResponse* out) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(10));
  return stub.GetCapabilities(&context, v1::GetCapabilitiesRequest(), out);
}

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    pki_ = new TestPki(MakeTestPki(TestDir("pki"),
                                   {{"viewer", "DNS:viewer.test"},
                                    {"op1", "DNS:op1.test"},
                                    {"op2", "DNS:op2.test"},
                                    {"admin-cn", ""},
                                    {"stranger", "DNS:stranger.test"},
                                    // The same text as op1's DNS name, as
                                    // other SAN types, and a DNS "local".
                                    {"email-op1", "email:op1.test"},
                                    {"uri-op1", "URI:op1.test"},
                                    {"dns-local", "DNS:local"},
                                    {"typed-email", "email:ops@op.test"}}));
    // A client certificate from another CA.
    if (!pki_->dir.empty() &&
        !(MakeTestCa(pki_->dir, "rogue-ca") &&
          SignTestCert(pki_->dir, pki_->dir + "/rogue-ca", "rogue",
                       "DNS:op1.test"))) {
      pki_->dir.clear();
    }
  }
  static void TearDownTestSuite() { delete pki_; }

  void SetUp() override {
    ASSERT_FALSE(pki_->dir.empty()) << "openssl could not make the test PKI";
    const std::string roles = pki_->dir + "/roles";
    std::ofstream(roles) << "viewer viewer.test\noperator op1.test\n"
                            "operator op2.test\nadmin admin-cn\n"
                            "operator email:ops@op.test\n";
    audit_path_ = TestDir("audit.log");
    unlink(audit_path_.c_str());
    ServeOptions options = BaseOptions();
    options.tls_cert = pki_->server_pem;
    options.tls_key = pki_->server_key;
    options.tls_client_ca = pki_->ca_pem;
    options.roles_file = roles;
    options.audit_log = audit_path_;
    absl::StatusOr<std::unique_ptr<BlkperfServer>> server = StartFake(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  // A stub as client `name` ("" : no client certificate).
  std::unique_ptr<v1::Blkperf::Stub> StubAs(const std::string& name,
                                            const std::string& ca = "") {
    return v1::Blkperf::NewStub(ChannelAs(name, ca));
  }

  std::shared_ptr<grpc::Channel> ChannelAs(const std::string& name,
                                           const std::string& ca = "") {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = ReadTestFile(pki_->ca_pem);
    if (!name.empty()) {
      ssl.pem_cert_chain = ReadTestFile(pki_->Cert(name));
      ssl.pem_private_key = ReadTestFile(pki_->Key(name));
    }
    return grpc::CreateChannel(server_->address(), grpc::SslCredentials(ssl));
  }

  grpc::Status StartAs(const std::string& name, int cpu, std::string* id) {
    v1::StartWorkloadRequest request;
    request.mutable_spec()->add_targets()->set_path("/data/a");
    request.mutable_spec()->add_cpus(cpu);
    request.mutable_spec()->mutable_runtime()->set_seconds(3600);
    v1::StartWorkloadResponse response;
    grpc::ClientContext context;
    grpc::Status status =
        StubAs(name)->StartWorkload(&context, request, &response);
    *id = response.workload_id();
    return status;
  }

  grpc::Status StopAs(const std::string& name, const std::string& id) {
    v1::StopWorkloadRequest request;
    request.set_workload_id(id);
    v1::StopWorkloadResponse response;
    grpc::ClientContext context;
    return StubAs(name)->StopWorkload(&context, request, &response);
  }

  grpc::Status SplitAs(const std::string& name, const std::string& id) {
    v1::SetSplitStrategyRequest request;
    request.set_workload_id(id);
    request.set_split("limits");
    v1::SetSplitStrategyResponse response;
    grpc::ClientContext context;
    return StubAs(name)->SetSplitStrategy(&context, request, &response);
  }

  static TestPki* pki_;
  std::string audit_path_;
  std::unique_ptr<BlkperfServer> server_;
};

TestPki* TlsTest::pki_ = nullptr;

TEST_F(TlsTest, NoClientCertificateIsUnauthenticated) {
  v1::GetCapabilitiesResponse caps;
  const grpc::Status status = Caps(*StubAs(""), &caps);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("no client certificate"));
}

TEST_F(TlsTest, ACertificateFromAnotherCaCannotConnect) {
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = ReadTestFile(pki_->ca_pem);
  ssl.pem_cert_chain = ReadTestFile(pki_->Cert("rogue"));
  ssl.pem_private_key = ReadTestFile(pki_->Key("rogue"));
  auto stub = v1::Blkperf::NewStub(
      grpc::CreateChannel(server_->address(), grpc::SslCredentials(ssl)));
  v1::GetCapabilitiesResponse caps;
  EXPECT_EQ(Caps(*stub, &caps).error_code(), grpc::StatusCode::UNAVAILABLE);
}

// The daemon checks client certificates itself, so a refused handshake is
// in the audit log: the certificate's first name, role none, the reason.
TEST_F(TlsTest, RefusedHandshakesAreAudited) {
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = ReadTestFile(pki_->ca_pem);
  ssl.pem_cert_chain = ReadTestFile(pki_->Cert("rogue"));
  ssl.pem_private_key = ReadTestFile(pki_->Key("rogue"));
  auto stub = v1::Blkperf::NewStub(
      grpc::CreateChannel(server_->address(), grpc::SslCredentials(ssl)));
  v1::GetCapabilitiesResponse caps;
  ASSERT_EQ(Caps(*stub, &caps).error_code(), grpc::StatusCode::UNAVAILABLE);
  // A good certificate still connects, with its identity.
  ASSERT_TRUE(Caps(*StubAs("op1"), &caps).ok());
  EXPECT_EQ(caps.caller_identity(), "op1.test");
  server_->Shutdown();
  const std::string text = ReadTestFile(audit_path_);
  EXPECT_THAT(text, HasSubstr("\"identity\":\"dns:op1.test\",\"role\":\"none\","
                              "\"method\":\"tls-handshake\""));
  EXPECT_THAT(text, HasSubstr("client certificate refused: unable to get "
                              "local issuer certificate"));
}

TEST_F(TlsTest, UnknownIdentityIsDeniedByName) {
  v1::GetCapabilitiesResponse caps;
  const grpc::Status status = Caps(*StubAs("stranger"), &caps);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(status.error_message(), HasSubstr("\"dns:stranger.test\""));
}

TEST_F(TlsTest, CapabilitiesNameTheCallerAndTheExposure) {
  v1::GetCapabilitiesResponse caps;
  ASSERT_TRUE(Caps(*StubAs("viewer"), &caps).ok());
  EXPECT_EQ(caps.caller_identity(), "viewer.test");
  EXPECT_EQ(caps.caller_role(), "viewer");
  EXPECT_TRUE(caps.tls());
  EXPECT_FALSE(caps.insecure_listen());
  EXPECT_TRUE(caps.audit_log());
  ASSERT_TRUE(Caps(*StubAs("admin-cn"), &caps).ok());
  EXPECT_EQ(caps.caller_identity(), "admin-cn");  // CN: no SAN
  EXPECT_EQ(caps.caller_role(), "admin");
}

// Every operator method of the service, implemented here or not, is refused
// to a viewer before any handler runs.
TEST_F(TlsTest, AViewerIsRefusedEveryOperatorMethod) {
  const google::protobuf::ServiceDescriptor* service =
      v1::GetCapabilitiesRequest::descriptor()->file()->FindServiceByName(
          "Blkperf");
  ASSERT_NE(service, nullptr);
  int checked = 0;
  for (int i = 0; i < service->method_count(); ++i) {
    const std::string method =
        "/" + service->full_name() + "/" + service->method(i)->name();
    if (RequiredRole(method) != Role::kOperator) continue;
    const grpc::Status status =
        GenericUnaryCall(ChannelAs("viewer"), method, "");
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED)
        << method << ": " << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr("needs role operator"));
    ++checked;
  }
  EXPECT_GE(checked, 6);  // start, stop, split, arm, go, abort
}

// A role names an identity with its type: an email or URI SAN whose text
// is an operator's DNS name gets nothing, a DNS SAN "local" is not the
// local identity, and a typed grant works for its type.
TEST_F(TlsTest, IdentitiesAreTyped) {
  v1::GetCapabilitiesResponse caps;
  for (const char* name : {"email-op1", "uri-op1", "dns-local"}) {
    const grpc::Status status = Caps(*StubAs(name), &caps);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED)
        << name << " got role " << caps.caller_role();
  }
  const grpc::Status status = Caps(*StubAs("dns-local"), &caps);
  EXPECT_THAT(status.error_message(), HasSubstr("\"dns:local\""));
  ASSERT_TRUE(Caps(*StubAs("typed-email"), &caps).ok());
  EXPECT_EQ(caps.caller_identity(), "email:ops@op.test");
  EXPECT_EQ(caps.caller_role(), "operator");
  // Untyped grants (roles files before types) still name DNS SANs and a
  // SAN-less certificate's CN.
  ASSERT_TRUE(Caps(*StubAs("op1"), &caps).ok());
  EXPECT_EQ(caps.caller_identity(), "op1.test");
  ASSERT_TRUE(Caps(*StubAs("admin-cn"), &caps).ok());
  EXPECT_EQ(caps.caller_role(), "admin");
}

TEST_F(TlsTest, OnlyTheOwnerOrAnAdminMayStopOrSteer) {
  std::string id;
  ASSERT_TRUE(StartAs("op1", 0, &id).ok());
  grpc::Status status = StopAs("op2", id);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(status.error_message(), HasSubstr("belongs to \"op1.test\""));
  EXPECT_EQ(SplitAs("op2", id).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(StopAs("viewer", id).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(SplitAs("op1", id).ok());
  EXPECT_TRUE(StopAs("admin-cn", id).ok());

  std::string own;
  ASSERT_TRUE(StartAs("op2", 1, &own).ok());
  EXPECT_TRUE(StopAs("op2", own).ok());

  v1::GetWorkloadRequest get;
  get.set_workload_id(id);
  v1::GetWorkloadResponse got;
  grpc::ClientContext context;
  ASSERT_TRUE(StubAs("viewer")->GetWorkload(&context, get, &got).ok());
  EXPECT_EQ(got.workload().owner(), "op1.test");
}

// Run ids are per owner (audit D14): op2's Arm with op1's run id is a run
// of op2's own (never op1's workload as `existing`, never refused for it,
// and it blocks nothing of op1's); Go and AbortRun reach only the caller's
// own run of that id.
TEST_F(TlsTest, RunIdsArePerOwner) {
  auto arm = [&](const std::string& who, const char* path, int cpu,
                 v1::ArmWorkloadResponse* out) {
    v1::ArmWorkloadRequest request;
    request.set_run_id("nightly-1");
    request.mutable_spec()->add_targets()->set_path(path);
    request.mutable_spec()->add_cpus(cpu);
    request.mutable_lease()->set_seconds(60);
    grpc::ClientContext context;
    return StubAs(who)->ArmWorkload(&context, request, out);
  };
  v1::ArmWorkloadResponse squat, own, retry;
  ASSERT_TRUE(arm("op2", "/data/b", 1, &squat).ok());  // op2 first
  const grpc::Status mine = arm("op1", "/data/a", 0, &own);
  ASSERT_TRUE(mine.ok()) << mine.error_message();
  EXPECT_FALSE(own.existing());
  EXPECT_NE(own.workload_id(), squat.workload_id());
  EXPECT_EQ(own.workload().owner(), "op1.test");
  ASSERT_TRUE(arm("op1", "/data/a", 0, &retry).ok());
  EXPECT_TRUE(retry.existing());  // op1's retry: op1's own workload
  EXPECT_EQ(retry.workload_id(), own.workload_id());

  v1::AbortRunRequest abort;
  abort.set_run_id("nightly-1");
  abort.set_reason("op2's own");
  v1::AbortRunResponse aborted;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(StubAs("op2")->AbortRun(&context, abort, &aborted).ok());
  }
  EXPECT_EQ(aborted.workload().workload_id(), squat.workload_id());
  v1::GetWorkloadRequest get;
  get.set_workload_id(own.workload_id());
  v1::GetWorkloadResponse got;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(StubAs("op1")->GetWorkload(&context, get, &got).ok());
  }
  EXPECT_EQ(got.workload().state(), v1::WORKLOAD_STATE_ARMED);
  // A caller without a run of that id finds none.
  abort.set_run_id("nightly-2");
  {
    grpc::ClientContext context;
    EXPECT_EQ(StubAs("op1")->AbortRun(&context, abort, &aborted).error_code(),
              grpc::StatusCode::NOT_FOUND);
  }
}

TEST_F(TlsTest, AuditLogRecordsCallsRefusalsAndEnds) {
  std::string id;
  ASSERT_TRUE(StartAs("op1", 0, &id).ok());
  EXPECT_FALSE(StopAs("op2", id).ok());
  EXPECT_TRUE(StopAs("op1", id).ok());
  EXPECT_FALSE(StopAs("viewer", id).ok());  // refused before the handler
  v1::GetCapabilitiesResponse caps;
  EXPECT_FALSE(Caps(*StubAs("stranger"), &caps).ok());
  server_->Shutdown();  // every workload ends
  const std::string text = ReadTestFile(audit_path_);
  std::vector<std::string> lines =
      absl::StrSplit(text, '\n', absl::SkipEmpty());
  ASSERT_GE(lines.size(), 5u) << text;
  EXPECT_THAT(lines[0], HasSubstr("\"identity\":\"op1.test\""));
  EXPECT_THAT(lines[0], HasSubstr("\"method\":\"StartWorkload\""));
  EXPECT_THAT(lines[0], HasSubstr("/data/a"));
  EXPECT_THAT(lines[0], HasSubstr("\"outcome\":\"OK\""));
  EXPECT_THAT(lines[0], HasSubstr("\"peer\":\"ipv4:127.0.0.1:"));
  EXPECT_THAT(text, HasSubstr("\"identity\":\"op2.test\",\"role\":\"operator\","
                              "\"method\":\"StopWorkload\""));
  EXPECT_THAT(text, HasSubstr("\"outcome\":\"PERMISSION_DENIED: workload_id"));
  // A refusal names the role: none for an identity the roles file lacks,
  // the caller's own for a method above it.
  EXPECT_THAT(text, HasSubstr("\"identity\":\"dns:stranger.test\",\"role\":\"none\""));
  EXPECT_THAT(text, HasSubstr("\"identity\":\"viewer.test\",\"role\":\"viewer\","
                              "\"method\":\"StopWorkload\""));
  for (const std::string& line : lines) {
    if (absl::StrContains(line, "PERMISSION_DENIED") ||
        absl::StrContains(line, "UNAUTHENTICATED")) {
      EXPECT_THAT(line, Not(HasSubstr("\"role\":\"\""))) << line;
    }
  }
  EXPECT_THAT(text, HasSubstr("\"method\":\"workload-end\""));
  for (const std::string& line : lines) {
    EXPECT_EQ(line.front(), '{');
    EXPECT_EQ(line.back(), '}');
  }
}

// Refusals made by handlers (not the role check) are bounded in the audit
// log too: at most 100 a second, the next record saying how many were left
// out.
TEST_F(TlsTest, AuditLogBoundsHandlerRefusals) {
  auto stub = StubAs("op1");
  const absl::Time start = absl::Now();
  constexpr int kCalls = 600;
  for (int i = 0; i < kCalls; ++i) {
    v1::SetSplitStrategyRequest request;
    request.set_workload_id("w999999");
    request.set_split("fixed:" + std::string(2000, '9'));
    v1::SetSplitStrategyResponse response;
    grpc::ClientContext context;
    ASSERT_FALSE(stub->SetSplitStrategy(&context, request, &response).ok());
  }
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  absl::SleepFor(absl::Milliseconds(1100));  // a new second: one more line
  {
    v1::SetSplitStrategyRequest request;
    request.set_workload_id("w999999");
    request.set_split("limits");
    v1::SetSplitStrategyResponse response;
    grpc::ClientContext context;
    ASSERT_FALSE(stub->SetSplitStrategy(&context, request, &response).ok());
  }
  server_->Shutdown();
  const std::string text = ReadTestFile(audit_path_);
  std::vector<std::string> lines =
      absl::StrSplit(text, '\n', absl::SkipEmpty());
  const size_t bound = 100 * (static_cast<size_t>(seconds) + 2);
  ASSERT_LT(bound, static_cast<size_t>(kCalls))
      << "the calls took " << seconds << " s: the test proves nothing";
  EXPECT_GE(lines.size(), 100u);
  EXPECT_LE(lines.size(), bound) << "after " << seconds << " s";
  EXPECT_THAT(lines.back(), HasSubstr("earlier refusals not logged"));
}

TEST(ListenTest, NonLoopbackWithoutTlsIsRefusedUnlessInsecureListen) {
  ServeOptions options = BaseOptions();
  options.listen = "0.0.0.0:0";
  absl::StatusOr<std::unique_ptr<BlkperfServer>> server = StartFake(options);
  ASSERT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(server.status().message()),
              HasSubstr("--insecure_listen"));

  options.insecure_listen = true;
  server = StartFake(options);
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = v1::Blkperf::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", (*server)->port()),
      grpc::InsecureChannelCredentials()));
  v1::GetCapabilitiesResponse caps;
  ASSERT_TRUE(Caps(*stub, &caps).ok());
  EXPECT_TRUE(caps.insecure_listen());
  EXPECT_EQ(caps.caller_identity(), "insecure");
}

TEST(ListenTest, LocalhostIsReachableAt127001) {
  ServeOptions options = BaseOptions();
  options.listen = "localhost:0";
  absl::StatusOr<std::unique_ptr<BlkperfServer>> server = StartFake(options);
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = v1::Blkperf::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", (*server)->port()),
      grpc::InsecureChannelCredentials()));
  v1::GetCapabilitiesResponse caps;
  ASSERT_TRUE(Caps(*stub, &caps).ok());
  EXPECT_EQ(caps.caller_identity(), "local");
}

TEST(ListenTest, TlsWithoutRolesFileIsRefused) {
  ServeOptions options = BaseOptions();
  options.tls_cert = "/c";
  options.tls_key = "/k";
  options.tls_client_ca = "/ca";
  absl::StatusOr<std::unique_ptr<BlkperfServer>> server = StartFake(options);
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(server.status().message()),
              HasSubstr("--roles_file"));
}

TEST(ListenTest, ASecondDaemonOnTheSamePortFails) {
  absl::StatusOr<std::unique_ptr<BlkperfServer>> first =
      StartFake(BaseOptions());
  ASSERT_TRUE(first.ok()) << first.status();
  ServeOptions options = BaseOptions();
  options.listen = absl::StrCat("127.0.0.1:", (*first)->port());
  absl::StatusOr<std::unique_ptr<BlkperfServer>> second = StartFake(options);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(second.status().message()),
              HasSubstr("another blkperfd"));
}

bool HasIpv6Loopback() {
  const int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in6 addr = {};
  addr.sin6_family = AF_INET6;
  addr.sin6_addr = in6addr_loopback;
  const bool ok =
      bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

// A client naming localhost may connect to [::1] or to 127.0.0.1: a daemon
// on one loopback holds its port on the other too and answers there, so no
// second daemon can start beside it on the other one (audit D10).
TEST(ListenTest, ADaemonHoldsItsPortOnBothLoopbacks) {
  if (!HasIpv6Loopback()) GTEST_SKIP() << "this host has no ::1 to bind";
  for (const std::string first_host : {"127.0.0.1", "[::1]", "localhost"}) {
    ServeOptions options = BaseOptions();
    options.listen = first_host + ":0";
    absl::StatusOr<std::unique_ptr<BlkperfServer>> first = StartFake(options);
    ASSERT_TRUE(first.ok()) << first.status();
    const int port = (*first)->port();
    for (const std::string host : {"[::1]", "127.0.0.1", "localhost"}) {
      options.listen = absl::StrCat(host, ":", port);
      absl::StatusOr<std::unique_ptr<BlkperfServer>> second =
          StartFake(options);
      EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable)
          << "a second daemon on " << options.listen << " beside one on "
          << first_host << ":" << port << ": " << second.status();
    }
    for (const std::string host : {"[::1]", "127.0.0.1"}) {
      auto stub = v1::Blkperf::NewStub(
          grpc::CreateChannel(absl::StrCat(host, ":", port),
                              grpc::InsecureChannelCredentials()));
      v1::GetCapabilitiesResponse caps;
      ASSERT_TRUE(Caps(*stub, &caps).ok()) << host;
      EXPECT_EQ(caps.caller_identity(), "local") << host;
    }
  }
}

// Another process listening on [::1]:P keeps a daemon off 127.0.0.1:P: it
// would answer the daemon's clients that name localhost.
TEST(ListenTest, AListenerOnTheOtherLoopbackIsRefusedAtStart) {
  if (!HasIpv6Loopback()) GTEST_SKIP() << "this host has no ::1 to bind";
  const int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in6 addr = {};
  addr.sin6_family = AF_INET6;
  addr.sin6_addr = in6addr_loopback;
  ASSERT_EQ(bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)),
            0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t length = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
  const int port = ntohs(addr.sin6_port);
  ServeOptions options = BaseOptions();
  options.listen = absl::StrCat("127.0.0.1:", port);
  absl::StatusOr<std::unique_ptr<BlkperfServer>> server = StartFake(options);
  EXPECT_EQ(server.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(server.status().message()),
              HasSubstr(absl::StrCat("[::1]:", port, " is in use")));
  close(fd);
}

TEST(ListenTest, LocalCallersGetTheLocalRole) {
  ServeOptions options = BaseOptions();
  options.local_role = Role::kViewer;
  absl::StatusOr<std::unique_ptr<BlkperfServer>> server = StartFake(options);
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = v1::Blkperf::NewStub(grpc::CreateChannel(
      (*server)->address(), grpc::InsecureChannelCredentials()));
  v1::GetCapabilitiesResponse caps;
  ASSERT_TRUE(Caps(*stub, &caps).ok());
  EXPECT_EQ(caps.caller_identity(), "local");
  EXPECT_EQ(caps.caller_role(), "viewer");
  v1::StartWorkloadRequest request;
  request.mutable_spec()->add_targets()->set_path("/data/a");
  v1::StartWorkloadResponse response;
  grpc::ClientContext context;
  const grpc::Status status =
      stub->StartWorkload(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(status.error_message(), HasSubstr("needs role operator"));
}

// The socket file has its mode before the socket listens, whatever the
// umask: no caller can connect in a window before a chmod.
TEST(ListenTest, UnixSocketHasItsModeBeforeItListens) {
  char dir[] = "/tmp/blkperf-sock-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/s.sock";
  const mode_t old = umask(0);
  absl::StatusOr<std::unique_ptr<AcceptLoop>> loop =
      AcceptLoop::Bind("unix:" + path, 0660);
  umask(old);
  ASSERT_TRUE(loop.ok()) << loop.status();
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0660u);
  loop->reset();
  unlink(path.c_str());
  rmdir(dir);
}

TEST(ListenTest, UnixSocketWithModeAndNoSecondDaemon) {
  // $TEST_TMPDIR is too long for sun_path (108 bytes).
  char dir[] = "/tmp/blkperf-sock-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/blkperfd.sock";
  ServeOptions options = BaseOptions();
  options.listen = "unix:" + path;
  options.unix_socket_mode = 0600;
  absl::StatusOr<std::unique_ptr<BlkperfServer>> server = StartFake(options);
  ASSERT_TRUE(server.ok()) << server.status();
  struct stat st = {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto stub = v1::Blkperf::NewStub(
      grpc::CreateChannel(options.listen, grpc::InsecureChannelCredentials()));
  v1::GetCapabilitiesResponse caps;
  ASSERT_TRUE(Caps(*stub, &caps).ok());
  EXPECT_EQ(caps.caller_identity(), "local");
  EXPECT_EQ(caps.caller_role(), "admin");

  absl::StatusOr<std::unique_ptr<BlkperfServer>> second = StartFake(options);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(second.status().message()),
              HasSubstr("another process is serving there"));
  server->reset();
  unlink(path.c_str());
  rmdir(dir);
}

TEST(ListenTest, UnixSocketPathTooLongIsNamed) {
  ServeOptions options = BaseOptions();
  options.listen = "unix:/tmp/" + std::string(200, 'x');
  absl::StatusOr<std::unique_ptr<BlkperfServer>> server = StartFake(options);
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(server.status().message()),
              HasSubstr("longer than 107 bytes"));
}

}  // namespace
}  // namespace blkperf
