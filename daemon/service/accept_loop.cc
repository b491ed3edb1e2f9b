#include "daemon/service/accept_loop.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/bounded_text.h"
#include "base/log.h"

namespace blkperf {
namespace {

constexpr int kBacklog = 256;
constexpr int kRetryMs = 100;

absl::Status ListenError(const std::string& listen, int error,
                         const char* step) {
  const std::string what =
      absl::StrCat("--listen ", BoundedText(listen), ": ", step);
  if (error == EADDRINUSE) {
    return absl::UnavailableError(absl::StrCat(
        what, ": address in use (another blkperfd? SO_REUSEPORT is off so "
              "two daemons never share a port)"));
  }
  return absl::ErrnoToStatus(error, what);
}

// A listening socket bound to `addr`, or -1 with *error set.
int ListenOn(const sockaddr* addr, socklen_t length, int* error) {
  const int fd = socket(addr->sa_family,
                        SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    *error = errno;
    return -1;
  }
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd, addr, length) != 0 || ::listen(fd, kBacklog) != 0) {
    *error = errno;
    close(fd);
    return -1;
  }
  return fd;
}

int BoundPort(int fd) {
  sockaddr_storage addr = {};
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return ntohs(addr.ss_family == AF_INET6
                   ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                   : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

// The loopback of the other family that a client naming "localhost" may
// reach at the same port: [::1] beside 127.0.0.1 or 0.0.0.0, 127.0.0.1
// beside [::1]. Family AF_UNSPEC when there is none ([::] covers both
// itself; other addresses are not what "localhost" names).
sockaddr_storage CompanionOf(const sockaddr* addr, int port) {
  sockaddr_storage out = {};
  if (addr->sa_family == AF_INET) {
    const in_addr_t ip =
        ntohl(reinterpret_cast<const sockaddr_in*>(addr)->sin_addr.s_addr);
    if (ip != INADDR_LOOPBACK && ip != INADDR_ANY) return out;
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&out);
    v6->sin6_family = AF_INET6;
    v6->sin6_addr = in6addr_loopback;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
  } else if (addr->sa_family == AF_INET6 &&
             IN6_IS_ADDR_LOOPBACK(
                 &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr)) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&out);
    v4->sin_family = AF_INET;
    v4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    v4->sin_port = htons(static_cast<uint16_t>(port));
  }
  return out;
}

std::string AddressText(const sockaddr_storage& addr, int port) {
  return addr.ss_family == AF_INET6 ? absl::StrCat("[::1]:", port)
                                    : absl::StrCat("127.0.0.1:", port);
}

// Port 0 picked a port whose companion was taken: tries this many ports.
constexpr int kCompanionTries = 8;

// Bound, listening sockets for host:port (the address itself, then its
// companion loopback, see CompanionOf); sets *port and *companion ("" when
// there is none).
absl::StatusOr<std::vector<int>> BindTcp(const std::string& listen, int* port,
                                         std::string* companion) {
  const size_t colon = listen.rfind(':');
  std::string host = colon == std::string::npos ? "" : listen.substr(0, colon);
  const std::string service =
      colon == std::string::npos ? listen : listen.substr(colon + 1);
  if (absl::StartsWith(host, "[") && absl::EndsWith(host, "]")) {
    host = host.substr(1, host.size() - 2);
  }
  int number = 0;
  if (!absl::SimpleAtoi(service, &number) || number < 0 || number > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--listen ", BoundedText(listen), ": expected host:port"));
  }
  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(),
                             service.c_str(), &hints, &found);
  if (rc != 0 || found == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--listen ", BoundedText(listen), ": ", gai_strerror(rc)));
  }
  // One address: IPv4 first when the name has both ("localhost"), so the
  // client's default 127.0.0.1 reaches it; the companion takes the other.
  const addrinfo* chosen = found;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      chosen = a;
      break;
    }
  }
  sockaddr_storage primary = {};
  std::memcpy(&primary, chosen->ai_addr, chosen->ai_addrlen);
  const socklen_t primary_length = chosen->ai_addrlen;
  freeaddrinfo(found);
  for (int attempt = 1;; ++attempt) {
    int error = 0;
    const int fd = ListenOn(reinterpret_cast<const sockaddr*>(&primary),
                            primary_length, &error);
    if (fd < 0) return ListenError(listen, error, "bind");
    *port = BoundPort(fd);
    const sockaddr_storage other =
        CompanionOf(reinterpret_cast<const sockaddr*>(&primary), *port);
    if (other.ss_family == AF_UNSPEC) return std::vector<int>{fd};
    const int companion_fd = ListenOn(
        reinterpret_cast<const sockaddr*>(&other),
        other.ss_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in),
        &error);
    if (companion_fd >= 0) {
      *companion = AddressText(other, *port);
      return std::vector<int>{fd, companion_fd};
    }
    if (error != EADDRINUSE) {
      // No such loopback on this host (no IPv6, say): nobody can listen
      // there either.
      BLKPERF_LOG(INFO) << "--listen " << listen << ": not also listening on "
                        << AddressText(other, *port) << ": "
                        << strerror(error);
      return std::vector<int>{fd};
    }
    close(fd);
    if (number == 0 && attempt < kCompanionTries) continue;
    return absl::UnavailableError(absl::StrCat(
        "--listen ", BoundedText(listen), ": ", AddressText(other, *port),
        " is in use (another blkperfd?): blkperfd listens there too, since "
        "clients naming localhost may connect to either loopback, and "
        "another listener there would answer them"));
  }
}

