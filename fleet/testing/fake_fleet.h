// Test-only: many fake blkperfd hosts in one process, one gRPC server
// listening on one loopback port per host. Each host implements the fleet
// API (GetCapabilities, ArmWorkload, GetClock, GoWorkload, AbortRun,
// GetWorkload, ListWorkloads, SetSplitStrategy) with a synthetic workload:
// a fixed IOPS rate from its start instant for spec.runtime, every I/O in a
// fixed histogram pattern, a CLOCK_MONOTONIC shifted by its own offset, and
// injectable faults. A host takes one run at a time: Arm with another run
// id is refused until its run has ended (finished or aborted), then starts
// a fresh one. Nothing touches a device.
//
//   FakeHostConfig slow; slow.iops = 1000;
//   auto fleet = FakeFleet::Start({FakeHostConfig(), slow});
//   Orchestrator o(options, (*fleet)->addresses(), nullptr);
//   EXPECT_EQ((*fleet)->host(1).workloads_created, 1);
#ifndef BLKPERF_FLEET_TESTING_FAKE_FLEET_H_
#define BLKPERF_FLEET_TESTING_FAKE_FLEET_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "proto/blkperf.grpc.pb.h"

namespace blkperf::fleet::testing {

enum class ArmBehavior { kOk, kRefuse, kHang };

struct FakeHostConfig {
  // The host's CLOCK_MONOTONIC minus this process's.
  int64_t clock_offset_ns = 0;
  ArmBehavior arm = ArmBehavior::kOk;
  // The first N calls of every method fail with UNAVAILABLE.
  int unavailable_first_calls = 0;
  // From this long after its start on, every call fails UNAVAILABLE (the
  // host is gone) until an Arm of another run (the host is back, its lost
  // run over); negative: never.
  int64_t lost_after_ns = -1;
  // The first N ArmWorkload calls arm the host (the first one creates the
  // workload) and then fail with UNAVAILABLE, as if the answer were lost.
  int lose_first_arm_answers = 0;
  // This host's runtime in ns; 0: the spec's.
  int64_t runtime_ns = 0;
  // Synthetic rate and histogram position.
  double iops = 100000;
  uint32_t bucket_base = 400;
};

// What a host saw, for assertions.
struct FakeHostState {
  std::map<std::string, int> calls;  // per method, failed ones included
  int workloads_created = 0;
  std::string run_id;
  bool armed = false;
  // When the workload was created, on the host's clock.
  int64_t armed_host_ns = 0;
  int64_t go_host_ns = 0;
  bool aborted = false;
  int64_t aborted_host_ns = 0;
  std::string abort_reason;
  std::string split;
  int64_t split_at_ns = 0;
  v1::WorkloadSpec spec;
};

class FakeFleet {
 public:
  // Listens on `bind_address` (a loopback IPv4 address), one port per
  // host, ports chosen by the kernel.
  static absl::StatusOr<std::unique_ptr<FakeFleet>> Start(
      std::vector<FakeHostConfig> hosts,
      const std::string& bind_address = "127.0.0.1");
  ~FakeFleet();

  const std::vector<std::string>& addresses() const { return addresses_; }
  FakeHostState host(size_t i) const;

  // The workload as host `index` reports it now (used by the service).
  v1::Workload WorkloadOf(size_t index) const;

  // Calls whose authority names `port` (a relay in front of host `index`)
  // go to host `index`.
  void AddPortAlias(int port, size_t index);

 private:
  friend class FakeService;
  FakeFleet() = default;

  mutable absl::Mutex mu_;
  std::vector<FakeHostConfig> configs_;
  std::vector<FakeHostState> states_ ABSL_GUARDED_BY(mu_);
  std::map<int, size_t> port_to_host_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> addresses_;
  std::unique_ptr<grpc::Service> service_;
  std::unique_ptr<grpc::Server> server_;
};

// The synthetic workload of `config` at `elapsed_ns` of measured time:
// ios = floor(iops * elapsed), histogram buckets bucket_base..+3 holding
// 70/20/9/1 % of them (cumulative counts never decrease).
v1::ThreadStats FakeTotal(const FakeHostConfig& config, int64_t elapsed_ns);

}  // namespace blkperf::fleet::testing

#endif  // BLKPERF_FLEET_TESTING_FAKE_FLEET_H_
