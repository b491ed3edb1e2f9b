#include "daemon/service/blkperf_service.h"

#include <time.h>

#include <grpcpp/alarm.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/bounded_text.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "daemon/engine/spec/spec_validation.h"
#include "daemon/engine/target/target.h"
#include "model/split_strategy.h"
#include "wire/grpc_status.h"
#include "wire/snapshot_convert.h"
#include "wire/spec_convert.h"

namespace blkperf {
namespace {

// Full method names, as gRPC and RequiredRole (roles.h) spell them.
constexpr char kGetCapabilities[] = "/blkperf.v1.Blkperf/GetCapabilities";
constexpr char kProbeTarget[] = "/blkperf.v1.Blkperf/ProbeTarget";
constexpr char kStartWorkload[] = "/blkperf.v1.Blkperf/StartWorkload";
constexpr char kStopWorkload[] = "/blkperf.v1.Blkperf/StopWorkload";
constexpr char kGetWorkload[] = "/blkperf.v1.Blkperf/GetWorkload";
constexpr char kListWorkloads[] = "/blkperf.v1.Blkperf/ListWorkloads";
constexpr char kWatchWorkload[] = "/blkperf.v1.Blkperf/WatchWorkload";
constexpr char kSetSplitStrategy[] = "/blkperf.v1.Blkperf/SetSplitStrategy";
constexpr char kArmWorkload[] = "/blkperf.v1.Blkperf/ArmWorkload";
constexpr char kGetClock[] = "/blkperf.v1.Blkperf/GetClock";
constexpr char kGoWorkload[] = "/blkperf.v1.Blkperf/GoWorkload";
constexpr char kAbortRun[] = "/blkperf.v1.Blkperf/AbortRun";

constexpr absl::Duration kDefaultWatchInterval = absl::Seconds(1);
constexpr absl::Duration kMinWatchInterval = absl::Milliseconds(10);
constexpr absl::Duration kMaxWatchInterval = absl::Hours(1);
// How often a watcher checks whether its workload has ended, so the last
// message follows the end promptly whatever the interval.
constexpr absl::Duration kEndPollInterval = absl::Milliseconds(100);

grpc::ServerUnaryReactor* Done(grpc::CallbackServerContext* context,
                               const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

std::chrono::system_clock::time_point Deadline(absl::Duration from_now) {
  return std::chrono::system_clock::now() +
         std::chrono::nanoseconds(absl::ToInt64Nanoseconds(from_now));
}

// Sends a snapshot at once and then every interval until the workload ends;
// the last message has the terminal state. One operation (a write or the
// alarm) is outstanding at a time, so Finish is reached exactly once.
class WatchReactor final
    : public grpc::ServerWriteReactor<v1::WatchWorkloadResponse> {
 public:
  // `allowed`: the authorizer's answer; a refusal ends the call at once.
  WatchReactor(WorkloadManager* manager,
               const v1::WatchWorkloadRequest& request,
               const absl::Status& allowed)
      : manager_(manager),
        id_(request.workload_id()),
        histograms_{.thread_histograms = request.thread_histograms(),
                    .phase_histograms = request.phase_histograms()} {
    absl::Status status = allowed.ok() ? Setup(request) : allowed;
    if (!status.ok()) {
      Finish(ToGrpcStatus(status));
      return;
    }
    Send();
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "watcher went away"));
    } else if (terminal_) {
      Finish(grpc::Status::OK);
    } else {
      Arm();
    }
  }

  void OnCancel() override {
    cancelled_.store(true);
    alarm_.Cancel();
  }

  void OnDone() override { delete this; }

 private:
  absl::Status Setup(const v1::WatchWorkloadRequest& request) {
    BLKPERF_RETURN_IF_ERROR(CheckApiVersion(request.api_version()));
    if (request.has_interval()) {
      const absl::Duration interval =
          absl::Seconds(request.interval().seconds()) +
          absl::Nanoseconds(request.interval().nanos());
      if (interval != absl::ZeroDuration() &&
          (interval < kMinWatchInterval || interval > kMaxWatchInterval)) {
        return absl::InvalidArgumentError(
            absl::StrCat("interval ", absl::FormatDuration(interval),
                         " is not in 10ms..1h"));
      }
      if (interval != absl::ZeroDuration()) interval_ = interval;
    }
    return manager_->HasEnded(id_).status();
  }

