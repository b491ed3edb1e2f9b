// The gRPC layer end to end in one process, over a fake engine: status codes
// on the wire, version checks, watch streams, health and shutdown.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <time.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "daemon/service/fake_backend.h"
#include "daemon/service/generic_call_for_test.h"
#include "daemon/service/server.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/blkperf.grpc.pb.h"
#include "proto/health.grpc.pb.h"

namespace blkperf {
namespace {

using ::testing::HasSubstr;

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto backend = std::make_unique<FakeBackend>();
    fake_ = backend.get();
    fake_->AddFile("/data/a", 1 << 30);
    fake_->AddFile("/data/b", 1 << 30);
    ServeOptions options;
    options.listen = "127.0.0.1:0";
    options.allow_read = {"/data/"};
    options.allow_write = {"/data/"};
    options.shutdown_timeout = absl::Seconds(2);
    absl::StatusOr<std::unique_ptr<BlkperfServer>> server =
        BlkperfServer::Start(options, std::move(backend));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    channel_ = grpc::CreateChannel(server_->address(),
                                   grpc::InsecureChannelCredentials());
    stub_ = v1::Blkperf::NewStub(channel_);
  }

  grpc::Status Start(const std::string& path, int cpu, std::string* id) {
    v1::StartWorkloadRequest request;
    request.set_api_version(v1::API_VERSION_CURRENT);
    request.mutable_spec()->add_targets()->set_path(path);
    request.mutable_spec()->add_cpus(cpu);
    v1::StartWorkloadResponse response;
    grpc::ClientContext context;
    grpc::Status status = stub_->StartWorkload(&context, request, &response);
    if (status.ok()) {
      EXPECT_EQ(response.api_version(), v1::API_VERSION_CURRENT);
      *id = response.workload_id();
    }
    return status;
  }

  // Reads a whole watch stream.
  grpc::Status Watch(const std::string& id,
                     std::vector<v1::WatchWorkloadResponse>* messages) {
    v1::WatchWorkloadRequest request;
    request.set_workload_id(id);
    request.mutable_interval()->set_nanos(20'000'000);
    grpc::ClientContext context;
    auto reader = stub_->WatchWorkload(&context, request);
    v1::WatchWorkloadResponse response;
    while (reader->Read(&response)) messages->push_back(response);
    return reader->Finish();
  }

  FakeBackend* fake_ = nullptr;
  std::unique_ptr<BlkperfServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Blkperf::Stub> stub_;
};

TEST_F(ServiceTest, CapabilitiesCarryVersionLimitsAndLayout) {
  v1::GetCapabilitiesRequest request;
  request.set_api_version(99);  // answered anyway, for the client to report
  v1::GetCapabilitiesResponse response;
  grpc::ClientContext context;
  ASSERT_TRUE(stub_->GetCapabilities(&context, request, &response).ok());
  EXPECT_EQ(response.api_version(), 1u);
  EXPECT_FALSE(response.kernel_release().empty());
  EXPECT_FALSE(response.online_cpus().empty());
  EXPECT_EQ(response.limits().max_workloads(), 4u);
  EXPECT_EQ(response.histogram_layout().name(), "log-linear-64");
  EXPECT_THAT(response.allow_write(), ::testing::ElementsAre("/data/"));
}

TEST_F(ServiceTest, OtherApiVersionIsFailedPreconditionNamingBoth) {
  v1::ListWorkloadsRequest request;
  request.set_api_version(2);
  v1::ListWorkloadsResponse response;
  grpc::ClientContext context;
  grpc::Status status = stub_->ListWorkloads(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("version 2"));
  EXPECT_THAT(status.error_message(), HasSubstr("version 1"));
}

TEST_F(ServiceTest, BadSpecIsInvalidArgumentNamingTheField) {
  v1::StartWorkloadRequest request;
  request.mutable_spec()->add_targets()->set_path("/data/a");
  request.mutable_spec()->set_queue_depth(0);
  v1::StartWorkloadResponse response;
  grpc::ClientContext context;
  grpc::Status status = stub_->StartWorkload(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("spec.queue_depth"));
}

