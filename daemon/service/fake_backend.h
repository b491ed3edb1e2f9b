// A WorkloadBackend for tests: targets are entries of a map, workloads are
// counters the test drives. No I/O, no threads.
//
//   auto backend = std::make_unique<FakeBackend>();
//   FakeBackend* fake = backend.get();
//   fake->AddFile("/data/a", 1 << 20);
//   WorkloadManager manager(std::move(backend), limits, policy);
//   ... manager.Start(spec) ...
//   fake->workloads[0]->Finish();
#ifndef BLKPERF_DAEMON_SERVICE_FAKE_BACKEND_H_
#define BLKPERF_DAEMON_SERVICE_FAKE_BACKEND_H_

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "base/status_macros.h"
#include "daemon/service/workload_backend.h"

namespace blkperf {

// The test's handle on one started fake workload. Thread-safe.
class FakeWorkloadState {
 public:
  explicit FakeWorkloadState(ResolvedSpec resolved)
      : resolved_(std::move(resolved)), spec_(resolved_.spec) {}

  // Fleet runs: what Go and ScheduleSplitStrategy were given.
  bool armed() const {
    absl::MutexLock lock(&mu_);
    return armed_;
  }
  int64_t go_at() const {
    absl::MutexLock lock(&mu_);
    return go_at_;
  }
  int64_t split_at() const {
    absl::MutexLock lock(&mu_);
    return split_at_;
  }
  bool aborted() const {
    absl::MutexLock lock(&mu_);
    return aborted_;
  }
  void Arm() {
    absl::MutexLock lock(&mu_);
    armed_ = true;
  }
  absl::Status Go(int64_t at) {
    absl::MutexLock lock(&mu_);
    if (!armed_ || finished_) {
      return absl::FailedPreconditionError("not armed");
    }
    armed_ = false;
    go_at_ = at;
    return absl::OkStatus();
  }
  void Abort() {
    absl::MutexLock lock(&mu_);
    if (finished_) return;
    aborted_ = true;
    finished_ = true;
  }
  absl::Status ScheduleSplit(const SplitStrategy& split, int64_t at) {
    absl::MutexLock lock(&mu_);
    split_ = split;
    split_at_ = at;
    return absl::OkStatus();
  }

  // Ends the workload: state finished (or stopped after a stop request).
  void Finish() {
    absl::MutexLock lock(&mu_);
    finished_ = true;
  }
  // Ends the workload failed with `message` as its fatal error (as the
  // engine ends one on an I/O error, a stall or a pause).
  void Fail(std::string message) {
    absl::MutexLock lock(&mu_);
    finished_ = true;
    failure_ = std::move(message);
  }
  // Ends the workload finished, as steady state's stop mode does, with
  // `steady` as its result.
  void FinishSteady(SteadyStateResult steady) {
    absl::MutexLock lock(&mu_);
    finished_ = true;
    steady_ = std::move(steady);
  }
  // Adds `ios` completions of `latency_ns` each to thread 0.
  void Complete(uint64_t ios, uint64_t latency_ns) {
    absl::MutexLock lock(&mu_);
    ios_ += ios;
    latency_.RecordN(latency_ns, ios);
  }
  bool stop_requested() const {
    absl::MutexLock lock(&mu_);
    return stop_requested_;
  }
  SplitStrategy split() const {
    absl::MutexLock lock(&mu_);
    return split_;
  }
  const WorkloadSpec& spec() const { return spec_; }
  const ResolvedSpec& resolved() const { return resolved_; }

  // When true (the default), RequestStop ends the workload at once.
  void set_finish_on_stop(bool value) {
    absl::MutexLock lock(&mu_);
    finish_on_stop_ = value;
  }
  // When true, dropping the workload waits until it finished, as
  // ~Workload joins its submitters (a stalled one: forever).
  void set_destroy_waits(bool value) {
    absl::MutexLock lock(&mu_);
    destroy_waits_ = value;
  }
  void WaitIfDestroyWaits() {
    absl::MutexLock lock(&mu_);
    if (destroy_waits_) mu_.Await(absl::Condition(&finished_));
  }