  void Send() {
    absl::StatusOr<WorkloadView> view = manager_->Get(id_);
    if (!view.ok()) {
      Finish(ToGrpcStatus(view.status()));
      return;
    }
    response_.Clear();
    response_.set_api_version(kApiVersion);
    WorkloadViewToProto(*view, histograms_, response_.mutable_workload());
    const WorkloadSnapshot& now = view->snapshot;
    ThreadSnapshot delta = IntervalDelta(now.total, previous_total_);
    delta.thread_index = -1;
    const absl::Duration span = now.elapsed - previous_elapsed_;
    ThreadToProto(delta, span, /*with_histogram=*/true,
                  response_.mutable_interval());
    DurationToProto(span, response_.mutable_interval_elapsed());
    previous_total_ = now.total;
    previous_elapsed_ = now.elapsed;
    terminal_ = IsTerminal(now.state);
    next_send_ = absl::Now() + interval_;
    StartWrite(&response_);
  }

  void Arm() {
    const absl::Duration wait = std::clamp(
        next_send_ - absl::Now(), absl::ZeroDuration(), kEndPollInterval);
    alarm_.Set(Deadline(wait), [this](bool ok) { Tick(ok); });
  }

  void Tick(bool ok) {
    if (!ok || cancelled_.load()) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "watcher went away"));
      return;
    }
    absl::StatusOr<bool> ended = manager_->HasEnded(id_);
    if (!ended.ok()) {
      Finish(ToGrpcStatus(ended.status()));
    } else if (*ended || absl::Now() >= next_send_) {
      Send();
    } else {
      Arm();
    }
  }

  WorkloadManager* const manager_;
  const std::string id_;
  const SnapshotProtoOptions histograms_;
  absl::Duration interval_ = kDefaultWatchInterval;
  absl::Time next_send_;
  bool terminal_ = false;
  std::atomic<bool> cancelled_{false};
  ThreadSnapshot previous_total_;
  absl::Duration previous_elapsed_ = absl::ZeroDuration();
  v1::WatchWorkloadResponse response_;
  grpc::Alarm alarm_;
};

}  // namespace

absl::Status CheckApiVersion(uint32_t client_version) {
  if (client_version == 0 || client_version == kApiVersion) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "api_version: the client speaks blkperf API version ", client_version,
      " but this daemon speaks version ", kApiVersion));
}

void WorkloadViewToProto(const WorkloadView& view,
                         const SnapshotProtoOptions& options,
                         v1::Workload* proto) {
  proto->set_workload_id(view.id);
  proto->set_owner(view.owner);
  proto->set_state(StateToProto(view.snapshot.state));
  SpecToProto(view.spec, proto->mutable_spec());
  proto->mutable_spec()->set_split(SplitStrategyName(view.split));
  TimeToProto(view.start_time, proto->mutable_start_time());
  if (view.end_time != absl::InfinitePast()) {
    TimeToProto(view.end_time, proto->mutable_end_time());
  }
  proto->set_run_id(view.run_id);
  proto->set_end_reason(view.end_reason);
  if (view.snapshot.start.first_monotonic_ns != 0) {
    StartTimesToProto(view.snapshot.start, proto->mutable_start());
  }
  if (view.lease_end != absl::InfiniteFuture()) {
    TimeToProto(view.lease_end, proto->mutable_lease_end());
  }
  SnapshotToProto(view.snapshot, options, proto->mutable_snapshot());
  // The engine knows best what is in force (an A/B schedule switches on its
  // own); a state-only view has no snapshot strategy.
  proto->set_split(view.snapshot.split_strategy.empty()
                       ? SplitStrategyName(view.split)
                       : view.snapshot.split_strategy);
  for (const TargetInfo& target : view.targets) {
    TargetInfoToProto(target, proto->add_targets());
  }
}