TEST_F(ServiceTest, ManagerCodesReachTheWire) {
  std::string id;
  ASSERT_TRUE(Start("/data/a", 0, &id).ok());
  EXPECT_EQ(id, "w1");
  grpc::Status conflict = Start("/data/b", 0, &id);
  EXPECT_EQ(conflict.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(conflict.error_message(), HasSubstr("CPU 0"));
  grpc::Status denied = Start("/etc/passwd", 1, &id);
  EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED);

  v1::GetWorkloadRequest get;
  get.set_workload_id("w42");
  v1::GetWorkloadResponse got;
  grpc::ClientContext context;
  EXPECT_EQ(stub_->GetWorkload(&context, get, &got).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(ServiceTest, TwoWatchersSeeTheEndAndTheFinalResult) {
  std::string id;
  ASSERT_TRUE(Start("/data/a", 0, &id).ok());
  std::vector<v1::WatchWorkloadResponse> first, second;
  grpc::Status first_status, second_status;
  std::thread a([&] { first_status = Watch(id, &first); });
  std::thread b([&] { second_status = Watch(id, &second); });
  for (int i = 0; i < 5; ++i) {
    fake_->last()->Complete(100, 1000 * (i + 1));
    absl::SleepFor(absl::Milliseconds(30));
  }
  fake_->last()->Finish();
  a.join();
  b.join();
  for (const auto* messages : {&first, &second}) {
    ASSERT_GE(messages->size(), 2u);
    const v1::Workload& last = messages->back().workload();
    EXPECT_EQ(last.state(), v1::WORKLOAD_STATE_FINISHED);
    EXPECT_EQ(last.snapshot().total().ios(), 500u);
    EXPECT_EQ(last.snapshot().total().histogram().count(), 500u);
    EXPECT_TRUE(last.has_end_time());
    // The interval figures add up to the total.
    uint64_t sum = 0;
    for (const auto& m : *messages) sum += m.interval().ios();
    EXPECT_EQ(sum, 500u);
  }
  EXPECT_TRUE(first_status.ok()) << first_status.error_message();
  EXPECT_TRUE(second_status.ok()) << second_status.error_message();

  // The result stays fetchable.
  v1::GetWorkloadRequest get;
  get.set_workload_id(id);
  v1::GetWorkloadResponse got;
  grpc::ClientContext context;
  ASSERT_TRUE(stub_->GetWorkload(&context, get, &got).ok());
  EXPECT_EQ(got.workload().snapshot().total().latency().p50_ns(),
            first.back().workload().snapshot().total().latency().p50_ns());
}

TEST_F(ServiceTest, WatchingAnUnknownWorkloadIsNotFound) {
  std::vector<v1::WatchWorkloadResponse> messages;
  grpc::Status status = Watch("w9", &messages);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(messages.empty());
}

TEST_F(ServiceTest, AWatcherLeavingDoesNotStopTheWorkload) {
  std::string id;
  ASSERT_TRUE(Start("/data/a", 0, &id).ok());
  {
    v1::WatchWorkloadRequest request;
    request.set_workload_id(id);
    grpc::ClientContext context;
    auto reader = stub_->WatchWorkload(&context, request);
    v1::WatchWorkloadResponse response;
    ASSERT_TRUE(reader->Read(&response));
    context.TryCancel();
    reader->Finish();
  }
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_FALSE(fake_->last()->stop_requested());
  EXPECT_FALSE(fake_->last()->Finished());
}

TEST_F(ServiceTest, StopAndSplit) {
  std::string id;
  ASSERT_TRUE(Start("/data/a", 0, &id).ok());
  v1::SetSplitStrategyRequest split;
  split.set_workload_id(id);
  split.set_split("fixed:4k");
  v1::SetSplitStrategyResponse split_response;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->SetSplitStrategy(&context, split, &split_response).ok());
    EXPECT_EQ(split_response.split(), "fixed:4096");
  }
  v1::StopWorkloadRequest stop;
  stop.set_workload_id(id);
  v1::StopWorkloadResponse stopped;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->StopWorkload(&context, stop, &stopped).ok());
  }
  EXPECT_EQ(stopped.workload().state(), v1::WORKLOAD_STATE_STOPPED);
  EXPECT_EQ(stopped.workload().split(), "fixed:4096");
  EXPECT_EQ(stopped.workload().snapshot().split_strategy(), "fixed:4096");
  {
    grpc::ClientContext context;
    EXPECT_EQ(
        stub_->SetSplitStrategy(&context, split, &split_response).error_code(),
        grpc::StatusCode::FAILED_PRECONDITION);
  }
}