  void RequestStop() {
    absl::MutexLock lock(&mu_);
    stop_requested_ = true;
    if (finish_on_stop_) finished_ = true;
  }
  bool Finished() const {
    absl::MutexLock lock(&mu_);
    return finished_;
  }
  bool WaitFor(absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(absl::Condition(&finished_), timeout);
  }
  absl::Status SetSplit(const SplitStrategy& split) {
    absl::MutexLock lock(&mu_);
    split_ = split;
    return absl::OkStatus();
  }
  WorkloadSnapshot Snapshot() const {
    absl::MutexLock lock(&mu_);
    WorkloadSnapshot s;
    s.taken = absl::Now();
    s.state = aborted_          ? WorkloadState::kAborted
              : !failure_.empty() ? WorkloadState::kFailed
              : !finished_ && armed_ ? WorkloadState::kArmed
              : !finished_      ? WorkloadState::kRunning
              : stop_requested_ ? WorkloadState::kStopped
                                : WorkloadState::kFinished;
    s.start.scheduled_monotonic_ns = go_at_;
    s.elapsed = absl::Milliseconds(static_cast<int64_t>(ios_));
    ThreadSnapshot t;
    t.thread_index = 0;
    t.cpu = spec_.cpus.empty() ? 0 : spec_.cpus[0];
    t.ios = ios_;
    t.bytes = ios_ * spec_.block_size;
    t.read_ios = ios_;
    t.read_bytes = t.bytes;
    t.enter_calls = ios_ / 4;
    t.latency = latency_;
    s.threads.push_back(t);
    s.total = t;
    s.total.thread_index = -1;
    s.total.cpu = -1;
    s.split_strategy = SplitStrategyName(split_);
    s.steady_state = steady_;
    if (!failure_.empty()) {
      s.has_error = true;
      s.error.message = failure_;
    }
    return s;
  }

 private:
  const ResolvedSpec resolved_;
  const WorkloadSpec& spec_;
  mutable absl::Mutex mu_;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_requested_ ABSL_GUARDED_BY(mu_) = false;
  bool finish_on_stop_ ABSL_GUARDED_BY(mu_) = true;
  bool destroy_waits_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t ios_ ABSL_GUARDED_BY(mu_) = 0;
  LatencyHistogram latency_ ABSL_GUARDED_BY(mu_);
  SplitStrategy split_ ABSL_GUARDED_BY(mu_);
  bool armed_ ABSL_GUARDED_BY(mu_) = false;
  bool aborted_ ABSL_GUARDED_BY(mu_) = false;
  std::string failure_ ABSL_GUARDED_BY(mu_);
  SteadyStateResult steady_ ABSL_GUARDED_BY(mu_);
  int64_t go_at_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t split_at_ ABSL_GUARDED_BY(mu_) = 0;
};

class FakeBackend final : public WorkloadBackend {
 public:
  // A regular file target.
  void AddFile(const std::string& path, uint64_t size) {
    TargetInfo info;
    info.path = path;
    info.resolved_path = path;
    info.kind = TargetKind::kRegularFile;
    info.size_bytes = size;
    info.logical_block_size = 512;
    Add(info);
  }
  // A block device target on `disk` (partition `partition`, "" for the whole
  // disk).
  TargetInfo& AddDevice(const std::string& path, const std::string& disk,
                        const std::string& partition = "") {
    TargetInfo info;
    info.path = path;
    info.resolved_path = path;
    info.kind = TargetKind::kBlockDevice;
    info.size_bytes = 1 << 30;
    info.logical_block_size = 512;
    info.device_name = disk;
    info.partition_name = partition;
    return Add(info);
  }
  TargetInfo& Add(const TargetInfo& info) {
    absl::MutexLock lock(&mu_);
    return targets_[info.path] = info;
  }

