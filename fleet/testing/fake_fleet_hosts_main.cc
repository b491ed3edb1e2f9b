// fake_fleet_hosts: test-only; serves N fake blkperfd hosts (fake_fleet.h)
// from one process, for the 1,000-host scale test. Writes one host:port a
// line to --address_file, then serves until SIGTERM or SIGINT.
//
//   fake_fleet_hosts --hosts=1000 --address_file=/tmp/hosts.txt &
#include <signal.h>

#include <fstream>
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "fleet/testing/fake_fleet.h"

ABSL_FLAG(int, hosts, 1000, "fake hosts (one loopback port each)");
ABSL_FLAG(std::string, address_file, "", "where to write the addresses");
ABSL_FLAG(int64_t, clock_step_ns, int64_t{3600} * 1000000000,
          "host i's clock is ahead by i times this");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::vector<blkperf::fleet::testing::FakeHostConfig> configs(
      absl::GetFlag(FLAGS_hosts));
  for (size_t i = 0; i < configs.size(); ++i) {
    configs[i].clock_offset_ns =
        static_cast<int64_t>(i) * absl::GetFlag(FLAGS_clock_step_ns);
    configs[i].iops = 50000 + 10 * static_cast<double>(i % 100);
  }
  auto fleet = blkperf::fleet::testing::FakeFleet::Start(std::move(configs));
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
