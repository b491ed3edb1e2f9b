// pause_witness: the machine pauses a PauseWitness sees, printed as they
// come, for timing tests that are not C++ (fleet_e2e_test.py). Runs until
// its standard input closes. One line per pause:
//   <cpu> <due CLOCK_REALTIME ns> <woke CLOCK_REALTIME ns>
// and first a line "ok" or "unavailable: <why>".
#include <poll.h>
#include <unistd.h>

#include <cstdio>

#include "tests/timing/pause_witness.h"

int main() {
  blkperf::testing::PauseWitness witness;
  absl::SleepFor(absl::Milliseconds(20));  // the threads have raised or not
  const absl::Status status = witness.status();
  std::printf("%s\n",
              status.ok()
                  ? "ok"
                  : ("unavailable: " + std::string(status.message())).c_str());
  std::fflush(stdout);
  size_t printed = 0;
  for (;;) {
    pollfd in = {.fd = STDIN_FILENO, .events = POLLIN};
    const int ready = poll(&in, 1, 100);
    const std::vector<blkperf::testing::MachinePause> pauses = witness.Pauses();
    for (; printed < pauses.size(); ++printed) {
      const auto& p = pauses[printed];
      std::printf("%d %lld %lld\n", p.cpu,
                  static_cast<long long>(p.due_realtime_ns),
                  static_cast<long long>(p.woke_realtime_ns));
    }
    std::fflush(stdout);
    if (ready > 0) {
      char byte;
      if (read(STDIN_FILENO, &byte, 1) <= 0) return 0;  // closed
    }
  }
}
