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

// A bound, listening socket for host:port; sets *port.
absl::StatusOr<int> BindTcp(const std::string& listen, int* port) {
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
  // client's default 127.0.0.1 reaches it.
  const addrinfo* chosen = found;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      chosen = a;
      break;
    }
  }
  const int fd = socket(chosen->ai_family,
                        SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    freeaddrinfo(found);
    return ListenError(listen, errno, "socket");
  }
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  const bool bound = bind(fd, chosen->ai_addr, chosen->ai_addrlen) == 0;
  const int error = errno;
  freeaddrinfo(found);
  if (!bound || ::listen(fd, kBacklog) != 0) {
    close(fd);
    return ListenError(listen, bound ? errno : error, bound ? "listen" : "bind");
  }
  sockaddr_storage addr = {};
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.ss_family == AF_INET6
                    ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                    : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  return fd;
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
  absl::StatusOr<int> fd =
      absl::StartsWith(listen, "unix:")
          ? BindUnix(listen, listen.substr(5), unix_mode)
          : BindTcp(listen, &port);
  if (!fd.ok()) return fd.status();
  const int stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd < 0) {
    const int error = errno;
    close(*fd);
    return absl::ErrnoToStatus(error, "accept loop: eventfd");
  }
  return std::unique_ptr<AcceptLoop>(new AcceptLoop(*fd, stop_fd, port));
}

AcceptLoop::~AcceptLoop() {
  Stop();
  close(stop_fd_);
  close(listen_fd_);
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

void AcceptLoop::Run() {
  bool failing = false;
  for (;;) {
    pollfd fds[2] = {{stop_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    // While accept fails, wait on the stop fd only, then try again.
    const int n = poll(fds, failing ? 1 : 2, failing ? kRetryMs : -1);
    if (n < 0 && errno != EINTR) {
      BLKPERF_LOG(ERROR) << "accept loop: poll: " << strerror(errno);
    }
    if (fds[0].revents != 0) return;
    const int fd =
        accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      const int error = errno;
      if (error == EAGAIN || error == EINTR || error == ECONNABORTED) {
        failing = false;
        continue;
      }
      if (!failing) {
        BLKPERF_LOG(WARNING)
            << "accept: " << strerror(error) << " (RLIMIT_NOFILE "
            << FileLimit() << "); pending connections wait, retrying every "
            << kRetryMs << "ms";
      }
      failing = true;
      continue;
    }
    if (failing) BLKPERF_LOG(INFO) << "accept: accepting again";
    failing = false;
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));  // not unix
    grpc::experimental::ExternalConnectionAcceptor::NewConnectionParameters p;
    p.listener_fd = listen_fd_;
    p.fd = fd;  // gRPC owns it now
    acceptor_->HandleNewConnection(&p);
  }
}

}  // namespace blkperf