TEST_F(ServiceTest, InvalidStrategiesAreInvalidArgumentNamingSplit) {
  std::string id;
  ASSERT_TRUE(Start("/data/a", 0, &id).ok());
  for (const char* bad : {"bogus", "fixed:1000", "fixed:", "fixed:0"}) {
    v1::SetSplitStrategyRequest split;
    split.set_workload_id(id);
    split.set_split(bad);
    v1::SetSplitStrategyResponse response;
    grpc::ClientContext context;
    const grpc::Status status =
        stub_->SetSplitStrategy(&context, split, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << bad;
    EXPECT_THAT(status.error_message(), ::testing::StartsWith("split ")) << bad;
    EXPECT_THAT(status.error_message(), HasSubstr(bad)) << bad;
  }
}

TEST_F(ServiceTest, WorkloadsCarryTheirProbedTargets) {
  std::string id;
  ASSERT_TRUE(Start("/data/a", 0, &id).ok());
  v1::GetWorkloadRequest get;
  get.set_workload_id(id);
  v1::GetWorkloadResponse got;
  grpc::ClientContext context;
  ASSERT_TRUE(stub_->GetWorkload(&context, get, &got).ok());
  ASSERT_EQ(got.workload().targets_size(), 1);
  const v1::TargetInfo& target = got.workload().targets(0);
  EXPECT_EQ(target.path(), "/data/a");
  EXPECT_EQ(target.kind(), v1::TARGET_KIND_REGULAR_FILE);
  EXPECT_EQ(target.size_bytes(), 1u << 30);
  EXPECT_TRUE(target.has_limits());
}

TEST_F(ServiceTest, HealthIsServingUntilShutdownAndWatchersGetTheEnd) {
  auto health = grpc::health::v1::Health::NewStub(channel_);
  grpc::health::v1::HealthCheckRequest request;
  grpc::health::v1::HealthCheckResponse response;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(health->Check(&context, request, &response).ok());
    EXPECT_EQ(response.status(),
              grpc::health::v1::HealthCheckResponse::SERVING);
  }
  std::string id;
  ASSERT_TRUE(Start("/data/a", 0, &id).ok());
  fake_->last()->set_finish_on_stop(false);
  std::vector<v1::WatchWorkloadResponse> messages;
  grpc::Status watch_status;
  absl::Notification watching;
  std::thread watcher([&] {
    watching.Notify();
    watch_status = Watch(id, &messages);
  });
  watching.WaitForNotification();
  absl::SleepFor(absl::Milliseconds(100));
  // The workload drains a little after the stop request.
  std::thread drain([&] {
    while (!fake_->last()->stop_requested()) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    absl::SleepFor(absl::Milliseconds(50));
    fake_->last()->Finish();
  });
  const absl::Time begin = absl::Now();
  server_->Shutdown();
  EXPECT_LT(absl::Now() - begin, absl::Seconds(3));
  drain.join();
  watcher.join();
  EXPECT_TRUE(watch_status.ok()) << watch_status.error_message();
  ASSERT_FALSE(messages.empty());
  EXPECT_EQ(messages.back().workload().state(), v1::WORKLOAD_STATE_STOPPED);
}

// Server reflection answers list_services with our service, so grpcurl and
// friends work. The request is hand-encoded: ServerReflectionRequest field 7
// (list_services) = "".
TEST_F(ServiceTest, ReflectionListsTheService) {
  grpc::GenericStub generic(channel_);
  grpc::CompletionQueue cq;
  grpc::ClientContext context;
  auto next = [&cq] {
    void* tag = nullptr;
    bool ok = false;
    EXPECT_TRUE(cq.Next(&tag, &ok));
    return ok;
  };
  auto call = generic.PrepareCall(
      &context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
      &cq);
  call->StartCall(reinterpret_cast<void*>(1));
  ASSERT_TRUE(next());
  const std::string request("\x3a\x00", 2);
  grpc::Slice slice(request);
  grpc::ByteBuffer buffer(&slice, 1);
  call->Write(buffer, reinterpret_cast<void*>(2));
  ASSERT_TRUE(next());
  grpc::ByteBuffer reply;
  call->Read(&reply, reinterpret_cast<void*>(3));
  ASSERT_TRUE(next());
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(reply.Dump(&slices).ok());
  std::string bytes;
  for (const grpc::Slice& s : slices) {
    bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  EXPECT_THAT(bytes, HasSubstr("blkperf.v1.Blkperf"));
  EXPECT_THAT(bytes, HasSubstr("grpc.health.v1.Health"));
  call->WritesDone(reinterpret_cast<void*>(4));
  ASSERT_TRUE(next());
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(5));
  ASSERT_TRUE(next());
  EXPECT_TRUE(status.ok()) << status.error_message();
  cq.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
  }
}