absl::StatusOr<int> BindUnix(const std::string& listen,
                             const std::string& path, mode_t mode) {
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--listen ", BoundedText(listen), ": path too long"));
  }
  std::memcpy(addr.sun_path, path.data(), path.size());
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return ListenError(listen, errno, "socket");
  unlink(path.c_str());  // a stale socket (CheckUnixSocketFree ran first)
  // The file bind() creates takes the socket's mode (less the umask): never
  // wider than `mode`, whatever the umask. Then exactly `mode`, before
  // listen(): no connection is possible in between.
  if (fchmod(fd, mode) != 0 ||
      bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
    const int error = errno;
    close(fd);
    return ListenError(listen, error, "bind");
  }
  if (chmod(path.c_str(), mode) != 0 || ::listen(fd, kBacklog) != 0) {
    const int error = errno;
    close(fd);
    unlink(path.c_str());
    return ListenError(listen, error, "chmod and listen");
  }
  return fd;
}

rlim_t FileLimit() {
  rlimit limit = {};
  getrlimit(RLIMIT_NOFILE, &limit);
  return limit.rlim_cur;
}

}  // namespace

absl::StatusOr<std::unique_ptr<AcceptLoop>> AcceptLoop::Bind(
    const std::string& listen, mode_t unix_mode) {
  int port = 0;
  std::string companion;
  std::vector<int> fds;
  if (absl::StartsWith(listen, "unix:")) {
    absl::StatusOr<int> fd = BindUnix(listen, listen.substr(5), unix_mode);
    if (!fd.ok()) return fd.status();
    fds.push_back(*fd);
  } else {
    absl::StatusOr<std::vector<int>> bound = BindTcp(listen, &port, &companion);
    if (!bound.ok()) return bound.status();
    fds = *std::move(bound);
  }
  const int stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd < 0) {
    const int error = errno;
    for (int fd : fds) close(fd);
    return absl::ErrnoToStatus(error, "accept loop: eventfd");
  }
  return std::unique_ptr<AcceptLoop>(
      new AcceptLoop(std::move(fds), stop_fd, port, std::move(companion)));
}

AcceptLoop::~AcceptLoop() {
  Stop();
  close(stop_fd_);
  for (int fd : listen_fds_) close(fd);
}

void AcceptLoop::Start(
    std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor) {
  acceptor_ = std::move(acceptor);
  thread_ = std::thread([this] { Run(); });
}

void AcceptLoop::Stop() {
  const uint64_t one = 1;
  ssize_t ignored = write(stop_fd_, &one, sizeof(one));
  (void)ignored;
  if (thread_.joinable()) thread_.join();
}

int AcceptLoop::AcceptOne(int listen_fd) {
  const int fd =
      accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0) {
    const int error = errno;
    return error == EAGAIN || error == EINTR || error == ECONNABORTED ? 0
                                                                      : error;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));  // not unix
  grpc::experimental::ExternalConnectionAcceptor::NewConnectionParameters p;
  p.listener_fd = listen_fd;
  p.fd = fd;  // gRPC owns it now
  acceptor_->HandleNewConnection(&p);
  return 0;
}

void AcceptLoop::Run() {
  std::vector<pollfd> fds = {{stop_fd_, POLLIN, 0}};
  for (int fd : listen_fds_) fds.push_back({fd, POLLIN, 0});
  bool failing = false;
  for (;;) {
    for (pollfd& p : fds) p.revents = 0;
    // While accept fails, wait on the stop fd only, then try again.
    const int n = poll(fds.data(), failing ? 1 : fds.size(),
                       failing ? kRetryMs : -1);
    if (n < 0 && errno != EINTR) {
      BLKPERF_LOG(ERROR) << "accept loop: poll: " << strerror(errno);
    }
    if (fds[0].revents != 0) return;
    int error = 0;
    for (size_t i = 1; i < fds.size(); ++i) {
      if (!failing && fds[i].revents == 0) continue;
      if (const int e = AcceptOne(fds[i].fd); e != 0) error = e;
    }
    if (error != 0 && !failing) {
      BLKPERF_LOG(WARNING)
          << "accept: " << strerror(error) << " (RLIMIT_NOFILE "
          << FileLimit() << "); pending connections wait, retrying every "
          << kRetryMs << "ms";
    }
    if (error == 0 && failing) BLKPERF_LOG(INFO) << "accept: accepting again";
    failing = error != 0;
  }
}

}  // namespace blkperf