  void set_exclusive_status(absl::Status status) {
    absl::MutexLock lock(&mu_);
    exclusive_status_ = std::move(status);
  }
  // While held, a Start that creates a file stops half way through its
  // "fill" until release_fills() or the fill's cancel flag (fills_waiting()
  // counts the ones waiting).
  void hold_fills() {
    absl::MutexLock lock(&mu_);
    hold_fills_ = true;
  }
  void release_fills() {
    absl::MutexLock lock(&mu_);
    hold_fills_ = false;
  }
  int fills_waiting() const {
    absl::MutexLock lock(&mu_);
    return fills_waiting_;
  }
  void set_start_status(absl::Status status) {
    absl::MutexLock lock(&mu_);
    start_status_ = std::move(status);
  }
  // The started workloads, in start order.
  std::vector<std::shared_ptr<FakeWorkloadState>> workloads() const {
    absl::MutexLock lock(&mu_);
    return workloads_;
  }
  std::shared_ptr<FakeWorkloadState> last() const {
    absl::MutexLock lock(&mu_);
    return workloads_.empty() ? nullptr : workloads_.back();
  }

  // Field checks of the engine that the manager relies on.
  absl::StatusOr<ValidatedSpec> Validate(const WorkloadSpec& spec,
                                         const EngineLimits& limits) override {
    if (spec.targets.empty()) {
      return absl::InvalidArgumentError("targets is empty");
    }
    if (spec.queue_depth == 0) {
      return absl::InvalidArgumentError("queue_depth must be > 0");
    }
    return ValidatedSpec{.spec = spec};
  }

  std::vector<int> DefaultCpus() override { return {0, 1, 2, 3, 4, 5, 6, 7}; }

  absl::StatusOr<TargetInfo> Probe(absl::string_view path) override {
    absl::MutexLock lock(&mu_);
    auto it = targets_.find(std::string(path));
    if (it == targets_.end()) {
      return absl::NotFoundError(absl::StrCat(path, ": no such file"));
    }
    return it->second;
  }

  // Map entries need no opening.
  absl::StatusOr<TargetInfo> ProbeAllowed(const AccessPolicy& policy,
                                          absl::string_view path) override {
    return Probe(path);
  }

  absl::Status ProbeExclusive(absl::string_view path) override {
    absl::MutexLock lock(&mu_);
    return exclusive_status_;
  }

  // Like Workload::Start: creates missing files with create_size (named by
  // Publish), fills in threads and cpus, probes every target. The targets
  // are map entries, so `policy` (the binding open) is not consulted: the
  // manager's own checks by path are what these tests see.
  absl::StatusOr<std::unique_ptr<RunningWorkload>> Start(
      const ValidatedSpec& spec, const std::vector<TargetInfo>& checked,
      const AccessPolicy& policy, bool default_target,
      FillProgress* fill) override {
    ResolvedSpec resolved;
    resolved.spec = spec.spec;
    WorkloadSpec& out = resolved.spec;
    if (out.threads == 0) out.threads = std::max<uint32_t>(1, out.cpus.size());
    if (out.cpus.empty()) {
      for (uint32_t i = 0; i < out.threads; ++i) out.cpus.push_back(i % 8);
    }
    if (out.alignment == 0) out.alignment = out.block_size;
    resolved.writes = OpWrites(out.op, out.read_percent);
    absl::MutexLock lock(&mu_);
    if (!start_status_.ok()) return start_status_;
    std::vector<TargetInfo> pending;
    for (size_t i = 0; i < out.targets.size(); ++i) {
      const TargetSpec& t = out.targets[i];
      auto it = targets_.find(t.path);
      if (it == targets_.end() && t.create_size != 0) {
        TargetInfo created;
        created.path = t.path;
        created.resolved_path = t.path;
        created.size_bytes = t.create_size;
        created.logical_block_size = 512;
        BLKPERF_RETURN_IF_ERROR(FillLocked(t.create_size, fill));
        pending.push_back(created);
        resolved.targets.push_back(created);
        continue;
      }
      if (it == targets_.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("targets[", i, "].path ", t.path, " does not exist"));
      }
      resolved.targets.push_back(it->second);
    }
    auto state = std::make_shared<FakeWorkloadState>(std::move(resolved));
    workloads_.push_back(state);
    return std::unique_ptr<RunningWorkload>(
        new Handle(state, this, std::move(pending)));
  }