BlkperfService::BlkperfService(WorkloadManager* manager, HostCapabilities host,
                               const Authorizer* authorizer,
                               ExposureFacts exposure,
                               std::string daemon_version)
    : manager_(manager),
      host_(std::move(host)),
      authorizer_(authorizer),
      exposure_(exposure),
      daemon_version_(std::move(daemon_version)) {}

void BlkperfService::Audit(const grpc::CallbackServerContext& context,
                           const Caller& caller, const char* method,
                           std::string summary, const absl::Status& outcome,
                           std::string workload_id) const {
  std::string note;
  if (!outcome.ok()) {
    // Every refusal is logged, bounded as the authorizer's own refusals, in
    // stderr and the audit log alike: over the bound neither gets a line,
    // and the next line admitted says how many were left out.
    std::optional<std::string> admitted = authorizer_->AdmitRefusalLog();
    if (!admitted.has_value()) return;
    note = *std::move(admitted);
    BLKPERF_LOG(WARNING) << "refused " << method << " from "
                         << BoundedText(context.peer()) << " "
                         << BoundedText(caller.identity) << ": "
                         << outcome.message() << note;
  }
  AuditLog* audit = authorizer_->audit();
  if (audit == nullptr) return;
  audit->Write({.peer = context.peer(),
                .identity = caller.identity,
                .role = RoleName(caller.role),
                .method = method,
                .summary = std::move(summary),
                .outcome = outcome.ok() ? "OK" : outcome.ToString() + note,
                .workload_id = std::move(workload_id)});
}

absl::Status BlkperfService::CheckOwnerOf(const Caller& caller,
                                          const std::string& id,
                                          const char* what) const {
  absl::StatusOr<WorkloadView> view = manager_->Get(id);
  if (!view.ok()) return view.status();
  return CheckOwner(caller, view->owner, id, what);
}


