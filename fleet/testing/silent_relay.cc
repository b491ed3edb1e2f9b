#include "fleet/testing/silent_relay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace blkperf::fleet::testing {
namespace {

// How often a relay thread looks at silent_ and stopping_.
constexpr int kPollMs = 20;

sockaddr_in Loopback(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

bool WriteAll(int fd, const char* data, ssize_t n) {
  while (n > 0) {
    const ssize_t w = write(fd, data, static_cast<size_t>(n));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= w;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SilentRelay>> SilentRelay::Start(
    int target_port) {
  std::unique_ptr<SilentRelay> relay(new SilentRelay());
  relay->target_port_ = target_port;
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::ErrnoToStatus(errno, "relay: socket");
  sockaddr_in a = Loopback(0);
  socklen_t len = sizeof(a);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      listen(fd, 16) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    const int e = errno;
    close(fd);
    return absl::ErrnoToStatus(e, "relay: bind/listen");
  }
  {
    absl::MutexLock lock(&relay->mu_);
    relay->listener_ = fd;
  }
  relay->port_ = ntohs(a.sin_port);
  relay->address_ = absl::StrCat("127.0.0.1:", relay->port_);
  relay->acceptor_ = std::thread([r = relay.get()] { r->Accept(); });
  return relay;
}

void SilentRelay::Accept() {
  int listener;
  {
    absl::MutexLock lock(&mu_);
    listener = listener_;
  }
  while (!stopping_.load() && !silent_.load()) {
    pollfd p{listener, POLLIN, 0};
    if (poll(&p, 1, kPollMs) <= 0) continue;
    const int client = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    const int server = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const sockaddr_in to = Loopback(target_port_);
    if (server < 0 || connect(server, reinterpret_cast<const sockaddr*>(&to),
                              sizeof(to)) != 0) {
      close(client);
      if (server >= 0) close(server);
      continue;
    }
    absl::MutexLock lock(&mu_);
    fds_.push_back(client);
    fds_.push_back(server);
    relays_.emplace_back([this, client, server] { Relay(client, server); });
  }
}

void SilentRelay::Relay(int client, int server) {
  pollfd p[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
  char buffer[16384];
  while (!stopping_.load()) {
    if (silent_.load()) {
      // Read nothing, answer nothing, close nothing.
      poll(nullptr, 0, kPollMs);
      continue;
    }
    if (poll(p, 2, kPollMs) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (p[i].revents == 0) continue;
      const ssize_t n = read(p[i].fd, buffer, sizeof(buffer));
      if (n <= 0 || !WriteAll(p[1 - i].fd, buffer, n)) {
        shutdown(client, SHUT_RDWR);
        shutdown(server, SHUT_RDWR);
        return;
      }
    }
  }
}

void SilentRelay::Silence() {
  silent_.store(true);
  // A listening socket shut down refuses further connections (Linux).
  absl::MutexLock lock(&mu_);
  shutdown(listener_, SHUT_RDWR);
}

SilentRelay::~SilentRelay() {
  stopping_.store(true);
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> relays;
  {
    absl::MutexLock lock(&mu_);
    relays.swap(relays_);
  }
  for (std::thread& t : relays) t.join();
  absl::MutexLock lock(&mu_);
  for (int fd : fds_) close(fd);
  close(listener_);
}

}  // namespace blkperf::fleet::testing