  // As Start, the workload armed: Go releases it.
  absl::StatusOr<std::unique_ptr<RunningWorkload>> Arm(
      const ValidatedSpec& spec, const std::vector<TargetInfo>& checked,
      const AccessPolicy& policy, bool default_target,
      FillProgress* fill) override {
    absl::StatusOr<std::unique_ptr<RunningWorkload>> w =
        Start(spec, checked, policy, default_target, fill);
    if (w.ok()) last()->Arm();
    return w;
  }

  // Paths Start created (create_size) and Publish named, in order.
  std::vector<std::string> created() const {
    absl::MutexLock lock(&mu_);
    return created_;
  }

 private:
  class Handle final : public RunningWorkload {
   public:
    Handle(std::shared_ptr<FakeWorkloadState> state, FakeBackend* backend,
           std::vector<TargetInfo> pending)
        : state_(std::move(state)),
          backend_(backend),
          pending_(std::move(pending)) {}
    ~Handle() override { state_->WaitIfDestroyWaits(); }
    const ResolvedSpec& resolved() const override { return state_->resolved(); }
    void RequestStop() override { state_->RequestStop(); }
    bool Finished() const override { return state_->Finished(); }
    bool WaitFor(absl::Duration timeout) override {
      return state_->WaitFor(timeout);
    }
    WorkloadSnapshot Snapshot() const override { return state_->Snapshot(); }
    absl::Status SetSplitStrategy(const SplitStrategy& s) override {
      return state_->SetSplit(s);
    }
    absl::Status ScheduleSplitStrategy(const SplitStrategy& s,
                                       int64_t at) override {
      return state_->ScheduleSplit(s, at);
    }
    absl::Status Go(int64_t at) override { return state_->Go(at); }
    void Abort() override { state_->Abort(); }
    absl::Status Publish() override {
      absl::MutexLock lock(&backend_->mu_);
      for (const TargetInfo& t : pending_) {
        if (!backend_->targets_.emplace(t.path, t).second) {
          return absl::AlreadyExistsError(absl::StrCat(t.path, " was taken"));
        }
        backend_->created_.push_back(t.path);
      }
      pending_.clear();
      return absl::OkStatus();
    }

   private:
    std::shared_ptr<FakeWorkloadState> state_;
    FakeBackend* backend_;
    std::vector<TargetInfo> pending_;
  };

  // The fake fill: half done at once, the rest waits while fills are held;
  // Cancelled (like NewFile::Create) once `fill->cancel` is set.
  absl::Status FillLocked(uint64_t size, FillProgress* fill)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (fill == nullptr) return absl::OkStatus();
    fill->total_bytes.store(size);
    fill->filled_bytes.store(size / 2);
    ++fills_waiting_;
    const absl::Time give_up = absl::Now() + absl::Seconds(20);
    while (hold_fills_ && !fill->cancel.load() && absl::Now() < give_up) {
      mu_.AwaitWithTimeout(absl::Condition(+[](bool* held) { return !*held; },
                                           &hold_fills_),
                           absl::Milliseconds(2));
    }
    --fills_waiting_;
    if (fill->cancel.load()) {
      return absl::CancelledError(absl::StrCat(
          "the fill was cancelled after ", size / 2, " of ", size, " bytes"));
    }
    fill->filled_bytes.store(size);
    return absl::OkStatus();
  }

  mutable absl::Mutex mu_;
  std::map<std::string, TargetInfo> targets_ ABSL_GUARDED_BY(mu_);
  absl::Status exclusive_status_ ABSL_GUARDED_BY(mu_);
  absl::Status start_status_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<FakeWorkloadState>> workloads_
      ABSL_GUARDED_BY(mu_);
  std::vector<std::string> created_ ABSL_GUARDED_BY(mu_);
  bool hold_fills_ ABSL_GUARDED_BY(mu_) = false;
  int fills_waiting_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace blkperf

#endif  // BLKPERF_DAEMON_SERVICE_FAKE_BACKEND_H_
