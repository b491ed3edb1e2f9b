#include "fleet/testing/fake_fleet.h"

#include <time.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/clock.h"
#include "wire/merge.h"

namespace blkperf::fleet::testing {
namespace {

uint64_t Lower(uint32_t index) {
  if (index < 128) return index;
  const uint32_t shift = index / 64 - 1;
  return uint64_t{index - 64 * shift} << shift;
}

uint64_t Upper(uint32_t index) {
  if (index < 128) return index;
  return Lower(index) + ((uint64_t{1} << (index / 64 - 1)) - 1);
}

int64_t RuntimeNs(const v1::WorkloadSpec& spec) {
  const int64_t ns = spec.runtime().seconds() * 1000000000 + spec.runtime().nanos();
  return ns > 0 ? ns : 1000000000;
}

}  // namespace

v1::ThreadStats FakeTotal(const FakeHostConfig& config, int64_t elapsed_ns) {
  static constexpr uint64_t kWeights[4] = {70, 20, 9, 1};
  const uint64_t ios = static_cast<uint64_t>(config.iops *
                                             static_cast<double>(elapsed_ns) / 1e9);
  v1::ThreadStats t;
  t.set_thread_index(-1);
  t.set_ios(ios);
  t.set_read_ios(ios);
  v1::LatencyHistogram* h = t.mutable_histogram();
  h->mutable_layout()->set_name("log-linear-64");
  h->mutable_layout()->set_linear_buckets(128);
  h->mutable_layout()->set_sub_buckets(64);
  h->mutable_layout()->set_num_buckets(2368);
  h->mutable_layout()->set_max_trackable_ns(100000000000);
  uint64_t position = 0;
  for (int b = 0; b < 4; ++b) {
    const uint64_t rest = ios % 100;
    const uint64_t in_rest =
        rest > position ? std::min(rest - position, kWeights[b]) : 0;
    position += kWeights[b];
    const uint64_t count = (ios / 100) * kWeights[b] + in_rest;
    if (count == 0) continue;
    const uint32_t index = config.bucket_base + static_cast<uint32_t>(b);
    v1::HistogramBucket* bucket = h->add_buckets();
    bucket->set_index(index);
    bucket->set_count(count);
    bucket->set_lower_bound_ns(Lower(index));
    bucket->set_upper_bound_ns(Upper(index));
    h->set_count(h->count() + count);
    h->set_sum_ns(h->sum_ns() + count * (Lower(index) + (Upper(index) - Lower(index)) / 2));
  }
  if (h->buckets_size() > 0) {
    h->set_min_ns(h->buckets(0).lower_bound_ns());
    h->set_max_ns(h->buckets(h->buckets_size() - 1).upper_bound_ns());
  }
  // Completion latency = total (a fake submits in no time), so fio's
  // clat_ns of each host and of the merge has the buckets to compare.
  *t.mutable_completion_histogram() = *h;
  return t;
}

namespace {

// Job groups, as a daemon reports them: group g of n does the share
// (g + 1) / (1 + ... + n) of the host's rate, in buckets of its own
// (bucket_base + 8 g), and the total is the exact sum of the groups.
void AddFakeGroups(const FakeHostConfig& config, const v1::WorkloadSpec& spec,
                   int64_t elapsed, v1::Snapshot* snapshot) {
  const int n = spec.groups_size();
  const absl::Duration window = absl::Nanoseconds(std::max<int64_t>(elapsed, 1));
  std::vector<v1::ThreadStats> groups;
  uint32_t thread = 0;
  for (int g = 0; g < n; ++g) {
    FakeHostConfig share = config;
    share.iops = config.iops * (g + 1) / (n * (n + 1) / 2.0);
    share.bucket_base = config.bucket_base + 8 * static_cast<uint32_t>(g);
    v1::ThreadStats t = FakeTotal(share, elapsed);
    const v1::JobGroup& group = spec.groups(g);
    const uint32_t bs = group.has_block_size() ? group.block_size()
                        : spec.has_block_size() ? spec.block_size()
                                                : 4096;
    t.set_bytes(t.ios() * bs);
    t.set_read_bytes(t.bytes());
    absl::StatusOr<v1::ThreadStats> filled =
        MergeThreadStats({t}, window, "fake");
    if (filled.ok()) t = *std::move(filled);
    groups.push_back(t);
    v1::GroupResult* out = snapshot->add_groups();
    out->set_name(group.name().empty() ? absl::StrCat("g", g) : group.name());
    for (int c = 0; c < std::max(group.cpus_size(), 1); ++c) {
      out->add_threads(thread++);
    }
    *out->mutable_total() = std::move(t);
  }
  absl::StatusOr<v1::ThreadStats> total =
      MergeThreadStats(groups, window, "fake");
  if (total.ok()) *snapshot->mutable_total() = *std::move(total);
}

}  // namespace

v1::Workload FakeFleet::WorkloadOf(size_t index) const {
  absl::MutexLock lock(&mu_);
  const FakeHostState& s = states_[index];
  const FakeHostConfig& config = configs_[index];
  const int64_t now = MonotonicNowNs() + config.clock_offset_ns;
  v1::Workload w;
  w.set_workload_id("w1");
  w.set_run_id(s.run_id);
  *w.mutable_spec() = s.spec;
  w.set_split(s.split.empty() ? "none" : s.split);
  // One target whose disk model pairs hosts 0,1,4,5 and 2,3,6,7 (fleet
  // --cohort_by=device_model tests; neither the kernels nor racks).
  v1::TargetEnvironment* target =
      w.mutable_snapshot()->mutable_environment()->add_targets();
  target->set_path("/dev/fake");
  target->set_model(index % 4 < 2 ? "FAKE NVMe A" : "FAKE NVMe B");
  int64_t elapsed = 0;
  const int64_t runtime =
      config.runtime_ns > 0 ? config.runtime_ns : RuntimeNs(s.spec);
  if (s.go_host_ns != 0) {
    const int64_t until = s.aborted ? s.aborted_host_ns : now;
    elapsed = std::clamp<int64_t>(until - s.go_host_ns, 0, runtime);
  }
  if (s.aborted) {
    w.set_state(v1::WORKLOAD_STATE_ABORTED);
    w.set_end_reason(s.abort_reason);
  } else if (s.go_host_ns == 0 || now < s.go_host_ns) {
    w.set_state(v1::WORKLOAD_STATE_ARMED);
  } else {
    w.set_state(elapsed == runtime ? v1::WORKLOAD_STATE_FINISHED
                                   : v1::WORKLOAD_STATE_RUNNING);
  }
  if (s.go_host_ns != 0 && now >= s.go_host_ns) {
    v1::StartReport* start = w.mutable_start();
    start->set_scheduled_monotonic_ns(s.go_host_ns);
    start->set_first_submit_monotonic_ns(s.go_host_ns);
    start->set_last_thread_first_submit_monotonic_ns(s.go_host_ns);
    start->set_measure_start_monotonic_ns(s.go_host_ns);
    start->set_first_submit_realtime_ns(RealtimeNowNs() - (now - s.go_host_ns));
  }
  v1::Snapshot* snapshot = w.mutable_snapshot();
  snapshot->mutable_elapsed()->set_seconds(elapsed / 1000000000);
  snapshot->mutable_elapsed()->set_nanos(static_cast<int32_t>(elapsed % 1000000000));
  *snapshot->mutable_total() = FakeTotal(config, elapsed);
  const uint32_t bs = s.spec.has_block_size() ? s.spec.block_size() : 4096;
  snapshot->mutable_total()->set_bytes(snapshot->total().ios() * bs);
  snapshot->mutable_total()->set_read_bytes(snapshot->total().bytes());
  // Percentiles and rates as a daemon fills them.
  absl::StatusOr<v1::ThreadStats> total = MergeThreadStats(
      {snapshot->total()}, absl::Nanoseconds(std::max<int64_t>(elapsed, 1)),
      "fake");
  if (total.ok()) *snapshot->mutable_total() = *std::move(total);
  if (s.spec.groups_size() > 0) AddFakeGroups(config, s.spec, elapsed, snapshot);
  return w;
}

FakeHostState FakeFleet::host(size_t i) const {
  absl::MutexLock lock(&mu_);
  return states_[i];
}

class FakeService final : public v1::Blkperf::Service {
 public:
  explicit FakeService(FakeFleet* fleet) : fleet_(fleet) {}

