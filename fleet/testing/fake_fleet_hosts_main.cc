// fake_fleet_hosts: test-only; serves N fake blkperfd hosts (fake_fleet.h)
// from one process, for the scale tests. Writes one host:port a line to
// --address_file, then serves until SIGTERM or SIGINT. Each host holds two
// descriptors (its listening socket and the orchestrator's connection), so
// a process serves at most (RLIMIT_NOFILE - 64) / 2 hosts: it raises its
// soft limit to the hard one and refuses more hosts than that (larger
// fleets are served by several processes, fleet/scale_test.sh).
//
//   fake_fleet_hosts --hosts=1000 --address_file=/tmp/hosts.txt &
//   fake_fleet_hosts --hosts=2000 --first_host=2000 --bind_address=127.0.10.2 ...
//   fake_fleet_hosts ... --refuse_arm_every=1000 --lost_every=1000  # faults
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/time/time.h"
#include "absl/synchronization/mutex.h"
#include "fleet/testing/fake_fleet.h"

ABSL_FLAG(int, hosts, 1000, "fake hosts (one loopback port each)");
ABSL_FLAG(int, first_host, 0,
          "index of this process's first host in the whole fake fleet "
          "(sets the clock offsets and rates of its hosts)");
ABSL_FLAG(std::string, bind_address, "127.0.0.1",
          "loopback IPv4 address the hosts listen on");
ABSL_FLAG(std::string, address_file, "", "where to write the addresses");
ABSL_FLAG(int64_t, clock_step_ns, int64_t{3600} * 1000000000,
          "host i's clock is ahead by i times this");
ABSL_FLAG(int, refuse_arm_every, 0,
          "faults: host i (of the whole fleet) refuses every Arm when "
          "i % N == N - 1 (0: none)");
ABSL_FLAG(int, lost_every, 0,
          "faults: host i is lost (every call UNAVAILABLE) --lost_after "
          "into each run when i % N == N / 2 (0: none)");
ABSL_FLAG(absl::Duration, lost_after, absl::Milliseconds(300),
          "faults: how long after its start a --lost_every host is lost");

namespace {

// Descriptors beyond the hosts' (gRPC's own, stdio, the address file).
constexpr rlim_t kSpareDescriptors = 64;

// Raises the soft RLIMIT_NOFILE to the hard one; false (with a message)
// when `hosts` cannot fit under it.
bool FitDescriptors(int hosts) {
  rlimit limit = {};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return false;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
  getrlimit(RLIMIT_NOFILE, &limit);
  const rlim_t needed = 2 * static_cast<rlim_t>(hosts) + kSpareDescriptors;
  if (needed <= limit.rlim_cur) return true;
  std::cerr << "fake_fleet_hosts: --hosts=" << hosts << " needs " << needed
            << " descriptors, RLIMIT_NOFILE allows " << limit.rlim_cur
            << ": serve them from several processes" << std::endl;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  if (!FitDescriptors(absl::GetFlag(FLAGS_hosts))) return 2;
  // As the orchestrator (fleet/calls.h PrepareForHosts): no debug
  // lock-order graph over every gRPC mutex.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  std::vector<blkperf::fleet::testing::FakeHostConfig> configs(
      absl::GetFlag(FLAGS_hosts));
  for (size_t k = 0; k < configs.size(); ++k) {
    const size_t i = k + static_cast<size_t>(absl::GetFlag(FLAGS_first_host));
    configs[k].clock_offset_ns =
        static_cast<int64_t>(i) * absl::GetFlag(FLAGS_clock_step_ns);
    configs[k].iops = 50000 + 10 * static_cast<double>(i % 100);
    const size_t refuse =
        static_cast<size_t>(std::max(0, absl::GetFlag(FLAGS_refuse_arm_every)));
    if (refuse > 0 && i % refuse == refuse - 1) {
      configs[k].arm = blkperf::fleet::testing::ArmBehavior::kRefuse;
    }
    const size_t lost =
        static_cast<size_t>(std::max(0, absl::GetFlag(FLAGS_lost_every)));
    if (lost > 0 && i % lost == lost / 2) {
      configs[k].lost_after_ns =
          absl::ToInt64Nanoseconds(absl::GetFlag(FLAGS_lost_after));
    }
  }
  auto fleet = blkperf::fleet::testing::FakeFleet::Start(
      std::move(configs), absl::GetFlag(FLAGS_bind_address));
  if (!fleet.ok()) {
    std::cerr << fleet.status() << std::endl;
    return 1;
  }
  {
    const std::string path = absl::GetFlag(FLAGS_address_file);
    const std::string tmp = path + ".tmp";
    std::ofstream out(tmp);
    for (const std::string& a : (*fleet)->addresses()) out << a << "\n";
    out.close();
    if (!out || std::rename(tmp.c_str(), path.c_str()) != 0) {
      std::cerr << "cannot write " << path << std::endl;
      return 1;
    }
  }
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  return 0;
}
