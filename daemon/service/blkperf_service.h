// The blkperf.v1.Blkperf gRPC service: a thin, non-blocking layer over the
// WorkloadManager. Each call checks the request's api_version, converts the
// request (spec_convert), calls the manager and converts the answer
// (snapshot_convert) and the status (grpc_status). WatchWorkload is a
// ServerWriteReactor that sends a snapshot every interval until the workload
// ends, driven by a grpc::Alarm: no thread waits per watcher.
//
// Every handler first asks the Authorizer (which gRPC has usually asked
// already, see authorizer.h) for the caller; a workload records its
// starter as owner, and only the owner or an admin may stop or steer it.
// Mutating calls and refusals go to the audit log when there is one.
//
//   WorkloadManager manager(NewEngineBackend(), limits, policy);
//   Authorizer authorizer(roles, Role::kAdmin, /*audit=*/nullptr);
//   BlkperfService service(&manager, ProbeHostCapabilities(), &authorizer,
//                          {.tls = false});
//   grpc::ServerBuilder builder;
//   builder.RegisterService(&service);
#ifndef BLKPERF_DAEMON_SERVICE_BLKPERF_SERVICE_H_
#define BLKPERF_DAEMON_SERVICE_BLKPERF_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "daemon/engine/host/host_capabilities.h"
#include "daemon/security/audit_log.h"
#include "daemon/security/authorizer.h"
#include "daemon/service/workload_manager.h"
#include "proto/blkperf.grpc.pb.h"
#include "wire/snapshot_convert.h"

namespace blkperf {

// The daemon's version, reported by GetCapabilities.
inline constexpr char kDaemonVersion[] = "0.1.0";

// The API version this build speaks (from the .proto, its one definition).
inline constexpr uint32_t kApiVersion = v1::API_VERSION_CURRENT;

// OK when `client_version` is 0 (not stated) or kApiVersion; otherwise
// FailedPrecondition naming both versions.
absl::Status CheckApiVersion(uint32_t client_version);

// Fills a Workload message from a manager view: the resolved spec, the
// probed targets (without the allow-list fields), the split strategy in
// force and the snapshot (histograms per `options`).
void WorkloadViewToProto(const WorkloadView& view,
                         const SnapshotProtoOptions& options,
                         v1::Workload* proto);

// How the control plane is exposed, for GetCapabilities.
struct ExposureFacts {
  bool tls = false;
  bool insecure_listen = false;
};

class BlkperfService final : public v1::Blkperf::CallbackService {
 public:
  // `manager` and `authorizer` (with its audit log) must outlive the
  // service (and the server running it).
  BlkperfService(WorkloadManager* manager, HostCapabilities host,
                 const Authorizer* authorizer, ExposureFacts exposure,
                 std::string daemon_version = kDaemonVersion);

  grpc::ServerUnaryReactor* GetCapabilities(
      grpc::CallbackServerContext* context,
      const v1::GetCapabilitiesRequest* request,
      v1::GetCapabilitiesResponse* response) override;
  grpc::ServerUnaryReactor* ProbeTarget(
      grpc::CallbackServerContext* context,
      const v1::ProbeTargetRequest* request,
      v1::ProbeTargetResponse* response) override;
  grpc::ServerUnaryReactor* StartWorkload(
      grpc::CallbackServerContext* context,
      const v1::StartWorkloadRequest* request,
      v1::StartWorkloadResponse* response) override;
  grpc::ServerUnaryReactor* StopWorkload(
      grpc::CallbackServerContext* context,
      const v1::StopWorkloadRequest* request,
      v1::StopWorkloadResponse* response) override;
  grpc::ServerUnaryReactor* GetWorkload(
      grpc::CallbackServerContext* context,
      const v1::GetWorkloadRequest* request,
      v1::GetWorkloadResponse* response) override;
  grpc::ServerUnaryReactor* ListWorkloads(
      grpc::CallbackServerContext* context,
      const v1::ListWorkloadsRequest* request,
      v1::ListWorkloadsResponse* response) override;
  grpc::ServerWriteReactor<v1::WatchWorkloadResponse>* WatchWorkload(
      grpc::CallbackServerContext* context,
      const v1::WatchWorkloadRequest* request) override;
  grpc::ServerUnaryReactor* SetSplitStrategy(
      grpc::CallbackServerContext* context,
      const v1::SetSplitStrategyRequest* request,
      v1::SetSplitStrategyResponse* response) override;
  // Fleet runs (see WorkloadManager::Arm, Go, Abort).
  grpc::ServerUnaryReactor* ArmWorkload(
      grpc::CallbackServerContext* context,
      const v1::ArmWorkloadRequest* request,
      v1::ArmWorkloadResponse* response) override;
  grpc::ServerUnaryReactor* GetClock(grpc::CallbackServerContext* context,
                                     const v1::GetClockRequest* request,
                                     v1::GetClockResponse* response) override;
  grpc::ServerUnaryReactor* GoWorkload(
      grpc::CallbackServerContext* context,
      const v1::GoWorkloadRequest* request,
      v1::GoWorkloadResponse* response) override;
  grpc::ServerUnaryReactor* AbortRun(grpc::CallbackServerContext* context,
                                     const v1::AbortRunRequest* request,
                                     v1::AbortRunResponse* response) override;

 private:
  // Audits a mutating call when there is an audit log, and logs it when it
  // was refused (bounded: Authorizer::AdmitRefusalLog).
  void Audit(const grpc::CallbackServerContext& context, const Caller& caller,
             const char* method, std::string summary,
             const absl::Status& outcome, std::string workload_id) const;
  // OK if the caller owns `id` or is an admin; the caller audits (and so
  // logs) the call with its outcome.
  absl::Status CheckOwnerOf(const Caller& caller, const std::string& id,
                            const char* what) const;

  WorkloadManager* const manager_;
  const HostCapabilities host_;
  const Authorizer* const authorizer_;
  const ExposureFacts exposure_;
  const std::string daemon_version_;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_BLKPERF_SERVICE_H_