  grpc::Status GetCapabilities(grpc::ServerContext* ctx,
                               const v1::GetCapabilitiesRequest*,
                               v1::GetCapabilitiesResponse* r) override {
    size_t i;
    if (grpc::Status s = Enter(ctx, "GetCapabilities", i); !s.ok()) return s;
    r->set_api_version(v1::API_VERSION_CURRENT);
    r->set_daemon_version("fake");
    // Two kernels, alternating by host index (fleet --cohort_by tests).
    r->set_kernel_release(i % 2 == 0 ? "6.1.0-fake" : "6.12.0-fake");
    return grpc::Status::OK;
  }

  grpc::Status ArmWorkload(grpc::ServerContext* ctx,
                           const v1::ArmWorkloadRequest* q,
                           v1::ArmWorkloadResponse* r) override {
    size_t i;
    if (grpc::Status s = Enter(ctx, "ArmWorkload", i, q->run_id()); !s.ok()) {
      return s;
    }
    const ArmBehavior arm = fleet_->configs_[i].arm;
    if (arm == ArmBehavior::kRefuse) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          "target /dev/fake is held by another workload");
    }
    if (arm == ArmBehavior::kHang) {
      const absl::Time end = absl::Now() + absl::Seconds(30);
      while (!ctx->IsCancelled() && absl::Now() < end) {
        absl::SleepFor(absl::Milliseconds(5));
      }
      return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "hung");
    }
    const bool ended = Ended(i) || Lost(i);
    {
      absl::MutexLock lock(&fleet_->mu_);
      FakeHostState& s = fleet_->states_[i];
      if (!s.run_id.empty() && s.run_id != q->run_id()) {
        if (!ended) {
          return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                              "another run holds this host");
        }
        // As a daemon takes a new workload once the last one ended: a
        // fresh run (the calls counted so far stay).
        std::map<std::string, int> calls = std::move(s.calls);
        const int created = s.workloads_created;
        s = FakeHostState();
        s.calls = std::move(calls);
        s.workloads_created = created;
      }
      r->set_existing(!s.run_id.empty());
      if (s.run_id.empty()) {
        ++s.workloads_created;
        s.run_id = q->run_id();
        s.spec = q->spec();
        s.armed = true;
        s.armed_host_ns =
            MonotonicNowNs() + fleet_->configs_[i].clock_offset_ns;
      }
      if (s.calls["ArmWorkload"] <=
          fleet_->configs_[i].lose_first_arm_answers) {
        return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                            "injected: the answer to an Arm that armed was lost");
      }
    }
    r->set_api_version(v1::API_VERSION_CURRENT);
    r->set_workload_id("w1");
    *r->mutable_workload() = fleet_->WorkloadOf(i);
    return grpc::Status::OK;
  }

  grpc::Status GetClock(grpc::ServerContext* ctx, const v1::GetClockRequest*,
                        v1::GetClockResponse* r) override {
    size_t i;
    if (grpc::Status s = Enter(ctx, "GetClock", i); !s.ok()) return s;
    r->set_api_version(v1::API_VERSION_CURRENT);
    r->set_monotonic_ns(MonotonicNowNs() + fleet_->configs_[i].clock_offset_ns);
    r->set_realtime_ns(RealtimeNowNs());
    return grpc::Status::OK;
  }

  grpc::Status GoWorkload(grpc::ServerContext* ctx,
                          const v1::GoWorkloadRequest* q,
                          v1::GoWorkloadResponse* r) override {
    size_t i;
    if (grpc::Status s = Enter(ctx, "GoWorkload", i); !s.ok()) return s;
    {
      absl::MutexLock lock(&fleet_->mu_);
      FakeHostState& s = fleet_->states_[i];
      if (s.run_id != q->run_id()) {
        return grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown run");
      }
      if (s.aborted) {
        return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "aborted");
      }
      if (s.go_host_ns == 0) s.go_host_ns = q->start_monotonic_ns();
    }
    r->set_api_version(v1::API_VERSION_CURRENT);
    *r->mutable_workload() = fleet_->WorkloadOf(i);
    return grpc::Status::OK;
  }

  grpc::Status AbortRun(grpc::ServerContext* ctx, const v1::AbortRunRequest* q,
                        v1::AbortRunResponse* r) override {
    size_t i;
    if (grpc::Status s = Enter(ctx, "AbortRun", i); !s.ok()) return s;
    const v1::Workload before = fleet_->WorkloadOf(i);
    {
      absl::MutexLock lock(&fleet_->mu_);
      FakeHostState& s = fleet_->states_[i];
      if (s.run_id != q->run_id()) {
        return grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown run");
      }
      if (before.state() == v1::WORKLOAD_STATE_ARMED ||
          before.state() == v1::WORKLOAD_STATE_RUNNING) {
        s.aborted = true;
        s.aborted_host_ns =
            MonotonicNowNs() + fleet_->configs_[i].clock_offset_ns;
        s.abort_reason = q->reason();
      }
    }
    r->set_api_version(v1::API_VERSION_CURRENT);
    *r->mutable_workload() = fleet_->WorkloadOf(i);
    return grpc::Status::OK;
  }

  grpc::Status GetWorkload(grpc::ServerContext* ctx,
                           const v1::GetWorkloadRequest* q,
                           v1::GetWorkloadResponse* r) override {
    size_t i;
    if (grpc::Status s = Enter(ctx, "GetWorkload", i); !s.ok()) return s;
    if (q->workload_id() != "w1" || fleet_->host(i).run_id.empty()) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown workload");
    }
    r->set_api_version(v1::API_VERSION_CURRENT);
    *r->mutable_workload() = fleet_->WorkloadOf(i);
    return grpc::Status::OK;
  }

  grpc::Status ListWorkloads(grpc::ServerContext* ctx,
                             const v1::ListWorkloadsRequest*,
                             v1::ListWorkloadsResponse* r) override {
    size_t i;
    if (grpc::Status s = Enter(ctx, "ListWorkloads", i); !s.ok()) return s;
    r->set_api_version(v1::API_VERSION_CURRENT);
    if (!fleet_->host(i).run_id.empty()) {
      *r->add_workloads() = fleet_->WorkloadOf(i);
    }
    return grpc::Status::OK;
  }

  grpc::Status SetSplitStrategy(grpc::ServerContext* ctx,
                                const v1::SetSplitStrategyRequest* q,
                                v1::SetSplitStrategyResponse* r) override {
    size_t i;
    if (grpc::Status s = Enter(ctx, "SetSplitStrategy", i); !s.ok()) return s;
    absl::MutexLock lock(&fleet_->mu_);
    fleet_->states_[i].split = q->split();
    fleet_->states_[i].split_at_ns = q->at_monotonic_ns();
    r->set_api_version(v1::API_VERSION_CURRENT);
    r->set_split(q->split());
    return grpc::Status::OK;
  }

 private:
  // Host i's run has ended (finished or aborted).
  bool Ended(size_t i) const {
    const v1::WorkloadState state = fleet_->WorkloadOf(i).state();
    return state == v1::WORKLOAD_STATE_FINISHED ||
           state == v1::WORKLOAD_STATE_ABORTED;
  }

  // Host i is lost (lost_after_ns into its run); `now` on its clock.
  bool LostAt(size_t i, int64_t now) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(fleet_->mu_) {
    const FakeHostConfig& config = fleet_->configs_[i];
    const FakeHostState& s = fleet_->states_[i];
    return config.lost_after_ns >= 0 && s.go_host_ns != 0 &&
           now >= s.go_host_ns + config.lost_after_ns;
  }
  bool Lost(size_t i) const {
    absl::MutexLock lock(&fleet_->mu_);
    return LostAt(i, MonotonicNowNs() + fleet_->configs_[i].clock_offset_ns);
  }

  // Finds the host by the port the call came to, counts the call and
  // applies its faults. A lost host is back for an Arm of another run
  // (`arm_run_id`): its lost run is over.
  grpc::Status Enter(grpc::ServerContext* ctx, const char* method,
                     size_t& index, const std::string& arm_run_id = "") {
    const grpc::string_ref authority = ctx->ExperimentalGetAuthority();
    const std::string a(authority.data(), authority.size());
    int port = 0;
    absl::MutexLock lock(&fleet_->mu_);
    if (!absl::SimpleAtoi(a.substr(a.rfind(':') + 1), &port) ||
        fleet_->port_to_host_.count(port) == 0) {
      return grpc::Status(grpc::StatusCode::INTERNAL, "unknown authority " + a);
    }
    index = fleet_->port_to_host_.at(port);
    const FakeHostConfig& config = fleet_->configs_[index];
    FakeHostState& s = fleet_->states_[index];
    const int n = ++s.calls[method];
    const int64_t now = MonotonicNowNs() + config.clock_offset_ns;
    const bool new_run = !arm_run_id.empty() && arm_run_id != s.run_id;
    if (!new_run && LostAt(index, now)) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "host gone");
    }
    if (n <= config.unavailable_first_calls) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "injected failure");
    }
    return grpc::Status::OK;
  }

  FakeFleet* fleet_;
};

