// Fuzzes the blkperf.v1 service handlers over the fake backend. An input is
// a sequence of calls, each [method byte][length: 2 bytes, little endian]
// [request bytes]; the method byte picks one of the eight RPCs, the bytes
// are decoded as its request message (calls whose bytes do not decode are
// skipped: the handlers never see those) and sent over an in-process
// channel to a fresh server, so workload ids (w1, w2, ...) mean the same in
// every run. Before a WatchWorkload every fake workload is finished so the
// stream ends; every call has a deadline.
//
// Checks: no crash or sanitizer report; every refusal carries a message and
// is never UNKNOWN or INTERNAL (a status the service did not convert).
#include <grpc/grpc.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "daemon/security/authorizer.h"
#include "daemon/security/roles.h"
#include "daemon/service/access_policy.h"
#include "daemon/service/blkperf_service.h"
#include "daemon/service/fake_backend.h"
#include "daemon/service/workload_manager.h"
#include "proto/blkperf.grpc.pb.h"

namespace blkperf {
namespace {

constexpr auto kCallDeadline = std::chrono::seconds(2);

// One server with its manager over a fresh FakeBackend.
class Harness {
 public:
  Harness() {
    auto backend = std::make_unique<FakeBackend>();
    fake_ = backend.get();
    fake_->AddFile("/data/a", 1 << 30);
    fake_->AddFile("/data/b", 1 << 20);
    fake_->AddDevice("/dev/fuzzdisk", "fuzzdisk");
    fake_->AddDevice("/dev/fuzzdisk1", "fuzzdisk", "fuzzdisk1");
    manager_ = std::make_unique<WorkloadManager>(
        std::move(backend), ManagerLimits{},
        AccessPolicy::Create({"/data/", "/dev/fuzzdisk*"}, {"/data/"}, ""));
    HostCapabilities host;
    host.io_uring_available = true;
    // Every call is local (in-process) and gets the admin role: the fuzzer
    // explores the handlers, not the role table (roles_test covers it).
    authorizer_ = std::make_unique<Authorizer>(RoleMap{}, Role::kAdmin,
                                               /*audit=*/nullptr);
    service_ = std::make_unique<BlkperfService>(
        manager_.get(), host, authorizer_.get(), ExposureFacts{});
    grpc::ServerBuilder builder;
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    if (server_ == nullptr) std::abort();
    stub_ = v1::Blkperf::NewStub(
        server_->InProcessChannel(grpc::ChannelArguments()));
  }
  ~Harness() {
    manager_->Shutdown(absl::Seconds(2));
    server_->Shutdown(std::chrono::system_clock::now() + kCallDeadline);
    server_->Wait();
  }

  // Decodes `bytes` as the request of `method` and calls it.
  void Call(uint8_t method, const std::string& bytes) {
    switch (method % 12) {
      case 0: Unary<v1::GetCapabilitiesRequest, v1::GetCapabilitiesResponse>(bytes, &Stub::GetCapabilities); break;
      case 1: Unary<v1::ProbeTargetRequest, v1::ProbeTargetResponse>(bytes, &Stub::ProbeTarget); break;
      case 2: Unary<v1::StartWorkloadRequest, v1::StartWorkloadResponse>(bytes, &Stub::StartWorkload); break;
      case 3: Unary<v1::StopWorkloadRequest, v1::StopWorkloadResponse>(bytes, &Stub::StopWorkload); break;
      case 4: Unary<v1::GetWorkloadRequest, v1::GetWorkloadResponse>(bytes, &Stub::GetWorkload); break;
      case 5: Unary<v1::ListWorkloadsRequest, v1::ListWorkloadsResponse>(bytes, &Stub::ListWorkloads); break;
      case 6: Watch(bytes); break;
      case 7: Unary<v1::SetSplitStrategyRequest, v1::SetSplitStrategyResponse>(bytes, &Stub::SetSplitStrategy); break;
      case 8: Unary<v1::ArmWorkloadRequest, v1::ArmWorkloadResponse>(bytes, &Stub::ArmWorkload); break;
      case 9: Unary<v1::GetClockRequest, v1::GetClockResponse>(bytes, &Stub::GetClock); break;
      case 10: Unary<v1::GoWorkloadRequest, v1::GoWorkloadResponse>(bytes, &Stub::GoWorkload); break;
      default: Unary<v1::AbortRunRequest, v1::AbortRunResponse>(bytes, &Stub::AbortRun); break;
    }
  }

 private:
  using Stub = v1::Blkperf::Stub;

  template <typename Request, typename Response>
  void Unary(const std::string& bytes,
             grpc::Status (Stub::*method)(grpc::ClientContext*,
                                          const Request&, Response*)) {
    Request request;
    if (!request.ParseFromString(bytes)) return;
    Response response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kCallDeadline);
    Check((stub_.get()->*method)(&context, request, &response));
  }

  void Watch(const std::string& bytes) {
    v1::WatchWorkloadRequest request;
    if (!request.ParseFromString(bytes)) return;
    for (const auto& workload : fake_->workloads()) workload->Finish();
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kCallDeadline);
    auto reader = stub_->WatchWorkload(&context, request);
    v1::WatchWorkloadResponse response;
    while (reader->Read(&response)) {
    }
    Check(reader->Finish());
  }

  static void Check(const grpc::Status& status) {
    if (status.ok()) return;
    if (status.error_message().empty() ||
        status.error_code() == grpc::StatusCode::UNKNOWN ||
        status.error_code() == grpc::StatusCode::INTERNAL) {
      std::fprintf(stderr, "blkperf_service_fuzzer: status %d \"%s\"\n",
                   static_cast<int>(status.error_code()),
                   status.error_message().c_str());
      std::abort();
    }
  }

  FakeBackend* fake_ = nullptr;
  std::unique_ptr<WorkloadManager> manager_;
  std::unique_ptr<Authorizer> authorizer_;
  std::unique_ptr<BlkperfService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<Stub> stub_;
};

}  // namespace
}  // namespace blkperf

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  grpc_init();  // once: each Harness then skips gRPC's global start and stop
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  blkperf::Harness harness;
  size_t pos = 0;
  while (pos + 3 <= size) {
    const uint8_t method = data[pos];
    size_t length = data[pos + 1] | (size_t{data[pos + 2]} << 8);
    pos += 3;
    if (length > size - pos) length = size - pos;
    harness.Call(method,
                 std::string(reinterpret_cast<const char*>(data + pos), length));
    pos += length;
  }
  return 0;
}