grpc::ServerUnaryReactor* BlkperfService::GetCapabilities(
    grpc::CallbackServerContext* context,
    const v1::GetCapabilitiesRequest* request,
    v1::GetCapabilitiesResponse* response) {
  absl::StatusOr<Caller> caller =
      authorizer_->AuthorizeCall(*context, kGetCapabilities);
  if (!caller.ok()) return Done(context, caller.status());
  response->set_caller_identity(caller->identity);
  response->set_caller_role(RoleName(caller->role));
  response->set_tls(exposure_.tls);
  response->set_insecure_listen(exposure_.insecure_listen);
  response->set_audit_log(authorizer_->audit() != nullptr);
  // Answered whatever the client's version, so it can report the mismatch.
  response->set_api_version(kApiVersion);
  response->set_daemon_version(daemon_version_);
  response->set_kernel_release(host_.kernel_release);
  response->set_machine(host_.machine);
  v1::IoUringCapabilities* ring = response->mutable_io_uring();
  ring->set_available(host_.io_uring_available);
  ring->set_unavailable_reason(host_.unavailable_reason);
  for (const std::string& f : host_.features) ring->add_features(f);
  for (const std::string& f : host_.setup_flags) ring->add_setup_flags(f);
  for (const std::string& op : host_.opcodes) ring->add_opcodes(op);
  for (int cpu : OnlineCpus()) response->add_online_cpus(cpu);
  v1::HugePages* huge = response->mutable_huge_pages();
  huge->set_page_size_bytes(host_.huge_page_size_bytes);
  huge->set_total(host_.huge_pages_total);
  huge->set_free(host_.huge_pages_free);
  huge->set_transparent(host_.transparent_huge_pages);
  const ManagerLimits& limits = manager_->limits();
  v1::Limits* out = response->mutable_limits();
  out->set_max_workloads(limits.max_workloads);
  out->set_max_queue_depth(limits.max_queue_depth);
  out->set_max_buffer_bytes(limits.max_buffer_bytes);
  DurationToProto(limits.max_runtime, out->mutable_max_runtime());
  out->set_keep_finished(limits.keep_finished);
  out->set_max_block_size(manager_->engine_limits().max_block_size);
  out->set_max_threads(manager_->engine_limits().max_threads);
  out->set_max_armed(limits.max_armed);
  out->set_max_create_bytes(limits.max_create_bytes);
  for (const std::string& rule : manager_->policy().WriteRuleTexts()) {
    response->add_allow_write(rule);
  }
  for (const std::string& rule : manager_->policy().ReadRuleTexts()) {
    response->add_allow_read(rule);
  }
  *response->mutable_histogram_layout() = HistogramLayoutProto();
  response->set_cpu_frequency_governor(CpuFrequencyGovernor());
  for (int cpu : manager_->BusyCpus()) response->add_busy_cpus(cpu);
  return Done(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* BlkperfService::ProbeTarget(
    grpc::CallbackServerContext* context, const v1::ProbeTargetRequest* request,
    v1::ProbeTargetResponse* response) {
  absl::StatusOr<Caller> caller = authorizer_->AuthorizeCall(*context, kProbeTarget);
  if (!caller.ok()) return Done(context, caller.status());
  if (absl::Status s = CheckApiVersion(request->api_version()); !s.ok()) {
    return Done(context, s);
  }
  absl::StatusOr<TargetInfo> info = manager_->Probe(request->path());
  if (!info.ok()) return Done(context, info.status());
  response->set_api_version(kApiVersion);
  v1::TargetInfo* target = response->mutable_target();
  TargetInfoToProto(*info, target);
  target->set_cpu_frequency_governor(CpuFrequencyGovernor());
  const AccessPolicy& policy = manager_->policy();
  target->set_read_allowed(!policy.ReadRule(*info).empty());
  const absl::Status write = policy.CheckWrite("path", *info);
  target->set_write_allowed(write.ok());
  target->set_write_rule(
      write.ok() ? absl::StrCat("allowed by --allow_write_paths rule ",
                                policy.WriteRule(*info))
                 : std::string(write.message()));
  return Done(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* BlkperfService::StartWorkload(
    grpc::CallbackServerContext* context,
    const v1::StartWorkloadRequest* request,
    v1::StartWorkloadResponse* response) {
  absl::StatusOr<Caller> caller = authorizer_->AuthorizeCall(*context, kStartWorkload);
  if (!caller.ok()) return Done(context, caller.status());
  if (absl::Status s = CheckApiVersion(request->api_version()); !s.ok()) {
    return Done(context, s);
  }
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(request->spec());
  absl::StatusOr<ArmResult> started =
      spec.ok() ? manager_->Start(*spec, request->run_id(), caller->identity)
                : absl::StatusOr<ArmResult>(spec.status());
  Audit(*context, *caller, "StartWorkload", request->spec().ShortDebugString(),
        started.status(), started.ok() ? started->view.id : "");
  if (!started.ok()) return Done(context, started.status());
  response->set_api_version(kApiVersion);
  response->set_workload_id(started->view.id);
  WorkloadViewToProto(started->view, {}, response->mutable_workload());
  return Done(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* BlkperfService::StopWorkload(
    grpc::CallbackServerContext* context,
    const v1::StopWorkloadRequest* request,
    v1::StopWorkloadResponse* response) {
  absl::StatusOr<Caller> caller = authorizer_->AuthorizeCall(*context, kStopWorkload);
  if (!caller.ok()) return Done(context, caller.status());
  if (absl::Status s = CheckApiVersion(request->api_version()); !s.ok()) {
    return Done(context, s);
  }
  const std::string& id = request->workload_id();
  absl::Status owner =
      CheckOwnerOf(*caller, id, "stop");
  absl::StatusOr<WorkloadView> view =
      owner.ok() ? manager_->Stop(id) : absl::StatusOr<WorkloadView>(owner);
  Audit(*context, *caller, "StopWorkload", "", view.status(), id);
  if (!view.ok()) return Done(context, view.status());
  response->set_api_version(kApiVersion);
  WorkloadViewToProto(*view, {}, response->mutable_workload());
  return Done(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* BlkperfService::GetWorkload(
    grpc::CallbackServerContext* context, const v1::GetWorkloadRequest* request,
    v1::GetWorkloadResponse* response) {
  absl::StatusOr<Caller> caller = authorizer_->AuthorizeCall(*context, kGetWorkload);
  if (!caller.ok()) return Done(context, caller.status());
  if (absl::Status s = CheckApiVersion(request->api_version()); !s.ok()) {
    return Done(context, s);
  }
  absl::StatusOr<WorkloadView> view = manager_->Get(request->workload_id());
  if (!view.ok()) return Done(context, view.status());
  response->set_api_version(kApiVersion);
  WorkloadViewToProto(
      *view,
      {.thread_histograms = request->thread_histograms(),
       .phase_histograms = request->phase_histograms(),
       .series_histograms = request->ended_series_histograms() &&
                            IsTerminal(view->snapshot.state)},
      response->mutable_workload());
  return Done(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* BlkperfService::ListWorkloads(
    grpc::CallbackServerContext* context,
    const v1::ListWorkloadsRequest* request,
    v1::ListWorkloadsResponse* response) {
  absl::StatusOr<Caller> caller = authorizer_->AuthorizeCall(*context, kListWorkloads);
  if (!caller.ok()) return Done(context, caller.status());
  if (absl::Status s = CheckApiVersion(request->api_version()); !s.ok()) {
    return Done(context, s);
  }
  response->set_api_version(kApiVersion);
  for (const WorkloadView& view : manager_->List(request->with_snapshots())) {
    v1::Workload* w = response->add_workloads();
    WorkloadViewToProto(view, {}, w);
    if (!request->with_snapshots()) {
      // Keep the state only; an empty snapshot would read as zero figures.
      w->clear_snapshot();
    }
  }
  return Done(context, absl::OkStatus());
}

grpc::ServerWriteReactor<v1::WatchWorkloadResponse>*
BlkperfService::WatchWorkload(grpc::CallbackServerContext* context,
                              const v1::WatchWorkloadRequest* request) {
  absl::StatusOr<Caller> caller =
      authorizer_->AuthorizeCall(*context, kWatchWorkload);
  return new WatchReactor(manager_, *request, caller.status());
}

grpc::ServerUnaryReactor* BlkperfService::SetSplitStrategy(
    grpc::CallbackServerContext* context,
    const v1::SetSplitStrategyRequest* request,
    v1::SetSplitStrategyResponse* response) {
  absl::StatusOr<Caller> caller = authorizer_->AuthorizeCall(*context, kSetSplitStrategy);
  if (!caller.ok()) return Done(context, caller.status());
  if (absl::Status s = CheckApiVersion(request->api_version()); !s.ok()) {
    return Done(context, s);
  }
  const std::string& id = request->workload_id();
  absl::Status owner =
      CheckOwnerOf(*caller, id, "split");
  absl::StatusOr<std::string> split =
      owner.ok() ? manager_->SetSplitStrategy(id, request->split(),
                                              request->at_monotonic_ns())
                 : absl::StatusOr<std::string>(owner);
  Audit(*context, *caller, "SetSplitStrategy",
        absl::StrCat("split=", request->split()), split.status(), id);
  if (!split.ok()) return Done(context, split.status());
  response->set_api_version(kApiVersion);
  response->set_split(*split);
  return Done(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* BlkperfService::ArmWorkload(
    grpc::CallbackServerContext* context, const v1::ArmWorkloadRequest* request,
    v1::ArmWorkloadResponse* response) {
  absl::StatusOr<Caller> caller =
      authorizer_->AuthorizeCall(*context, kArmWorkload);
  if (!caller.ok()) return Done(context, caller.status());
  if (absl::Status s = CheckApiVersion(request->api_version()); !s.ok()) {
    return Done(context, s);
  }
  absl::StatusOr<WorkloadSpec> spec = SpecFromProto(request->spec());
  if (spec.ok()) {
    // google.protobuf.Duration's rule: nanos within +-999,999,999 and of
    // seconds' sign ({10 s, -5 ns} is not a duration).
    const google::protobuf::Duration& lease = request->lease();
    if (lease.nanos() > 999999999 || lease.nanos() < -999999999 ||
        (lease.seconds() > 0 && lease.nanos() < 0) ||
        (lease.seconds() < 0 && lease.nanos() > 0)) {
      spec = absl::InvalidArgumentError(absl::StrCat(
          "lease {seconds: ", lease.seconds(), ", nanos: ", lease.nanos(),
          "} is not a valid duration"));
    }
  }
  absl::StatusOr<ArmResult> armed =
      spec.ok() ? manager_->Arm(*spec, request->run_id(),
                                DurationFromProto(request->lease()),
                                caller->identity)
                : absl::StatusOr<ArmResult>(spec.status());
  Audit(*context, *caller, "ArmWorkload",
        absl::StrCat("run_id=", BoundedText(request->run_id()), " ",
                     request->spec().ShortDebugString()),
        armed.status(), armed.ok() ? armed->view.id : "");
  if (!armed.ok()) return Done(context, armed.status());
  response->set_api_version(kApiVersion);
  response->set_workload_id(armed->view.id);
  response->set_existing(armed->existing);
  WorkloadViewToProto(armed->view, {}, response->mutable_workload());
  return Done(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* BlkperfService::GetClock(
    grpc::CallbackServerContext* context, const v1::GetClockRequest* request,
    v1::GetClockResponse* response) {
  absl::StatusOr<Caller> caller = authorizer_->AuthorizeCall(*context, kGetClock);
  if (!caller.ok()) return Done(context, caller.status());
  if (absl::Status s = CheckApiVersion(request->api_version()); !s.ok()) {
    return Done(context, s);
  }
  // Back to back, monotonic first: both vDSO reads, tens of ns apart.
  const int64_t monotonic_ns = MonotonicNowNs();
  const int64_t realtime_ns = RealtimeNowNs();
  response->set_api_version(kApiVersion);
  response->set_monotonic_ns(monotonic_ns);
  response->set_realtime_ns(realtime_ns);
  return Done(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* BlkperfService::GoWorkload(
    grpc::CallbackServerContext* context, const v1::GoWorkloadRequest* request,
    v1::GoWorkloadResponse* response) {
  absl::StatusOr<Caller> caller =
      authorizer_->AuthorizeCall(*context, kGoWorkload);
  if (!caller.ok()) return Done(context, caller.status());
  if (absl::Status s = CheckApiVersion(request->api_version()); !s.ok()) {
    return Done(context, s);
  }
  // Run ids are per owner: the caller's own run, or NotFound.
  absl::StatusOr<WorkloadView> view = manager_->Go(
      request->run_id(), request->start_monotonic_ns(), caller->identity);
  Audit(*context, *caller, "GoWorkload",
        absl::StrCat("run_id=", BoundedText(request->run_id()),
                     " start_monotonic_ns=", request->start_monotonic_ns()),
        view.status(), view.ok() ? view->id : "");
  if (!view.ok()) return Done(context, view.status());
  response->set_api_version(kApiVersion);
  WorkloadViewToProto(*view, {}, response->mutable_workload());
  return Done(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* BlkperfService::AbortRun(
    grpc::CallbackServerContext* context, const v1::AbortRunRequest* request,
    v1::AbortRunResponse* response) {
  absl::StatusOr<Caller> caller = authorizer_->AuthorizeCall(*context, kAbortRun);
  if (!caller.ok()) return Done(context, caller.status());
  if (absl::Status s = CheckApiVersion(request->api_version()); !s.ok()) {
    return Done(context, s);
  }
  // Run ids are per owner: the caller's own run, or NotFound.
  absl::StatusOr<WorkloadView> view = manager_->Abort(
      request->run_id(), request->reason(), caller->identity);
  Audit(*context, *caller, "AbortRun",
        absl::StrCat("run_id=", BoundedText(request->run_id()),
                     " reason=", BoundedText(request->reason())),
        view.status(), view.ok() ? view->id : "");
  if (!view.ok()) return Done(context, view.status());
  response->set_api_version(kApiVersion);
  WorkloadViewToProto(*view, {}, response->mutable_workload());
  return Done(context, absl::OkStatus());
}

}  // namespace blkperf