absl::StatusOr<std::unique_ptr<FakeFleet>> FakeFleet::Start(
    std::vector<FakeHostConfig> hosts, const std::string& bind_address) {
  std::unique_ptr<FakeFleet> fleet(new FakeFleet());
  fleet->configs_ = std::move(hosts);
  fleet->states_.resize(fleet->configs_.size());
  fleet->service_ = std::make_unique<FakeService>(fleet.get());
  grpc::ServerBuilder builder;
  std::vector<int> ports(fleet->configs_.size(), 0);
  for (size_t i = 0; i < ports.size(); ++i) {
    builder.AddListeningPort(absl::StrCat(bind_address, ":0"),
                             grpc::InsecureServerCredentials(),
                             &ports[i]);
  }
  builder.RegisterService(fleet->service_.get());
  fleet->server_ = builder.BuildAndStart();
  if (fleet->server_ == nullptr) {
    return absl::InternalError("fake fleet: the gRPC server did not start");
  }
  for (size_t i = 0; i < ports.size(); ++i) {
    if (ports[i] == 0) {
      return absl::InternalError(absl::StrCat("fake fleet: port ", i, " not bound"));
    }
    absl::MutexLock lock(&fleet->mu_);
    fleet->port_to_host_[ports[i]] = i;
    fleet->addresses_.push_back(absl::StrCat(bind_address, ":", ports[i]));
  }
  return fleet;
}

void FakeFleet::AddPortAlias(int port, size_t index) {
  absl::MutexLock lock(&mu_);
  port_to_host_[port] = index;
}

FakeFleet::~FakeFleet() {
  if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now());
}

}  // namespace blkperf::fleet::testing
