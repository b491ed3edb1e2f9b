// Test-only: a TCP relay in front of one loopback port that can go silent,
// a peer that vanished without closing its connections (a host that lost
// power, a link that died): after Silence() it relays nothing either way,
// keeps the connections it has open, and refuses new ones.
//
//   auto relay = SilentRelay::Start(port_of_a_fake_host);
//   // ... a call through relay->address() is in flight ...
//   relay->Silence();  // the caller hears nothing more
#ifndef BLKPERF_FLEET_TESTING_SILENT_RELAY_H_
#define BLKPERF_FLEET_TESTING_SILENT_RELAY_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace blkperf::fleet::testing {

class SilentRelay {
 public:
  // Listens on 127.0.0.1 (an ephemeral port) and relays each connection to
  // 127.0.0.1:`target_port`.
  static absl::StatusOr<std::unique_ptr<SilentRelay>> Start(int target_port);
  ~SilentRelay();
  SilentRelay(const SilentRelay&) = delete;
  SilentRelay& operator=(const SilentRelay&) = delete;

  // 127.0.0.1:<its port>.
  const std::string& address() const { return address_; }
  int port() const { return port_; }

  // From now on nothing is relayed and new connections are refused.
  void Silence();

 private:
  SilentRelay() = default;
  void Accept();
  void Relay(int client, int server);

  int target_port_ = 0;
  int port_ = 0;
  std::string address_;
  std::atomic<bool> silent_{false};
  std::atomic<bool> stopping_{false};
  absl::Mutex mu_;
  int listener_ ABSL_GUARDED_BY(mu_) = -1;
  std::vector<int> fds_ ABSL_GUARDED_BY(mu_);
  std::thread acceptor_;
  std::vector<std::thread> relays_ ABSL_GUARDED_BY(mu_);
};

}  // namespace blkperf::fleet::testing

#endif  // BLKPERF_FLEET_TESTING_SILENT_RELAY_H_