// A lease that is no valid google.protobuf.Duration is refused, naming it.
TEST_F(ServiceTest, AnInvalidLeaseDurationIsRefused) {
  v1::ArmWorkloadRequest arm;
  arm.set_api_version(v1::API_VERSION_CURRENT);
  arm.set_run_id("fleet-bad-lease");
  arm.mutable_spec()->add_targets()->set_path("/data/a");
  arm.mutable_spec()->add_cpus(0);
  arm.mutable_lease()->set_seconds(10);
  arm.mutable_lease()->set_nanos(-5);
  v1::ArmWorkloadResponse armed;
  grpc::ClientContext context;
  const grpc::Status status = stub_->ArmWorkload(&context, arm, &armed);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("lease {seconds: 10, nanos: -5} is not a valid"));
}

// Fleet runs on the wire: Arm (idempotent by run id), GetClock, Go, AbortRun.
TEST_F(ServiceTest, FleetArmGoAbortOverTheWire) {
  v1::ArmWorkloadRequest arm;
  arm.set_api_version(v1::API_VERSION_CURRENT);
  arm.set_run_id("fleet-1");
  arm.mutable_spec()->add_targets()->set_path("/data/a");
  arm.mutable_spec()->add_cpus(0);
  arm.mutable_lease()->set_seconds(30);
  v1::ArmWorkloadResponse armed;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->ArmWorkload(&context, arm, &armed).ok());
  }
  EXPECT_FALSE(armed.existing());
  EXPECT_EQ(armed.workload().state(), v1::WORKLOAD_STATE_ARMED);
  EXPECT_EQ(armed.workload().run_id(), "fleet-1");
  EXPECT_TRUE(armed.workload().has_lease_end());
  v1::ArmWorkloadResponse retried;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->ArmWorkload(&context, arm, &retried).ok());
  }
  EXPECT_TRUE(retried.existing());
  EXPECT_EQ(retried.workload_id(), armed.workload_id());
  EXPECT_EQ(fake_->workloads().size(), 1u);

  v1::GetClockResponse clock;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->GetClock(&context, v1::GetClockRequest(), &clock).ok());
  }
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const int64_t local = int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
  EXPECT_GT(clock.monotonic_ns(), 0);
  EXPECT_LE(clock.monotonic_ns(), local);  // same host, read before
  EXPECT_GT(clock.realtime_ns(), clock.monotonic_ns());

  v1::GoWorkloadRequest go;
  go.set_run_id("fleet-1");
  go.set_start_monotonic_ns(clock.monotonic_ns());  // already past: at once
  v1::GoWorkloadResponse went;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->GoWorkload(&context, go, &went).ok());
  }
  EXPECT_EQ(went.workload().state(), v1::WORKLOAD_STATE_RUNNING);
  EXPECT_EQ(fake_->last()->go_at(), clock.monotonic_ns());

  v1::AbortRunRequest abort;
  abort.set_run_id("fleet-1");
  abort.set_reason("host lost");
  v1::AbortRunResponse aborted;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->AbortRun(&context, abort, &aborted).ok());
  }
  EXPECT_EQ(aborted.workload().state(), v1::WORKLOAD_STATE_ABORTED);
  EXPECT_EQ(aborted.workload().end_reason(), "aborted by AbortRun: host lost");
  {
    grpc::ClientContext context;
    grpc::Status s = stub_->GoWorkload(&context, go, &went);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  }
}

TEST_F(ServiceTest, FleetCallsNameTheFieldOnBadInput) {
  v1::ArmWorkloadRequest arm;
  arm.set_run_id("bad id!");
  arm.mutable_spec()->add_targets()->set_path("/data/a");
  v1::ArmWorkloadResponse armed;
  grpc::ClientContext c1;
  grpc::Status s = stub_->ArmWorkload(&c1, arm, &armed);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("run_id \"bad id!\""));

  arm.set_run_id("ok");
  arm.mutable_lease()->set_seconds(7200);
  grpc::ClientContext c2;
  s = stub_->ArmWorkload(&c2, arm, &armed);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("lease 2h"));

  v1::GoWorkloadRequest go;
  go.set_run_id("never-armed");
  go.set_start_monotonic_ns(1);
  v1::GoWorkloadResponse went;
  grpc::ClientContext c3;
  s = stub_->GoWorkload(&c3, go, &went);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(s.error_message(), HasSubstr("run_id \"never-armed\""));

  v1::StartWorkloadRequest start;
  start.set_run_id(std::string(100, 'x'));
  start.mutable_spec()->add_targets()->set_path("/data/a");
  v1::StartWorkloadResponse started;
  grpc::ClientContext c4;
  s = stub_->StartWorkload(&c4, start, &started);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("run_id"));
  EXPECT_TRUE(fake_->workloads().empty());
}

}  // namespace
}  // namespace blkperf

namespace blkperf {
namespace {

// --health_listen: the health check alone, in plaintext (the kubelet's
// grpc probe): SERVING while the daemon serves, NOT_FOUND for another
// service name, and no blkperf.v1 call is served there.
TEST(ServerHealthListenTest, ServesTheHealthCheckAlone) {
  ServeOptions options;
  options.listen = "127.0.0.1:0";
  options.health_listen = "127.0.0.1:0";
  absl::StatusOr<std::unique_ptr<BlkperfServer>> server =
      BlkperfServer::Start(options, std::make_unique<FakeBackend>());
  ASSERT_TRUE(server.ok()) << server.status();
  ASSERT_GT((*server)->health_port(), 0);
  ASSERT_NE((*server)->health_port(), (*server)->port());
  auto channel = grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", (*server)->health_port()),
      grpc::InsecureChannelCredentials());
  auto health = grpc::health::v1::Health::NewStub(channel);
  for (const char* service : {"", "blkperf.v1.Blkperf"}) {
    grpc::health::v1::HealthCheckRequest request;
    request.set_service(service);
    grpc::health::v1::HealthCheckResponse response;
    grpc::ClientContext context;
    const grpc::Status status = health->Check(&context, request, &response);
    ASSERT_TRUE(status.ok()) << service << ": " << status.error_message();
    EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING);
  }
  {
    grpc::health::v1::HealthCheckRequest request;
    request.set_service("other.Service");
    grpc::health::v1::HealthCheckResponse response;
    grpc::ClientContext context;
    EXPECT_EQ(health->Check(&context, request, &response).error_code(),
              grpc::StatusCode::NOT_FOUND);
  }
  auto blkperf = v1::Blkperf::NewStub(channel);
  v1::GetCapabilitiesRequest request;
  request.set_api_version(v1::API_VERSION_CURRENT);
  v1::GetCapabilitiesResponse response;
  grpc::ClientContext context;
  EXPECT_EQ(blkperf->GetCapabilities(&context, request, &response).error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
}

// Two daemons on one data directory: the second does not start, and says
// which directory and which pid holds it.
TEST(ServerDataDirTest, SecondServerOnTheSameDataDirIsRefused) {
  ServeOptions options;
  options.listen = "127.0.0.1:0";
  options.data_dir =
      testing::TempDir() + "/service_data_dir_" + std::to_string(getpid());
  absl::StatusOr<std::unique_ptr<BlkperfServer>> first =
      BlkperfServer::Start(options, std::make_unique<FakeBackend>());
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<std::unique_ptr<BlkperfServer>> second =
      BlkperfServer::Start(options, std::make_unique<FakeBackend>());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(second.status().message()),
              HasSubstr(options.data_dir));
  EXPECT_THAT(std::string(second.status().message()),
              HasSubstr("pid " + std::to_string(getpid())));
}

}  // namespace
}  // namespace blkperf

namespace blkperf {
namespace {

// A huge id is echoed bounded and escaped, never whole.
TEST_F(ServiceTest, HugeInputIsEchoedBounded) {
  v1::GetWorkloadRequest request;
  request.set_workload_id(std::string(1 << 20, 'x') + "\n");
  v1::GetWorkloadResponse response;
  grpc::ClientContext context;
  const grpc::Status status =
      stub_->GetWorkload(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("...(+"));
  EXPECT_LT(status.error_message().size(), 400u);
  EXPECT_EQ(status.error_message().find('\n'), std::string::npos);
}

// Bytes that are no StartWorkloadRequest: a clear INVALID_ARGUMENT, and no
// workload started.
TEST_F(ServiceTest, MalformedRequestBytesAreInvalidArgument) {
  const grpc::Status status = GenericUnaryCall(
      channel_, "/blkperf.v1.Blkperf/StartWorkload",
      std::string("\xff\xff\xff\xff", 4));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << status.error_code() << " " << status.error_message();
  EXPECT_THAT(status.error_message(),
              HasSubstr("\"/blkperf.v1.Blkperf/StartWorkload\" are not a "
                        "valid request message"));
  EXPECT_TRUE(server_->manager().List(false).empty());
}

}  // namespace
}  // namespace blkperf
